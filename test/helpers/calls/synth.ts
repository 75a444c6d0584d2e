/** Deterministic test recordings: sine tones switched on and off at exact times. */

export interface ToneTrack {
  readonly frequencyHz: number;
  readonly amplitude: number;
  /** `[start_s, end_s)` spans where the tone sounds. */
  readonly spans: readonly (readonly [number, number])[];
}

export interface RecordingSpec {
  readonly sampleRate: number;
  readonly durationS: number;
  readonly tracks: readonly ToneTrack[];
  /** Uniform white noise of this peak amplitude on every channel, from a fixed-seed generator. */
  readonly noiseAmplitude?: number;
}

/** Park-Miller LCG: reproducible noise without Math.random. */
function noiseSource(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return (state / 2147483647) * 2 - 1;
  };
}

export function synthesize(spec: RecordingSpec): Float32Array[] {
  const length = Math.round(spec.sampleRate * spec.durationS);
  return spec.tracks.map((track, c) => {
    const out = new Float32Array(length);
    const noise = noiseSource(12345 + c);
    for (const [start, end] of track.spans) {
      const from = Math.round(start * spec.sampleRate);
      const to = Math.min(length, Math.round(end * spec.sampleRate));
      for (let i = from; i < to; i++) out[i] = track.amplitude * Math.sin((2 * Math.PI * track.frequencyHz * i) / spec.sampleRate);
    }
    if (spec.noiseAmplitude) for (let i = 0; i < length; i++) out[i]! += spec.noiseAmplitude * noise();
    return out;
  });
}

/**
 * The reference call (research notes §2.3): 20 s stereo, operator 440 Hz at 0.5 during
 * [0,3) [6,8) [14,16), customer 660 Hz at 0.3 during [3,6) [7.5,9) [16,18).
 */
export function referenceCall(sampleRate = 8000, scaleOperator = 1): RecordingSpec {
  return {
    sampleRate,
    durationS: 20,
    tracks: [
      { frequencyHz: 440, amplitude: 0.5 * scaleOperator, spans: [[0, 3], [6, 8], [14, 16]] },
      { frequencyHz: 660, amplitude: 0.3, spans: [[3, 6], [7.5, 9], [16, 18]] },
    ],
  };
}

/** Splits a buffer into chunks of the given sizes, cycling through them: simulates network reads. */
export async function* chunked(bytes: Uint8Array, sizes: readonly number[] = [65536]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

/**
 * Tones are not speech, and Silero (the API's VAD) hears none in them: the tone fixtures measure
 * the timing machinery with the energy VAD. Speech fixtures measure Silero (silero-vad.test.ts).
 */
export const TONE_ANALYSIS = { analyzer: { vad: 'energy' } } as const;

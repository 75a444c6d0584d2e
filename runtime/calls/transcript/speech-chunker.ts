import type { PcmBlock } from '../audio/pcm-block.js';
import { LinearResampler } from './resampler.js';
import { SPEECH_SAMPLE_RATE, type SpeechChunk } from './speech-engine.js';

export interface ChunkerOptions {
  /** A chunk is cut at the first long-enough silence after this much audio. */
  readonly minChunkS: number;
  /** ...and cut regardless at this length: the bound on what is held per channel. */
  readonly maxChunkS: number;
  /** A silence at least this long is a place to cut. */
  readonly cutSilenceS: number;
  /** A 20 ms frame below this level is silent. */
  readonly silenceDbfs: number;
}

export const DEFAULT_CHUNKER_OPTIONS: ChunkerOptions = { minChunkS: 15, maxChunkS: 30, cutSilenceS: 0.3, silenceDbfs: -45 };

const FRAME = SPEECH_SAMPLE_RATE / 50;

/** One channel's pending audio, at SPEECH_SAMPLE_RATE. */
class ChannelBuffer {
  readonly data: Float32Array;
  length = 0;
  /** Recording time of data[0], in samples at SPEECH_SAMPLE_RATE. */
  offset = 0;
  /** Frames of the buffer with speech, and the current run of silent frames at its end. */
  speechFrames = 0;
  silentRun = 0;
  #framePos = 0;
  #frameEnergy = 0;

  constructor(
    readonly channel: number,
    readonly resampler: LinearResampler,
    capacity: number,
  ) {
    this.data = new Float32Array(capacity);
  }

  /** Appends one sample; true when a 20 ms frame closed with it. */
  add(sample: number, silenceMeanSquare: number): boolean {
    this.data[this.length++] = sample;
    this.#frameEnergy += sample * sample;
    if (++this.#framePos < FRAME) return false;
    if (this.#frameEnergy / FRAME > silenceMeanSquare) {
      this.speechFrames++;
      this.silentRun = 0;
    } else {
      this.silentRun++;
    }
    this.#framePos = 0;
    this.#frameEnergy = 0;
    return true;
  }

  /** Drops everything held; the next sample starts a new chunk. */
  reset(): void {
    this.offset += this.length;
    this.length = 0;
    this.speechFrames = 0;
    this.silentRun = 0;
    this.#framePos = 0;
    this.#frameEnergy = 0;
  }
}

/**
 * Cuts each channel of a decoded recording into chunks for a speech engine: resampled to 16 kHz,
 * cut at a silence once a chunk is long enough (so no word is split), never longer than
 * `maxChunkS`. Stretches without speech are dropped, not sent. Memory: one `maxChunkS` buffer per
 * channel, whatever the length of the call.
 */
export class SpeechChunker {
  readonly #options: ChunkerOptions;
  readonly #silence: number;
  #channels: ChannelBuffer[] = [];

  constructor(options: ChunkerOptions = DEFAULT_CHUNKER_OPTIONS) {
    this.#options = options;
    this.#silence = 10 ** (options.silenceDbfs / 10);
  }

  /** The chunks completed by this block, in channel order. */
  push(block: PcmBlock): SpeechChunk[] {
    if (this.#channels.length === 0) {
      const capacity = Math.ceil(this.#options.maxChunkS * SPEECH_SAMPLE_RATE) + FRAME;
      this.#channels = block.channelData.map((_, c) => new ChannelBuffer(c, new LinearResampler(block.sampleRate, SPEECH_SAMPLE_RATE), capacity));
    }
    const minLength = this.#options.minChunkS * SPEECH_SAMPLE_RATE;
    const maxLength = this.#options.maxChunkS * SPEECH_SAMPLE_RATE;
    const cutRun = Math.round(this.#options.cutSilenceS * 50);
    const chunks: SpeechChunk[] = [];
    this.#channels.forEach((buffer, c) => {
      const samples = buffer.resampler.push(block.channelData[c]!);
      for (let i = 0; i < samples.length; i++) {
        if (!buffer.add(samples[i]!, this.#silence)) continue;
        if (buffer.speechFrames === 0) {
          // Nothing said yet: keep only the last frames, the lead-in of whatever comes.
          if (buffer.silentRun >= cutRun) buffer.reset();
        } else if ((buffer.length >= minLength && buffer.silentRun >= cutRun) || buffer.length >= maxLength) {
          chunks.push(this.#take(buffer));
        }
      }
    });
    return chunks;
  }

  /** What is left at the end of the recording. */
  finish(): SpeechChunk[] {
    return this.#channels.filter((buffer) => buffer.speechFrames > 0).map((buffer) => this.#take(buffer));
  }

  #take(buffer: ChannelBuffer): SpeechChunk {
    const chunk = {
      samples: buffer.data.slice(0, buffer.length),
      sampleRate: SPEECH_SAMPLE_RATE,
      channel: buffer.channel,
      offset: buffer.offset / SPEECH_SAMPLE_RATE,
    };
    buffer.reset();
    return chunk;
  }
}

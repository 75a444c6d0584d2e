import type { PcmBlock } from '../audio/pcm-block.js';

/** Per-channel totals over the whole recording. */
export interface ChannelTotals {
  readonly sumSquares: number;
  readonly peak: number;
  readonly clippedSamples: number;
}

/** Everything the VAD and the metrics need, reduced from the samples: O(frames), not O(samples). */
export interface FrameLevels {
  readonly sampleRate: number;
  readonly frameSamples: number;
  /** Samples in each frame; the last frame may be shorter. */
  readonly frameLengths: (frame: number) => number;
  readonly frameCount: number;
  readonly totalSamples: number;
  /** Mean square of each frame, one array per channel, length `frameCount`. */
  readonly meanSquares: readonly Float64Array[];
  readonly totals: readonly ChannelTotals[];
}

class GrowableFloat64 {
  #data = new Float64Array(1024);
  length = 0;

  reserve(extra: number): void {
    if (this.length + extra <= this.#data.length) return;
    const next = new Float64Array(Math.max(this.#data.length * 2, this.length + extra));
    next.set(this.#data.subarray(0, this.length));
    this.#data = next;
  }

  set(index: number, value: number): void {
    this.#data[index] = value;
  }

  trimmed(): Float64Array {
    return this.#data.slice(0, this.length);
  }
}

/**
 * Streaming reducer: feed decoded blocks of any size, get per-frame energies and channel totals.
 * Frame boundaries are fixed at multiples of `frameSamples` from the first sample, independent of
 * how the input was chunked, so the result is deterministic.
 */
export class FrameAccumulator {
  readonly #frameMs: number;
  readonly #clipThreshold: number;
  #sampleRate = 0;
  #frameSamples = 0;
  #channels: GrowableFloat64[] = [];
  #partialSums: number[] = [];
  #sumSquares: number[] = [];
  #peaks: number[] = [];
  #clipped: number[] = [];
  #framePos = 0;
  #frameCount = 0;
  #totalSamples = 0;

  constructor(frameMs: number, clipThreshold: number) {
    this.#frameMs = frameMs;
    this.#clipThreshold = clipThreshold;
  }

  push(block: PcmBlock): void {
    const channelCount = block.channelData.length;
    if (this.#sampleRate === 0) this.#start(block.sampleRate, channelCount);
    if (block.sampleRate !== this.#sampleRate || channelCount !== this.#channels.length) {
      throw new Error('FrameAccumulator: block shape differs from the first block');
    }
    const length = block.channelData[0]?.length ?? 0;
    const frameSamples = this.#frameSamples;
    const newFrames = Math.floor((this.#framePos + length) / frameSamples);
    let endPos = this.#framePos;
    let endFrame = this.#frameCount;
    for (let c = 0; c < channelCount; c++) {
      const data = block.channelData[c]!;
      const frames = this.#channels[c]!;
      frames.reserve(newFrames);
      let pos = this.#framePos;
      let frame = this.#frameCount;
      let sum = this.#partialSums[c]!;
      let total = 0;
      let peak = this.#peaks[c]!;
      let clipped = 0;
      for (let i = 0; i < length; i++) {
        const x = data[i]!;
        const square = x * x;
        sum += square;
        total += square;
        const magnitude = x < 0 ? -x : x;
        if (magnitude > peak) peak = magnitude;
        if (magnitude >= this.#clipThreshold) clipped++;
        if (++pos === frameSamples) {
          frames.set(frame++, sum / frameSamples);
          sum = 0;
          pos = 0;
        }
      }
      frames.length = frame;
      this.#partialSums[c] = sum;
      this.#sumSquares[c]! += total;
      this.#peaks[c] = peak;
      this.#clipped[c]! += clipped;
      endPos = pos;
      endFrame = frame;
    }
    this.#framePos = endPos;
    this.#frameCount = endFrame;
    this.#totalSamples += length;
  }

  /** Closes the last (possibly partial) frame and returns the reduced recording. */
  finish(): FrameLevels {
    const partial = this.#framePos;
    if (partial > 0) {
      this.#channels.forEach((frames, c) => {
        frames.reserve(1);
        frames.set(frames.length++, this.#partialSums[c]! / partial);
      });
    }
    const frameCount = this.#frameCount + (partial > 0 ? 1 : 0);
    const frameSamples = this.#frameSamples;
    const lastFrame = frameCount - 1;
    return {
      sampleRate: this.#sampleRate,
      frameSamples,
      frameLengths: (frame) => (frame === lastFrame && partial > 0 ? partial : frameSamples),
      frameCount,
      totalSamples: this.#totalSamples,
      meanSquares: this.#channels.map((frames) => frames.trimmed()),
      totals: this.#channels.map((_, c) => ({
        sumSquares: this.#sumSquares[c]!,
        peak: this.#peaks[c]!,
        clippedSamples: this.#clipped[c]!,
      })),
    };
  }

  #start(sampleRate: number, channels: number): void {
    this.#sampleRate = sampleRate;
    this.#frameSamples = Math.max(1, Math.round((sampleRate * this.#frameMs) / 1000));
    this.#channels = Array.from({ length: channels }, () => new GrowableFloat64());
    this.#partialSums = new Array<number>(channels).fill(0);
    this.#sumSquares = new Array<number>(channels).fill(0);
    this.#peaks = new Array<number>(channels).fill(0);
    this.#clipped = new Array<number>(channels).fill(0);
  }
}

import type { AnalyzerOptions } from './options.js';

/** Level reported for digital silence, where the logarithm would be -Infinity. */
export const SILENCE_FLOOR_DBFS = -120;

export function meanSquareToDbfs(meanSquare: number): number {
  return meanSquare > 0 ? Math.max(SILENCE_FLOOR_DBFS, 10 * Math.log10(meanSquare)) : SILENCE_FLOOR_DBFS;
}

export interface ChannelVad {
  /** 1 where the channel's speaker is talking, per frame. */
  readonly active: Uint8Array;
  readonly noiseFloorDbfs: number;
  readonly thresholdDbfs: number;
}

/** Nearest-rank percentile: deterministic and independent of interpolation choices. */
export function percentile(values: Float64Array, fraction: number): number {
  if (values.length === 0) return SILENCE_FLOOR_DBFS;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.floor(fraction * (sorted.length - 1))]!;
}

/** Fills pauses shorter than `minGap` frames between two talk runs, in place. */
export function bridgeGaps(active: Uint8Array, minGap: number): void {
  let lastActiveEnd = -1;
  for (let f = 0; f < active.length; f++) {
    if (!active[f]) continue;
    if (lastActiveEnd >= 0 && f > lastActiveEnd && f - lastActiveEnd < minGap) active.fill(1, lastActiveEnd, f);
    lastActiveEnd = f + 1;
  }
}

/** Clears talk runs shorter than `minRun` frames, in place. */
export function dropShortRuns(active: Uint8Array, minRun: number): void {
  let start = -1;
  for (let f = 0; f <= active.length; f++) {
    const on = f < active.length && active[f] === 1;
    if (on && start < 0) start = f;
    if (!on && start >= 0) {
      if (f - start < minRun) active.fill(0, start, f);
      start = -1;
    }
  }
}

/** Frames (of `frameMs`) whose middle falls inside one of the `[start_s, end_s]` segments. */
export function framesOf(segments: readonly (readonly [number, number])[], frameCount: number, frameMs: number): Uint8Array {
  const frames = new Uint8Array(frameCount);
  const frameS = frameMs / 1000;
  for (const [start, end] of segments) {
    for (let f = Math.max(0, Math.ceil(start / frameS - 0.5)); f < frameCount && (f + 0.5) * frameS < end; f++) frames[f] = 1;
  }
  return frames;
}

/**
 * VAD over all channels at once. Per channel: with `speech` (Silero's frames), a frame counts
 * when Silero heard speech in it and it is not digital silence (an absolute threshold would cut
 * the quiet ends of words Silero keeps); without, when its level is above the noise floor (a low
 * percentile of frame levels) plus a margin, clamped to [absolute, max]. With several channels a frame only counts when it is within `crosstalkDb` of
 * the loudest other channel, so echo and codec leakage of the other speaker never count as talk
 * (Silero hears leaked speech as speech). Then short pauses are bridged and short bursts dropped.
 */
export function detectVoiceActivity(meanSquares: readonly Float64Array[], options: AnalyzerOptions, speech?: readonly Uint8Array[]): ChannelVad[] {
  const levels = meanSquares.map((channel) => channel.map(meanSquareToDbfs));
  const frameCount = levels[0]?.length ?? 0;
  const minGap = Math.round(options.minGapMs / options.frameMs);
  const minRun = Math.round(options.minSpeechMs / options.frameMs);
  return levels.map((own, c) => {
    const noiseFloorDbfs = percentile(own, options.noisePercentile);
    const adaptive = Math.min(noiseFloorDbfs + options.noiseMarginDb, options.maxThresholdDbfs);
    const heard = speech?.[c];
    const thresholdDbfs = heard ? SILENCE_FLOOR_DBFS : Math.max(options.absoluteThresholdDbfs, adaptive);
    const active = new Uint8Array(frameCount);
    for (let f = 0; f < frameCount; f++) {
      const level = own[f]!;
      if (level <= thresholdDbfs || (heard && !heard[f])) continue;
      let loudestOther = -Infinity;
      for (let o = 0; o < levels.length; o++) if (o !== c) loudestOther = Math.max(loudestOther, levels[o]![f]!);
      if (level >= loudestOther - options.crosstalkDb) active[f] = 1;
    }
    bridgeGaps(active, minGap);
    dropShortRuns(active, minRun);
    return { active, noiseFloorDbfs, thresholdDbfs };
  });
}

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

/**
 * Energy VAD over all channels at once. Per channel: the threshold is the noise floor (a low
 * percentile of frame levels) plus a margin, clamped to [absolute, max]. With several channels a
 * frame only counts when it is within `crosstalkDb` of the loudest other channel, so echo and
 * codec leakage of the other speaker never count as talk. Then short pauses are bridged and short
 * bursts dropped.
 */
export function detectVoiceActivity(meanSquares: readonly Float64Array[], options: AnalyzerOptions): ChannelVad[] {
  const levels = meanSquares.map((channel) => channel.map(meanSquareToDbfs));
  const frameCount = levels[0]?.length ?? 0;
  const minGap = Math.round(options.minGapMs / options.frameMs);
  const minRun = Math.round(options.minSpeechMs / options.frameMs);
  return levels.map((own, c) => {
    const noiseFloorDbfs = percentile(own, options.noisePercentile);
    const adaptive = Math.min(noiseFloorDbfs + options.noiseMarginDb, options.maxThresholdDbfs);
    const thresholdDbfs = Math.max(options.absoluteThresholdDbfs, adaptive);
    const active = new Uint8Array(frameCount);
    for (let f = 0; f < frameCount; f++) {
      const level = own[f]!;
      if (level <= thresholdDbfs) continue;
      let loudestOther = -Infinity;
      for (let o = 0; o < levels.length; o++) if (o !== c) loudestOther = Math.max(loudestOther, levels[o]![f]!);
      if (level >= loudestOther - options.crosstalkDb) active[f] = 1;
    }
    bridgeGaps(active, minGap);
    dropShortRuns(active, minRun);
    return { active, noiseFloorDbfs, thresholdDbfs };
  });
}

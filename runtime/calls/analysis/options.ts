/**
 * `silero`: Silero VAD decides which frames are speech; the other channel's leakage is still
 * rejected by level (`crosstalkDb`), and pauses bridged and bursts dropped as below. `energy`:
 * the energy VAD alone (level over the channel's noise floor). Silero was better on the spoken
 * fixtures (docs/call-analysis.md); the energy VAD serves signals that are not speech (tones).
 */
export type VadKind = 'silero' | 'energy';

/** Tunables of the VAD. Energy defaults are the values that gave exact answers in the research runs. */
export interface AnalyzerOptions {
  readonly vad: VadKind;
  /** Analysis frame length. */
  readonly frameMs: number;
  /** A frame is never speech at or below this level, however quiet the line is. */
  readonly absoluteThresholdDbfs: number;
  /** A frame must be this far above the channel's noise floor to count as speech. */
  readonly noiseMarginDb: number;
  /** The noise floor is this percentile (0..1) of the channel's frame levels. */
  readonly noisePercentile: number;
  /**
   * The adaptive threshold never rises above this, so a channel that is busy nearly all the time
   * (its low percentile is speech, not noise) still counts as talking.
   */
  readonly maxThresholdDbfs: number;
  /** Multi-channel: a frame only counts when it is at most this far below the loudest other channel (echo/leakage rejection). */
  readonly crosstalkDb: number;
  /** Pauses shorter than this inside speech are bridged. */
  readonly minGapMs: number;
  /** Bursts shorter than this (after bridging) are dropped. */
  readonly minSpeechMs: number;
  /** An interruption requires the interrupted speaker to stop within this time of the interrupter starting. */
  readonly interruptionWindowMs: number;
  /** Samples at or above this absolute value count as clipped. */
  readonly clipThreshold: number;
  /** At most this many segments per channel are listed in the result (the metrics always use all of them). */
  readonly maxSegmentsPerChannel: number;
}

export const DEFAULT_ANALYZER_OPTIONS: AnalyzerOptions = Object.freeze({
  vad: 'silero',
  frameMs: 20,
  absoluteThresholdDbfs: -45,
  noiseMarginDb: 12,
  noisePercentile: 0.1,
  maxThresholdDbfs: -25,
  crosstalkDb: 18,
  minGapMs: 200,
  minSpeechMs: 100,
  interruptionWindowMs: 3000,
  clipThreshold: 0.999,
  maxSegmentsPerChannel: 5000,
});

export function resolveAnalyzerOptions(overrides: Partial<AnalyzerOptions> = {}): AnalyzerOptions {
  return { ...DEFAULT_ANALYZER_OPTIONS, ...overrides };
}

/** A word of a mono call with the median pitch of its voiced frames (null: unvoiced or too short). */
export interface PitchedWord {
  readonly start: number;
  readonly end: number;
  readonly pitchHz: number | null;
}

export interface PitchSplit {
  /** Per word: 0 or 1. All 0 when the voices could not be told apart. */
  readonly speakerOf: readonly number[];
  readonly speakers: 1 | 2;
  /** 0..1: how clearly the two pitch groups stand apart. */
  readonly confidence: number;
}

/** Words closer than this belong to one run, spoken by one voice. */
const RUN_GAP_S = 0.35;
/** Below this the split is not trusted and the call gets one speaker. */
export const MIN_SPLIT_CONFIDENCE = 0.5;
/** The smaller voice must hold at least this share of the runs. */
const MIN_SHARE = 0.1;

interface Run {
  readonly words: number[];
  readonly logPitch: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function runsOf(words: readonly PitchedWord[]): Run[] {
  const runs: Run[] = [];
  let current: number[] = [];
  const close = (): void => {
    const pitches = current.map((i) => words[i]!.pitchHz).filter((p): p is number => p !== null);
    if (pitches.length) runs.push({ words: current, logPitch: Math.log2(median(pitches)) });
    current = [];
  };
  words.forEach((word, i) => {
    if (current.length && word.start - words[current[current.length - 1]!]!.end > RUN_GAP_S) close();
    current.push(i);
  });
  if (current.length) close();
  return runs;
}

/**
 * Two voices in one channel told apart by pitch alone: runs of words between pauses are put in two
 * groups by their median log-pitch (1-D two-means, exact by trying every split of the sorted
 * values). The confidence grows with the gap between the groups, in octaves and in their own
 * spread: a male/female pair stands a third of an octave and several spreads apart, two similar
 * voices do not, and then the call keeps one speaker. Words of unvoiced runs take the voice of the run before them.
 */
export function splitByPitch(words: readonly PitchedWord[]): PitchSplit {
  const one: PitchSplit = { speakerOf: words.map(() => 0), speakers: 1, confidence: 0 };
  const runs = runsOf(words);
  if (runs.length < 4) return one;
  const values = runs.map((run) => run.logPitch).sort((a, b) => a - b);
  let best = { cost: Infinity, cut: 0 };
  for (let cut = 1; cut < values.length; cut++) {
    const cost = spread(values.slice(0, cut)) * cut + spread(values.slice(cut)) * (values.length - cut);
    if (cost < best.cost) best = { cost, cut };
  }
  const low = values.slice(0, best.cut);
  const high = values.slice(best.cut);
  const gap = mean(high) - mean(low);
  const within = Math.sqrt(best.cost / values.length) || 1e-3;
  const share = Math.min(low.length, high.length) / values.length;
  // A gap of 3 spreads is what two-means finds in a single voice's own scatter; 7 and more is two
  // voices. A synthetic or very steady voice scatters so little that a tiny gap is many spreads, so
  // the gap must also be wide in itself: a tenth of an octave is one voice's range, 0.3 two voices.
  const apart = clamp01((gap / within - 3) / 4);
  const wide = clamp01((gap - 0.1) / 0.2);
  const confidence = share < MIN_SHARE ? 0 : Math.min(apart, wide);
  if (confidence < MIN_SPLIT_CONFIDENCE) return { ...one, confidence: round(confidence) };
  const threshold = (low[low.length - 1]! + high[0]!) / 2;
  const speakerOf = new Array<number>(words.length).fill(-1);
  for (const run of runs) for (const i of run.words) speakerOf[i] = run.logPitch > threshold ? 1 : 0;
  // The first voice heard is speaker 0.
  const first = speakerOf.find((s) => s >= 0) ?? 0;
  let previous = 0;
  const ordered = speakerOf.map((s) => (previous = s < 0 ? previous : first === 0 ? s : 1 - s));
  return { speakerOf: ordered, speakers: 2, confidence: round(confidence) };
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const spread = (values: readonly number[]): number => {
  const m = mean(values);
  return mean(values.map((v) => (v - m) ** 2));
};
const round = (value: number): number => Math.round(value * 100) / 100;
const clamp01 = (value: number): number => Math.max(0, Math.min(1, value));

import type { Utterance } from '../transcript/transcript.js';

/** The talk metrics of one utterance. Seconds to the millisecond. */
export interface UtteranceMetrics {
  readonly index: number;
  readonly speaker: string;
  readonly start: number;
  readonly end: number;
  readonly duration_s: number;
  readonly words: number;
  /** Words per minute of the utterance's own duration; null for an utterance shorter than 0.1 s. */
  readonly words_per_minute: number | null;
  /** Silence since the previous utterance (of anyone) ended; 0 when it started before that; null for the first. */
  readonly pause_before_s: number | null;
  /** Time it overlaps other speakers' utterances. */
  readonly overlap_s: number;
  /**
   * It started while another speaker was talking, who then stopped before it ended: the same
   * rule as the signal metrics' interruptions, on utterances.
   */
  readonly interruption: boolean;
}

const seconds = (value: number): number => Math.round(value * 1000) / 1000 || 0;

/** Metrics of every utterance, in the transcript's order (by start time). */
export function utteranceMetrics(utterances: readonly Utterance[]): UtteranceMetrics[] {
  const ordered = utterances.map((u, index) => ({ u, index })).sort((a, b) => a.u.start - b.u.start || a.index - b.index);
  let previousEnd: number | null = null;
  const metrics = new Map<number, UtteranceMetrics>();
  for (const { u, index } of ordered) {
    const others = utterances.filter((o) => o.speaker !== u.speaker);
    const overlap = others.reduce((sum, o) => sum + Math.max(0, Math.min(u.end, o.end) - Math.max(u.start, o.start)), 0);
    const interruption = others.some((o) => o.start < u.start && u.start < o.end && o.end < u.end);
    const duration = Math.max(0, u.end - u.start);
    metrics.set(index, {
      index,
      speaker: u.speaker,
      start: u.start,
      end: u.end,
      duration_s: seconds(duration),
      words: u.words.length,
      words_per_minute: duration >= 0.1 ? Math.round((u.words.length / duration) * 60 * 10) / 10 : null,
      pause_before_s: previousEnd === null ? null : seconds(Math.max(0, u.start - previousEnd)),
      overlap_s: seconds(overlap),
      interruption,
    });
    previousEnd = previousEnd === null ? u.end : Math.max(previousEnd, u.end);
  }
  return utterances.map((_, index) => metrics.get(index)!);
}

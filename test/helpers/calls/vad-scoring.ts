import { framesOf } from '../../../runtime/calls/analysis/vad.js';
import type { PlacedTurn } from './spoken-dialogue.js';

/** `[start_s, end_s]` speech segments per channel, as a detector found them. */
export type ChannelSegments = readonly (readonly (readonly [number, number])[])[];

export interface VadScore {
  /** Of the 20 ms frames called speech, the share that are speech. */
  readonly precision: number;
  /** Of the speech frames, the share called speech. */
  readonly recall: number;
  /** Turns at least half covered by speech on their channel. */
  readonly turnsFound: number;
  readonly turns: number;
  /** Pauses between consecutive turns in which the detector heard a silence of 100 ms or more on every channel. */
  readonly pausesFound: number;
  readonly pauses: number;
}

const FRAME_S = 0.02;

const mask = (segments: readonly (readonly [number, number])[], frames: number): Uint8Array => framesOf(segments, frames, FRAME_S * 1000);

/**
 * Frame precision/recall and turn detection against the synthesis' ground truth. Stereo: each
 * channel against its own speaker's turns. Mono (one channel): against every turn.
 */
export function scoreVad(turns: readonly PlacedTurn[], detected: ChannelSegments, duration: number): VadScore {
  const frames = Math.floor(duration / FRAME_S);
  const channelOf = (turn: PlacedTurn): number => (detected.length === 1 ? 0 : turn.speaker);
  const truth = detected.map((_, c) => mask(turns.filter((t) => channelOf(t) === c).map((t) => [t.start, t.end] as const), frames));
  const heard = detected.map((segments) => mask(segments, frames));
  let tp = 0;
  let fp = 0;
  let fn = 0;
  heard.forEach((h, c) => {
    for (let f = 0; f < frames; f++) {
      if (h[f] && truth[c]![f]) tp++;
      else if (h[f]) fp++;
      else if (truth[c]![f]) fn++;
    }
  });
  const turnsFound = turns.filter((turn) => {
    const h = heard[channelOf(turn)]!;
    const first = Math.ceil(turn.start / FRAME_S);
    const last = Math.min(frames, Math.floor(turn.end / FRAME_S));
    let covered = 0;
    for (let f = first; f < last; f++) covered += h[f]!;
    return covered >= (last - first) / 2;
  }).length;
  const ordered = [...turns].sort((a, b) => a.start - b.start);
  let pauses = 0;
  let pausesFound = 0;
  for (let i = 1; i < ordered.length; i++) {
    const from = ordered[i - 1]!.end;
    const to = ordered[i]!.start;
    if (to <= from) continue;
    pauses++;
    let run = 0;
    let best = 0;
    for (let f = Math.ceil(from / FRAME_S); f < Math.floor(to / FRAME_S); f++) {
      run = heard.every((h) => !h[f]) ? run + 1 : 0;
      best = Math.max(best, run);
    }
    if (best * FRAME_S >= 0.1) pausesFound++;
  }
  const ratio = (a: number, b: number): number => (b === 0 ? 1 : Math.round((a / b) * 1000) / 1000);
  return { precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn), turnsFound, turns: turns.length, pausesFound, pauses };
}

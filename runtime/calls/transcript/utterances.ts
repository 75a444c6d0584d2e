import type { Utterance, Word } from './transcript.js';

/** A pause longer than this ends an utterance even when the same speaker goes on. */
const UTTERANCE_GAP_S = 1.5;

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
const round2 = (value: number): number => Math.round(value * 100) / 100;

/** Groups words (any order) into utterances: time order, a new one at each change of speaker or long pause. */
export function groupUtterances(words: readonly Word[]): Utterance[] {
  const sorted = [...words].sort((a, b) => a.start - b.start || a.end - b.end);
  const groups: Word[][] = [];
  for (const word of sorted) {
    const current = groups[groups.length - 1];
    const last = current?.[current.length - 1];
    if (current && last && last.speaker === word.speaker && word.start - last.end <= UTTERANCE_GAP_S) current.push(word);
    else groups.push([word]);
  }
  return groups.map((group) => ({
    speaker: group[0]!.speaker,
    start: group[0]!.start,
    end: Math.max(...group.map((w) => w.end)),
    confidence: round2(group.reduce((sum, w) => sum + w.confidence, 0) / group.length),
    text: group.map((w) => w.text).join(' '),
    words: group,
  }));
}

/** A word in recording time, rounded as the rest of the analysis is (ms, two-decimal confidences). */
export function placeWord(text: string, start: number, end: number, confidence: number, speaker: string): Word {
  return { text, start: round3(start), end: round3(Math.max(start, end)), confidence: round2(confidence), speaker };
}

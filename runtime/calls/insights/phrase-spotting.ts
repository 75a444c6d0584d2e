import { distance } from 'fastest-levenshtein';
import type { Utterance } from '../transcript/transcript.js';

/**
 * Fuzzy spotting of phrases in a transcript, word by word. Speech engines misrecognise words
 * ("refund" heard as "refunds" or "re fund"), so a phrase is compared with every run of the
 * utterance's words of about its length by edit distance on the letters: once with the spaces
 * (a wrong word) and once without (a word split or joined), the better counting.
 */

/** One place a phrase was heard. `text` is what the transcript says there; times in seconds. */
export interface PhraseMatch {
  readonly phrase: string;
  readonly text: string;
  /** 0..1: 1 - edit distance / length of the longer of phrase and heard text. */
  readonly score: number;
  readonly start: number;
  readonly end: number;
  readonly speaker: string;
}

export interface SpottingOptions {
  /** A window scoring below this is not a match. */
  readonly minScore: number;
  /** Only this speaker's utterances (script adherence asks it of the operator); null: everyone's. */
  readonly speaker?: string | null;
  /**
   * The same utterances, word for word, to show `text` from: the redacted ones, so a match never
   * shows what redaction hid, while spotting still reads what was said.
   */
  readonly shown?: readonly Utterance[];
}

/** Lower case, letters, digits and apostrophes only: what the engines agree on. */
export function normalizeWord(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}']+/gu, '');
}

export function phraseWords(phrase: string): string[] {
  return phrase.split(/\s+/).map(normalizeWord).filter(Boolean);
}

/** 1 - Levenshtein distance / length of the longer string; 1 for two empty strings. */
export function similarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - distance(a, b) / longer;
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

interface Candidate {
  readonly utterance: number;
  readonly first: number;
  readonly last: number;
  readonly score: number;
}

/** Every window of one to two words more or fewer than the phrase, in every utterance, scored. */
function candidates(utterances: readonly Utterance[], phrase: string, speaker: string | null): Candidate[] {
  const wanted = phraseWords(phrase);
  if (wanted.length === 0) return [];
  const spaced = wanted.join(' ');
  const joined = wanted.join('');
  const found: Candidate[] = [];
  utterances.forEach((utterance, u) => {
    if (speaker !== null && utterance.speaker !== speaker) return;
    // Indexes into utterance.words of the words that keep some letter or digit.
    const kept = utterance.words.map((word, i) => ({ i, text: normalizeWord(word.text) })).filter((w) => w.text);
    for (let from = 0; from < kept.length; from++) {
      for (let size = Math.max(1, wanted.length - 1); size <= wanted.length + 1 && from + size <= kept.length; size++) {
        const window = kept.slice(from, from + size).map((w) => w.text);
        const score = Math.max(similarity(spaced, window.join(' ')), similarity(joined, window.join('')));
        found.push({ utterance: u, first: kept[from]!.i, last: kept[from + size - 1]!.i, score });
      }
    }
  });
  return found;
}

function toMatch(utterances: readonly Utterance[], phrase: string, candidate: Candidate): PhraseMatch {
  const utterance = utterances[candidate.utterance]!;
  const words = utterance.words.slice(candidate.first, candidate.last + 1);
  return {
    phrase,
    text: words.map((w) => w.text).join(' '),
    score: round(candidate.score),
    start: words[0]!.start,
    end: words[words.length - 1]!.end,
    speaker: utterance.speaker,
  };
}

const better = (a: Candidate, b: Candidate): number =>
  b.score - a.score || a.utterance - b.utterance || a.first - b.first || a.last - a.first - (b.last - b.first);

/** Every place the phrase was heard at `minScore` or better, the best of overlapping windows kept, in time order. */
export function spotPhrase(utterances: readonly Utterance[], phrase: string, options: SpottingOptions): PhraseMatch[] {
  const chosen: Candidate[] = [];
  for (const candidate of candidates(utterances, phrase, options.speaker ?? null).filter((c) => c.score >= options.minScore).sort(better)) {
    const overlaps = chosen.some((c) => c.utterance === candidate.utterance && c.first <= candidate.last && candidate.first <= c.last);
    if (!overlaps) chosen.push(candidate);
  }
  return chosen.map((c) => toMatch(options.shown ?? utterances, phrase, c)).sort((a, b) => a.start - b.start);
}

/** Where the phrase was heard best, however badly; null when the transcript has no words (of that speaker). */
export function bestMatch(utterances: readonly Utterance[], phrase: string, options: Omit<SpottingOptions, 'minScore'> = {}): PhraseMatch | null {
  const [best] = candidates(utterances, phrase, options.speaker ?? null).sort(better);
  return best ? toMatch(options.shown ?? utterances, phrase, best) : null;
}

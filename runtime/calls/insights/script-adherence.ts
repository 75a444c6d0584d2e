import type { Utterance } from '../transcript/transcript.js';
import { bestMatch } from './phrase-spotting.js';

/** One required phrase: found or not, with its best score anywhere and where that was. */
export interface ScriptPhraseResult {
  readonly phrase: string;
  readonly found: boolean;
  /** The best window's score even when it falls short, so a near miss shows as one; 0 with no words at all. */
  readonly score: number;
  readonly text: string | null;
  readonly start: number | null;
  readonly end: number | null;
  readonly speaker: string | null;
}

export interface ScriptAdherence {
  /** Whose utterances were searched; null: everyone's. */
  readonly speaker: string | null;
  readonly required: number;
  readonly found: number;
  /** found / required, 4 decimals. */
  readonly ratio: number;
  readonly phrases: readonly ScriptPhraseResult[];
}

/** Checks each required phrase against the transcript: found when its best window scores `minScore` or more. */
export function checkScript(
  utterances: readonly Utterance[],
  phrases: readonly string[],
  options: { readonly minScore: number; readonly speaker: string | null; readonly shown?: readonly Utterance[] },
): ScriptAdherence {
  const results = phrases.map((phrase): ScriptPhraseResult => {
    const best = bestMatch(utterances, phrase, options);
    if (!best) return { phrase, found: false, score: 0, text: null, start: null, end: null, speaker: null };
    return { phrase, found: best.score >= options.minScore, score: best.score, text: best.text, start: best.start, end: best.end, speaker: best.speaker };
  });
  const found = results.filter((r) => r.found).length;
  return {
    speaker: options.speaker,
    required: phrases.length,
    found,
    ratio: phrases.length ? Math.round((found / phrases.length) * 10_000) / 10_000 : 1,
    phrases: results,
  };
}

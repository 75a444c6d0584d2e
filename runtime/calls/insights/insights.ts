import type { CompletedTranscript } from '../transcript/transcript.js';
import { spotPhrase, type PhraseMatch } from './phrase-spotting.js';
import { redactUtterances, type PiiKind } from './pii-redaction.js';
import { checkScript, type ScriptAdherence } from './script-adherence.js';
import type { InsightSettings } from './settings.js';
import { utteranceMetrics, type UtteranceMetrics } from './utterance-metrics.js';

export interface KeywordMatch extends PhraseMatch {
  /** The name of the tenant's keyword list the phrase is on. */
  readonly list: string;
}

/** What the tenant's insight settings found in one call's transcript. */
export interface CallInsights {
  /** Every keyword list's phrases, where they were heard, in time order. */
  readonly keywords: readonly KeywordMatch[];
  /** null when the tenant has no required phrases. */
  readonly script: ScriptAdherence | null;
  /** `redacted`: the transcript's text and words went through redaction; `kinds`: what it found. */
  readonly pii: { readonly redacted: boolean; readonly kinds: readonly PiiKind[] };
  readonly utterances: readonly UtteranceMetrics[];
}

/**
 * Applies a tenant's insight settings to a completed transcript: the transcript as it is to be
 * stored (redacted when the tenant asks for it) and its insights. Spotting reads the words as
 * heard; what a match shows is taken from the stored (redacted) words.
 */
export function buildInsights(transcript: CompletedTranscript, settings: InsightSettings): { transcript: CompletedTranscript; insights: CallInsights } {
  const heard = transcript.utterances;
  const redaction = settings.redact_pii ? redactUtterances(heard) : null;
  const shown = redaction ? redaction.utterances : heard;
  const spotting = { minScore: settings.min_score, shown };
  const keywords = settings.keyword_lists
    .flatMap((list) => list.phrases.flatMap((phrase) => spotPhrase(heard, phrase, spotting).map((match): KeywordMatch => ({ list: list.name, ...match }))))
    .sort((a, b) => a.start - b.start || a.list.localeCompare(b.list) || a.phrase.localeCompare(b.phrase));
  const script = settings.script.phrases.length ? checkScript(heard, settings.script.phrases, { ...spotting, speaker: settings.script.speaker }) : null;
  return {
    transcript: { ...transcript, utterances: shown },
    insights: {
      keywords,
      script,
      pii: { redacted: redaction !== null, kinds: redaction?.kinds ?? [] },
      utterances: utteranceMetrics(shown),
    },
  };
}

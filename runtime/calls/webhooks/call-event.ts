import type { CallResource } from '../call-resource.js';
import type { CallInsights } from '../insights/insights.js';
import type { Transcript } from '../transcript/transcript.js';

/** What a webhook says of the transcript: its status and size; the words are fetched from the call. */
export type TranscriptSummary =
  | { readonly status: 'completed'; readonly engine: string; readonly model: string; readonly language: string; readonly speakers: readonly string[]; readonly utterances: number; readonly words: number }
  | { readonly status: 'unavailable'; readonly reason: string; readonly engine?: string; readonly language: string };

export interface InsightSummary {
  /** Keyword matches per list name. */
  readonly keywords: Readonly<Record<string, number>>;
  readonly script: { readonly required: number; readonly found: number; readonly ratio: number } | null;
  readonly pii: CallInsights['pii'];
}

/**
 * The `data` of a call.analysis.* event: the call resource with its result's metrics, and beside
 * them `transcript` and `insights` as summaries, so a delivery stays small whatever the call's
 * length. Absent (not null) when the result has none: a failed call, or one analysed before
 * transcripts existed.
 */
export interface CallEventData extends CallResource {
  readonly transcript?: TranscriptSummary;
  readonly insights?: InsightSummary | null;
}

export function summariseTranscript(transcript: Transcript): TranscriptSummary {
  if (transcript.status === 'unavailable') return transcript;
  return {
    status: 'completed',
    engine: transcript.engine,
    model: transcript.model,
    language: transcript.language,
    speakers: transcript.speakers.map((speaker) => speaker.id),
    utterances: transcript.utterances.length,
    words: transcript.utterances.reduce((sum, utterance) => sum + utterance.words.length, 0),
  };
}

export function summariseInsights(insights: CallInsights): InsightSummary {
  const keywords: Record<string, number> = {};
  for (const match of insights.keywords) keywords[match.list] = (keywords[match.list] ?? 0) + 1;
  const { script } = insights;
  return { keywords, script: script && { required: script.required, found: script.found, ratio: script.ratio }, pii: insights.pii };
}

export function callEventData(resource: CallResource): CallEventData {
  if (!resource.result) return resource;
  const { transcript, insights, ...metrics } = resource.result as CallResource['result'] & { transcript?: Transcript; insights?: CallInsights | null };
  return {
    ...resource,
    result: metrics,
    ...(transcript ? { transcript: summariseTranscript(transcript) } : {}),
    ...(insights !== undefined ? { insights: insights && summariseInsights(insights) } : {}),
  };
}

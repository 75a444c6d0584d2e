import { fieldList, type BodyOf } from '../../http/endpoint.js';
import type { callsEndpoints } from '../endpoints.js';
import type { FieldError } from '../errors.js';
import { fieldsOf, isObject, NOT_AN_OBJECT, type Validated } from '../validation.js';
import { phraseWords } from './phrase-spotting.js';

export interface KeywordList {
  readonly name: string;
  readonly phrases: readonly string[];
}

/** A tenant's insight settings, applied to every transcript of its calls when it completes. */
export interface InsightSettings {
  readonly keyword_lists: readonly KeywordList[];
  /** Required phrases; `speaker` restricts them to one speaker (`operator` on stereo calls), null to anyone. */
  readonly script: { readonly phrases: readonly string[]; readonly speaker: string | null };
  readonly redact_pii: boolean;
  /** 0.5..1: the fuzzy-match score a keyword or script phrase needs to count as heard. */
  readonly min_score: number;
}

export const DEFAULT_INSIGHT_SETTINGS: InsightSettings = Object.freeze({
  keyword_lists: [],
  script: { phrases: [], speaker: null },
  redact_pii: false,
  min_score: 0.8,
});

export const INSIGHT_LIMITS = Object.freeze({ lists: 20, phrasesPerList: 100, scriptPhrases: 50, phraseChars: 200, phraseWords: 12, nameChars: 64 });

const CONTROL = /[\u0000-\u001f\u007f]/;

function phraseList(value: unknown, field: string, max: number, errors: FieldError[]): string[] {
  if (!Array.isArray(value)) {
    errors.push({ field, code: 'invalid_type', message: `${field} must be an array of phrases` });
    return [];
  }
  if (value.length > max) errors.push({ field, code: 'too_many', message: `at most ${max} phrases` });
  value.forEach((phrase: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof phrase !== 'string') errors.push({ field: at, code: 'invalid_type', message: 'a phrase is a string' });
    else if (phrase.length > INSIGHT_LIMITS.phraseChars || CONTROL.test(phrase)) {
      errors.push({ field: at, code: 'invalid_phrase', message: `a phrase is at most ${INSIGHT_LIMITS.phraseChars} characters without control characters` });
    } else if (phraseWords(phrase).length === 0 || phraseWords(phrase).length > INSIGHT_LIMITS.phraseWords) {
      errors.push({ field: at, code: 'invalid_phrase', message: `a phrase has 1 to ${INSIGHT_LIMITS.phraseWords} words of letters or digits` });
    }
  });
  return value.filter((phrase): phrase is string => typeof phrase === 'string');
}

function keywordLists(value: unknown, errors: FieldError[]): KeywordList[] {
  if (!Array.isArray(value)) {
    errors.push({ field: 'keyword_lists', code: 'invalid_type', message: 'keyword_lists must be an array of {name, phrases}' });
    return [];
  }
  if (value.length > INSIGHT_LIMITS.lists) errors.push({ field: 'keyword_lists', code: 'too_many', message: `at most ${INSIGHT_LIMITS.lists} lists` });
  const names = new Set<string>();
  return value.map((item: unknown, i): KeywordList => {
    const at = `keyword_lists[${i}]`;
    if (!isObject(item)) {
      errors.push({ field: at, code: 'invalid_type', message: 'a keyword list is an object {name, phrases}' });
      return { name: '', phrases: [] };
    }
    const listErrors: FieldError[] = [];
    const fields = fieldsOf(item, ['name', 'phrases'], listErrors);
    errors.push(...listErrors.map((e) => ({ ...e, field: `${at}.${e.field}` })));
    const name = fields.name;
    if (typeof name !== 'string' || name.length < 1 || name.length > INSIGHT_LIMITS.nameChars || CONTROL.test(name)) {
      errors.push({ field: `${at}.name`, code: name === undefined ? 'required' : 'invalid_name', message: `name is 1-${INSIGHT_LIMITS.nameChars} characters without control characters` });
    } else if (names.has(name)) {
      errors.push({ field: `${at}.name`, code: 'duplicate_name', message: `another list is named "${name}"` });
    }
    if (typeof name === 'string') names.add(name);
    if (fields.phrases === undefined) errors.push({ field: `${at}.phrases`, code: 'required', message: 'phrases is required' });
    const phrases = fields.phrases === undefined ? [] : phraseList(fields.phrases, `${at}.phrases`, INSIGHT_LIMITS.phrasesPerList, errors);
    return { name: typeof name === 'string' ? name : '', phrases };
  });
}

/** A script object as given: `speaker` stays undefined when left out (a call's options keep the tenant's then). */
interface ScriptFields {
  readonly phrases?: readonly string[];
  readonly speaker?: string | null;
}

function script(value: unknown, errors: FieldError[]): ScriptFields {
  if (!isObject(value)) {
    errors.push({ field: 'script', code: 'invalid_type', message: 'script must be an object {phrases, speaker}' });
    return {};
  }
  const scriptErrors: FieldError[] = [];
  const fields = fieldsOf(value, ['phrases', 'speaker'], scriptErrors);
  errors.push(...scriptErrors.map((e) => ({ ...e, field: `script.${e.field}` })));
  const phrases = fields.phrases === undefined ? undefined : phraseList(fields.phrases, 'script.phrases', INSIGHT_LIMITS.scriptPhrases, errors);
  const speaker = fields.speaker;
  if (speaker !== undefined && speaker !== null && (typeof speaker !== 'string' || speaker.length < 1 || speaker.length > INSIGHT_LIMITS.nameChars || CONTROL.test(speaker))) {
    errors.push({ field: 'script.speaker', code: 'invalid_speaker', message: 'speaker is a speaker id such as operator, customer or speaker_1, or null for anyone' });
  }
  return { ...(phrases === undefined ? {} : { phrases }), ...(speaker === undefined ? {} : { speaker: speaker as string | null }) };
}

/** The insight fields an object gives, each validated; a field left out stays out. */
export interface InsightFields {
  readonly keyword_lists?: readonly KeywordList[];
  readonly script?: ScriptFields;
  readonly redact_pii?: boolean;
  readonly min_score?: number;
}

export const INSIGHT_FIELDS = fieldList<BodyOf<typeof callsEndpoints.putInsightSettings>>()(['keyword_lists', 'script', 'redact_pii', 'min_score']);

/**
 * Validates the insight fields of `fields` (the tenant's settings, or a call's options) with the
 * same rules and codes wherever they are given; `redact_pii: null` and `min_score: null` count as
 * left out.
 */
export function parseInsightFields(fields: Readonly<Record<string, unknown>>, errors: FieldError[]): InsightFields {
  const lists = fields.keyword_lists === undefined ? undefined : keywordLists(fields.keyword_lists, errors);
  const required = fields.script === undefined ? undefined : script(fields.script, errors);
  // null is taken as left out, as the settings always took it.
  const redact = fields.redact_pii ?? undefined;
  if (redact !== undefined && typeof redact !== 'boolean') errors.push({ field: 'redact_pii', code: 'invalid_type', message: 'redact_pii must be a boolean' });
  const minScore = fields.min_score ?? undefined;
  if (minScore !== undefined && (typeof minScore !== 'number' || !(minScore >= 0.5 && minScore <= 1))) {
    errors.push({ field: 'min_score', code: 'invalid_min_score', message: 'min_score must be a number from 0.5 to 1' });
  }
  return {
    ...(lists === undefined ? {} : { keyword_lists: lists }),
    ...(required === undefined ? {} : { script: required }),
    ...(redact === undefined ? {} : { redact_pii: redact as boolean }),
    ...(minScore === undefined ? {} : { min_score: minScore as number }),
  };
}

/** The body of PUT /v1/insights/settings: the whole settings; a field left out takes its default. */
export function parseInsightSettings(body: unknown): Validated<InsightSettings> {
  if (!isObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const given = parseInsightFields(fieldsOf(body, INSIGHT_FIELDS, errors), errors);
  if (errors.length) return { ok: false, errors };
  const defaults = DEFAULT_INSIGHT_SETTINGS;
  return {
    ok: true,
    value: {
      keyword_lists: given.keyword_lists ?? defaults.keyword_lists,
      script: { phrases: given.script?.phrases ?? defaults.script.phrases, speaker: given.script?.speaker ?? defaults.script.speaker },
      redact_pii: given.redact_pii ?? defaults.redact_pii,
      min_score: given.min_score ?? defaults.min_score,
    },
  };
}

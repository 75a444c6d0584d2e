import type { FieldError } from '../errors.js';
import { fieldsOf, isObject } from '../validation.js';
import { DEFAULT_INSIGHT_SETTINGS, INSIGHT_FIELDS, parseInsightFields, type InsightFields, type InsightSettings, type KeywordList } from './settings.js';

export const INSIGHT_OPTION_MODES = ['extend', 'replace'] as const;
export type InsightOptionMode = (typeof INSIGHT_OPTION_MODES)[number];

/**
 * The insight options one call was submitted with (`insight_options` of POST /v1/calls/analyze),
 * stored with the call and applied over the tenant's settings when its transcript completes.
 * `extend`: the call's keyword lists are added to the tenant's (a list of the same name takes the
 * tenant's list's place), its script phrases are added to the tenant's, and `script.speaker`,
 * `redact_pii` and `min_score`, where given, override the tenant's. `replace`: the tenant's
 * settings are not used; what the call leaves out takes the defaults.
 */
export interface CallInsightOptions extends InsightFields {
  readonly mode: InsightOptionMode;
}

export const INSIGHT_OPTIONS_FIELD = 'insight_options';

/** `insight_options` of a call submission; errors name their field under `insight_options.`. */
export function parseCallInsightOptions(value: unknown, errors: FieldError[]): CallInsightOptions | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    errors.push({ field: INSIGHT_OPTIONS_FIELD, code: 'invalid_type', message: `${INSIGHT_OPTIONS_FIELD} must be an object` });
    return null;
  }
  const own: FieldError[] = [];
  const fields = fieldsOf(value, ['mode', ...INSIGHT_FIELDS], own);
  const given = parseInsightFields(fields, own);
  const mode = fields.mode ?? 'extend';
  if (!(INSIGHT_OPTION_MODES as readonly unknown[]).includes(mode)) {
    own.push({ field: 'mode', code: 'invalid_mode', message: `mode must be one of ${INSIGHT_OPTION_MODES.join(', ')}` });
  }
  errors.push(...own.map((e) => ({ ...e, field: `${INSIGHT_OPTIONS_FIELD}.${e.field}` })));
  return { mode: mode as InsightOptionMode, ...given };
}

function extendLists(tenant: readonly KeywordList[], call: readonly KeywordList[]): KeywordList[] {
  const byName = new Map(call.map((list) => [list.name, list]));
  const kept = tenant.map((list) => byName.get(list.name) ?? list);
  const added = call.filter((list) => !tenant.some((own) => own.name === list.name));
  return [...kept, ...added];
}

/** The settings a call's transcript is given insights with: the tenant's, with the call's options applied. */
export function effectiveInsightSettings(tenant: InsightSettings, options: CallInsightOptions | null): InsightSettings {
  if (!options) return tenant;
  const extend = options.mode === 'extend';
  const base = extend ? tenant : DEFAULT_INSIGHT_SETTINGS;
  const callPhrases = options.script?.phrases ?? [];
  return {
    keyword_lists: extend ? extendLists(tenant.keyword_lists, options.keyword_lists ?? []) : (options.keyword_lists ?? []),
    script: {
      phrases: extend ? [...new Set([...tenant.script.phrases, ...callPhrases])] : callPhrases,
      speaker: options.script?.speaker === undefined ? base.script.speaker : options.script.speaker,
    },
    redact_pii: options.redact_pii ?? base.redact_pii,
    min_score: options.min_score ?? base.min_score,
  };
}

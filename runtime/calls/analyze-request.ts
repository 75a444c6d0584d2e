import type { AddressPolicy } from '../outbound/address-policy.js';
import { fieldList, type BodyOf } from '../http/endpoint.js';
import type { callsEndpoints } from './endpoints.js';
import type { FieldError } from './errors.js';
import { INSIGHT_OPTIONS_FIELD, parseCallInsightOptions, type CallInsightOptions } from './insights/call-options.js';
import { canonicalLanguage, fieldsOf, isObject, NOT_AN_OBJECT, operatorId, outboundUrl, requiredString, type Validated } from './validation.js';

/** The body of POST /v1/calls/analyze. */
export interface AnalyzeRequest {
  readonly audio_url: string;
  readonly language: string;
  readonly operator_id: string;
  /** null: the tenant's insight settings apply as they are. */
  readonly insight_options: CallInsightOptions | null;
}

const ANALYZE_FIELDS = fieldList<BodyOf<typeof callsEndpoints.analyze>>()(['audio_url', 'language', 'operator_id', INSIGHT_OPTIONS_FIELD]);

export function parseAnalyzeRequest(body: unknown, policy: AddressPolicy): Validated<AnalyzeRequest> {
  if (!isObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const fields = fieldsOf(body, ANALYZE_FIELDS, errors);
  const audioUrl = outboundUrl(fields, 'audio_url', policy, errors);
  const languageText = requiredString(fields, 'language', errors);
  const language = languageText === null ? null : canonicalLanguage(languageText);
  if (languageText !== null && language === null) {
    errors.push({ field: 'language', code: 'invalid_language', message: 'language must be a BCP-47 tag such as en, en-US or pt-BR' });
  }
  const operator = operatorId(fields, errors);
  const insightOptions = parseCallInsightOptions(fields[INSIGHT_OPTIONS_FIELD], errors);
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { audio_url: audioUrl!, language: language!, operator_id: operator!, insight_options: insightOptions } };
}

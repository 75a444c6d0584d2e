import { fieldList, type BodyOf } from '../../http/endpoint.js';
import type { callsEndpoints } from '../endpoints.js';
import type { FieldError } from '../errors.js';
import type { AddressPolicy } from '../../outbound/address-policy.js';
import { canonicalLanguage, fieldsOf, isObject, NOT_AN_OBJECT, outboundUrl, type Validated } from '../validation.js';
import { ENGINE_KINDS, type EngineKind } from './speech-settings.js';

/** A tenant's own OpenAI-compatible endpoint; `apiKey` absent keeps the key stored before. */
export interface TenantOpenAiInput {
  readonly baseUrl: string;
  readonly model: string;
  readonly languages: readonly string[] | null;
  readonly apiKey: string | null;
}

/**
 * The body of PUT /v1/speech/settings. `engines`: the engines the tenant's calls use, in order
 * (null: the deployment's); `openai`: the tenant's own endpoint, used where `openai` is listed.
 */
export interface TenantSpeechInput {
  readonly engines: readonly EngineKind[] | null;
  readonly openai: TenantOpenAiInput | null;
}

const MAX_MODEL = 128;
const MAX_KEY = 512;
const MAX_LANGUAGES = 100;

function openAiInput(value: unknown, policy: AddressPolicy, errors: FieldError[]): TenantOpenAiInput | null {
  if (value === null) return null;
  if (!isObject(value)) {
    errors.push({ field: 'openai', code: 'invalid_type', message: 'openai must be an object {base_url, model, api_key, languages} or null' });
    return null;
  }
  const inner: FieldError[] = [];
  const fields = fieldsOf(value, ['base_url', 'model', 'api_key', 'languages'], inner);
  const baseUrl = outboundUrl(fields, 'base_url', policy, inner);
  const model = fields.model;
  if (typeof model !== 'string' || model.length < 1 || model.length > MAX_MODEL || /[\s\u0000-\u001f]/.test(model)) {
    inner.push({ field: 'model', code: model === undefined ? 'required' : 'invalid_model', message: `model is 1-${MAX_MODEL} characters without whitespace` });
  }
  const apiKey = fields.api_key ?? null;
  if (apiKey !== null && (typeof apiKey !== 'string' || apiKey.length < 1 || apiKey.length > MAX_KEY || /[\s\u0000-\u001f]/.test(apiKey))) {
    inner.push({ field: 'api_key', code: 'invalid_api_key', message: `api_key is 1-${MAX_KEY} characters without whitespace` });
  }
  let languages: string[] | null = null;
  if (fields.languages !== undefined && fields.languages !== null) {
    if (!Array.isArray(fields.languages) || fields.languages.length === 0 || fields.languages.length > MAX_LANGUAGES) {
      inner.push({ field: 'languages', code: 'invalid_type', message: `languages is an array of 1-${MAX_LANGUAGES} BCP-47 tags, or null for Whisper's` });
    } else {
      languages = fields.languages.map((tag: unknown, i) => {
        const canonical = typeof tag === 'string' ? canonicalLanguage(tag) : null;
        if (!canonical) inner.push({ field: `languages[${i}]`, code: 'invalid_language', message: 'not a BCP-47 language tag' });
        return canonical ?? '';
      });
    }
  }
  errors.push(...inner.map((e) => ({ ...e, field: `openai.${e.field}` })));
  return { baseUrl: baseUrl ?? '', model: typeof model === 'string' ? model : '', languages, apiKey: typeof apiKey === 'string' ? apiKey : null };
}

const SPEECH_FIELDS = fieldList<BodyOf<typeof callsEndpoints.putSpeechSettings>>()(['engines', 'openai']);

export function parseTenantSpeechInput(body: unknown, policy: AddressPolicy): Validated<TenantSpeechInput> {
  if (!isObject(body)) return { ok: false, errors: [NOT_AN_OBJECT] };
  const errors: FieldError[] = [];
  const fields = fieldsOf(body, SPEECH_FIELDS, errors);
  let engines: EngineKind[] | null = null;
  if (fields.engines !== undefined && fields.engines !== null) {
    if (!Array.isArray(fields.engines) || fields.engines.length > ENGINE_KINDS.length) {
      errors.push({ field: 'engines', code: 'invalid_type', message: `engines is an array of ${ENGINE_KINDS.join(', ')} in order of preference, or null for the deployment's` });
    } else {
      engines = [];
      fields.engines.forEach((kind: unknown, i) => {
        if (typeof kind !== 'string' || !(ENGINE_KINDS as readonly string[]).includes(kind)) errors.push({ field: `engines[${i}]`, code: 'unknown_engine', message: `one of ${ENGINE_KINDS.join(', ')}` });
        else if (engines!.includes(kind as EngineKind)) errors.push({ field: `engines[${i}]`, code: 'duplicate_engine', message: `${kind} is listed twice` });
        else engines!.push(kind as EngineKind);
      });
    }
  }
  const openai = fields.openai === undefined ? null : openAiInput(fields.openai, policy, errors);
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { engines, openai } };
}

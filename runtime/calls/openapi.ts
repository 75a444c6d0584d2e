import { ALL_SCOPES } from './tokens.js';
import { CHECK_IN_SOURCES } from './validation.js';
import { EVENT_TYPES } from './webhooks/events.js';
import { INSIGHT_OPTION_MODES } from './insights/call-options.js';
import { INSIGHT_LIMITS } from './insights/settings.js';
import { PII_KINDS } from './insights/pii-redaction.js';
import { ENGINE_KINDS } from './transcript/speech-settings.js';

type Schema = Readonly<Record<string, unknown>>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema): Schema => ({ 'application/json': { schema } });
const problem = (description: string): Schema => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
const nullable = (type: string): Schema => ({ type: [type, 'null'] });
const list = (item: Schema): Schema => ({ type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: item } } });

/** Answers every authenticated operation may give besides its own. */
const COMMON_ERRORS: Schema = {
  '401': problem('missing, invalid, expired or revoked credential'),
  '403': problem('the credential lacks the scope the operation needs'),
  '429': problem('the tenant made more requests this minute than CALLS_RATE_LIMIT_PER_MINUTE allows'),
};

function operation(summary: string, scope: string | null, responses: Schema, extra: Schema = {}): Schema {
  return {
    summary,
    ...(scope ? { description: `Scope: \`${scope}\`.` } : {}),
    ...extra,
    responses: { ...responses, ...(scope ? COMMON_ERRORS : {}) },
  };
}

const body = (schema: Schema): Schema => ({ requestBody: { required: true, content: json(schema) } });
const idParameter = (prefix: string): Schema => ({ parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: `^${prefix}_[0-9a-f]{32}$` } }] });
const ok = (description: string, schema: Schema): Schema => ({ description, content: json(schema) });

const phrase = { type: 'string', minLength: 1, maxLength: INSIGHT_LIMITS.phraseChars };
const matchFields = {
  phrase: { type: 'string' },
  text: { type: 'string', description: 'what the transcript says there (redacted when the transcript is)' },
  score: { type: 'number', minimum: 0, maximum: 1, description: '1 - edit distance / length of the longer of phrase and heard text' },
  start: { type: 'number' },
  end: { type: 'number' },
  speaker: { type: 'string' },
};

/** The insight fields, with their defaults where they describe the tenant's whole settings. */
function insightProperties(withDefaults: boolean): Schema {
  const byDefault = (value: unknown): Schema => (withDefaults ? { default: value } : {});
  return {
    keyword_lists: { type: 'array', maxItems: INSIGHT_LIMITS.lists, items: ref('KeywordList'), ...byDefault([]) },
    script: {
      type: 'object',
      additionalProperties: false,
      properties: {
        phrases: { type: 'array', maxItems: INSIGHT_LIMITS.scriptPhrases, items: phrase, ...byDefault([]) },
        speaker: { type: ['string', 'null'], description: 'only this speaker’s utterances count (operator, customer, speaker_1, …); null: anyone', ...byDefault(null) },
      },
    },
    redact_pii: { type: 'boolean', description: `redact ${PII_KINDS.join(', ')} from the transcript text and words`, ...byDefault(false) },
    min_score: { type: 'number', minimum: 0.5, maximum: 1, ...byDefault(0.8) },
  };
}

const SCHEMAS: Readonly<Record<string, Schema>> = {
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details; `code` is stable.',
    required: ['type', 'title', 'status', 'code', 'detail', 'request_id'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      code: { type: 'string' },
      detail: { type: 'string' },
      request_id: { type: 'string' },
      errors: { type: 'array', items: { type: 'object', required: ['field', 'code', 'message'], properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } } },
    },
  },
  AnalyzeRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['audio_url', 'language', 'operator_id'],
    properties: {
      audio_url: { type: 'string', format: 'uri', maxLength: 2048 },
      language: { type: 'string', description: 'BCP-47 tag, stored in canonical form' },
      operator_id: { type: 'string', minLength: 1, maxLength: 128 },
      insight_options: { oneOf: [{ type: 'null' }, ref('CallInsightOptions')], description: 'keyword lists, script phrases, redaction and match score for this call, over or instead of the tenant’s settings' },
    },
  },
  Call: {
    type: 'object',
    required: ['id', 'object', 'status', 'audio_url', 'language', 'operator_id', 'insight_options', 'created_at', 'started_at', 'completed_at', 'attempts', 'error', 'result'],
    properties: {
      id: { type: 'string', pattern: '^call_[0-9a-f]{32}$' },
      object: { const: 'call_analysis' },
      status: { enum: ['queued', 'processing', 'completed', 'failed'] },
      audio_url: { type: 'string' },
      language: { type: 'string' },
      operator_id: { type: 'string' },
      insight_options: { oneOf: [{ type: 'null' }, ref('CallInsightOptions')], description: 'as submitted; null: the tenant’s settings apply as they are' },
      created_at: { type: 'string', format: 'date-time' },
      started_at: nullable('string'),
      completed_at: nullable('string'),
      attempts: { type: 'integer' },
      error: { oneOf: [{ type: 'null' }, { type: 'object', required: ['code', 'message', 'status'], properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } } }] },
      result: {
        oneOf: [{ type: 'null' }, { type: 'object', properties: { transcript: ref('Transcript'), insights: { oneOf: [{ type: 'null' }, ref('CallInsights')] } } }],
        description: 'The signal metrics (runtime/calls/analysis/METRICS.md); with a transcript, `transcript` and `insights` (null when the transcript is unavailable).',
      },
    },
  },
  KeywordList: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'phrases'],
    properties: { name: { type: 'string', minLength: 1, maxLength: INSIGHT_LIMITS.nameChars }, phrases: { type: 'array', maxItems: INSIGHT_LIMITS.phrasesPerList, items: phrase } },
  },
  InsightSettingsInput: {
    type: 'object',
    additionalProperties: false,
    description: 'The whole settings; a field left out takes its default.',
    properties: insightProperties(true),
  },
  CallInsightOptions: {
    type: 'object',
    additionalProperties: false,
    description:
      'A call’s own insight settings, applied over the tenant’s when its transcript completes. `extend`: its keyword lists are added to the tenant’s (a list of the same name takes the tenant’s list’s place), its script phrases are added to the tenant’s, and `script.speaker`, `redact_pii` and `min_score`, where given, override the tenant’s. `replace`: the tenant’s settings are not used; what is left out takes the defaults. Same limits and error codes as the settings, fields named under `insight_options.`.',
    properties: { mode: { enum: [...INSIGHT_OPTION_MODES], default: 'extend' }, ...insightProperties(false) },
  },
  InsightSettings: {
    allOf: [
      ref('InsightSettingsInput'),
      { type: 'object', required: ['object', 'updated_at'], properties: { object: { const: 'insight_settings' }, updated_at: { type: ['string', 'null'], format: 'date-time' } } },
    ],
  },
  CallInsights: {
    type: 'object',
    required: ['keywords', 'script', 'pii', 'utterances'],
    properties: {
      keywords: { type: 'array', items: { type: 'object', properties: { list: { type: 'string' }, ...matchFields } } },
      script: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            properties: {
              speaker: nullable('string'),
              required: { type: 'integer' },
              found: { type: 'integer' },
              ratio: { type: 'number' },
              phrases: { type: 'array', items: { type: 'object', properties: { found: { type: 'boolean' }, ...matchFields } } },
            },
          },
        ],
      },
      pii: { type: 'object', properties: { redacted: { type: 'boolean' }, kinds: { type: 'array', items: { enum: PII_KINDS } } } },
      utterances: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            index: { type: 'integer' },
            speaker: { type: 'string' },
            start: { type: 'number' },
            end: { type: 'number' },
            duration_s: { type: 'number' },
            words: { type: 'integer' },
            words_per_minute: nullable('number'),
            pause_before_s: nullable('number'),
            overlap_s: { type: 'number' },
            interruption: { type: 'boolean' },
          },
        },
      },
    },
  },
  WebhookRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'events'],
    properties: { url: { type: 'string', format: 'uri' }, events: { type: 'array', minItems: 1, items: { enum: EVENT_TYPES } } },
  },
  WebhookEndpoint: {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^we_[0-9a-f]{32}$' },
      object: { const: 'webhook_endpoint' },
      url: { type: 'string' },
      events: { type: 'array', items: { enum: EVENT_TYPES } },
      enabled: { type: 'boolean' },
      disabled_reason: nullable('string'),
      created_at: { type: 'string', format: 'date-time' },
      previous_secret_expires_at: nullable('string'),
      secret: { type: 'string', description: 'whsec_…, on create and rotation only' },
    },
  },
  WebhookDelivery: { type: 'object', properties: { id: { type: 'string' }, object: { const: 'webhook_delivery' }, event_type: { type: 'string' }, status: { type: 'string' }, attempts: { type: 'integer' } } },
  CheckInRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['operator_id'],
    properties: { operator_id: { type: 'string', minLength: 1, maxLength: 128 }, source: { enum: CHECK_IN_SOURCES, default: 'api' }, site_id: nullable('string'), occurred_at: { type: 'string', format: 'date-time' } },
  },
  CheckIn: {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^chk_[0-9a-f]{32}$' },
      object: { const: 'attendance_check_in' },
      operator_id: { type: 'string' },
      source: { enum: CHECK_IN_SOURCES },
      site_id: nullable('string'),
      occurred_at: { type: 'string', format: 'date-time' },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  Word: {
    type: 'object',
    required: ['text', 'start', 'end', 'confidence', 'speaker'],
    properties: { text: { type: 'string' }, start: { type: 'number', description: 'seconds from the start of the recording' }, end: { type: 'number' }, confidence: { type: 'number', minimum: 0, maximum: 1 }, speaker: { type: 'string' } },
  },
  Transcript: {
    oneOf: [
      {
        type: 'object',
        required: ['status', 'engine', 'model', 'language', 'separation', 'speakers', 'utterances'],
        properties: {
          status: { const: 'completed' },
          engine: { enum: ['openai-compatible', 'sherpa-onnx', 'pocketsphinx'] },
          model: { type: 'string' },
          language: { type: 'string' },
          quality: { type: 'string', description: 'the engine’s measured accuracy, where it was measured' },
          separation: { type: 'object', properties: { method: { enum: ['channel', 'pitch'] }, confidence: { type: 'number', minimum: 0, maximum: 1, description: 'mono calls below 0.5 keep one speaker' } } },
          speakers: { type: 'array', items: { type: 'object', required: ['id', 'label'], properties: { id: { type: 'string', description: 'operator, customer (stereo) or speaker_1, speaker_2 (mono)' }, label: { type: 'string' }, channel: { type: 'integer' }, confidence: { type: 'number' } } } },
          utterances: {
            type: 'array',
            items: {
              type: 'object',
              required: ['speaker', 'start', 'end', 'confidence', 'text', 'words'],
              properties: { speaker: { type: 'string' }, start: { type: 'number' }, end: { type: 'number' }, confidence: { type: 'number' }, text: { type: 'string' }, words: { type: 'array', items: ref('Word') } },
            },
          },
        },
      },
      {
        type: 'object',
        required: ['status', 'reason', 'language'],
        properties: { status: { const: 'unavailable' }, reason: { type: 'string', description: 'no engine configured, none serving the language, or the engine failed' }, engine: { type: 'string' }, language: { type: 'string' } },
      },
    ],
  },
  CallEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { enum: ['call.analysis.completed', 'call.analysis.failed'] },
      timestamp: { type: 'string', format: 'date-time' },
      data: {
        allOf: [
          ref('Call'),
          {
            type: 'object',
            description: '`result` holds the metrics only; the transcript and insights are summarised here and read in full from GET /v1/calls/{id}. Absent on a failed call.',
            properties: {
              transcript: {
                oneOf: [
                  { type: 'object', properties: { status: { const: 'completed' }, engine: { type: 'string' }, model: { type: 'string' }, language: { type: 'string' }, speakers: { type: 'array', items: { type: 'string' } }, utterances: { type: 'integer' }, words: { type: 'integer' } } },
                  { type: 'object', properties: { status: { const: 'unavailable' }, reason: { type: 'string' }, engine: { type: 'string' }, language: { type: 'string' } } },
                ],
              },
              insights: {
                oneOf: [
                  { type: 'null' },
                  {
                    type: 'object',
                    properties: {
                      keywords: { type: 'object', additionalProperties: { type: 'integer' }, description: 'matches per keyword list' },
                      script: { oneOf: [{ type: 'null' }, { type: 'object', properties: { required: { type: 'integer' }, found: { type: 'integer' }, ratio: { type: 'number' } } }] },
                      pii: { type: 'object', properties: { redacted: { type: 'boolean' }, kinds: { type: 'array', items: { enum: PII_KINDS } } } },
                    },
                  },
                ],
              },
            },
          },
        ],
      },
    },
  },
  SpeechSettingsInput: {
    type: 'object',
    additionalProperties: false,
    description: 'The whole settings; a field left out is null.',
    properties: {
      engines: { type: ['array', 'null'], items: { enum: ENGINE_KINDS }, uniqueItems: true, description: 'engines in order of preference, each one the deployment offers (openai also with your own endpoint); null: the deployment’s order' },
      openai: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            additionalProperties: false,
            required: ['base_url', 'model'],
            properties: {
              base_url: { type: 'string', format: 'uri', description: 'e.g. https://api.openai.com/v1; /audio/transcriptions is appended; the SSRF guard applies' },
              model: { type: 'string', minLength: 1, maxLength: 128 },
              api_key: { type: 'string', description: 'stored sealed, never returned; left out: the stored key is kept' },
              languages: { type: ['array', 'null'], items: { type: 'string' }, description: 'BCP-47 tags the endpoint serves; null: Whisper’s 57' },
            },
          },
        ],
      },
    },
  },
  SpeechSettings: {
    type: 'object',
    required: ['object', 'engines', 'openai', 'available_engines', 'updated_at'],
    properties: {
      object: { const: 'speech_settings' },
      engines: { type: ['array', 'null'], items: { enum: ENGINE_KINDS } },
      openai: { oneOf: [{ type: 'null' }, { type: 'object', properties: { base_url: { type: 'string' }, model: { type: 'string' }, languages: { type: ['array', 'null'], items: { type: 'string' } }, api_key_set: { type: 'boolean' } } }] },
      available_engines: { type: 'array', items: { enum: ENGINE_KINDS } },
      updated_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  CallPage: {
    type: 'object',
    required: ['object', 'data', 'has_more', 'next_cursor'],
    properties: { object: { const: 'list' }, data: { type: 'array', items: ref('Call') }, has_more: { type: 'boolean' }, next_cursor: nullable('string') },
  },
};

/**
 * The OpenAPI 3.1 document of the call-analysis API, served at `GET /v1/openapi.json` on
 * CALLS_PORT without a credential. Built from the same constants the validation uses (scopes,
 * event types, limits), so the two cannot drift apart on those.
 */
export function callsOpenApiDocument(): Schema {
  return {
    openapi: '3.1.0',
    info: { title: 'Gantry call-analysis API', version: '1' },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`gantry calls key create`) or an access token from POST /v1/oauth/token.' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/v1/oauth/token', scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, s])) } } },
      },
      schemas: SCHEMAS,
    },
    webhooks: {
      'call.analysis.completed': {
        post: { summary: 'A call was analysed (Standard Webhooks signature headers)', requestBody: { required: true, content: json(ref('CallEvent')) }, responses: { '200': { description: 'any 2xx acknowledges' } } },
      },
      'call.analysis.failed': {
        post: { summary: 'A call’s analysis failed', requestBody: { required: true, content: json(ref('CallEvent')) }, responses: { '200': { description: 'any 2xx acknowledges' } } },
      },
    },
    paths: {
      '/v1/oauth/token': {
        post: {
          summary: 'OAuth 2.0 client credentials: client_id = the key’s id, client_secret = the key',
          security: [],
          requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { grant_type: { const: 'client_credentials' }, scope: { type: 'string' }, client_id: { type: 'string' }, client_secret: { type: 'string' } } } } } },
          responses: { '200': ok('an access token', { type: 'object', properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { type: 'integer' }, scope: { type: 'string' } } }), '400': problem('bad grant or scope'), '401': problem('unknown client or wrong secret') },
        },
      },
      '/v1/calls/analyze': {
        post: operation('Submit a recording for analysis', 'calls:write', { '202': ok('the call, queued', ref('Call')), '400': problem('invalid fields'), '409': problem('Idempotency-Key in use'), '422': problem('Idempotency-Key reused with another body') }, {
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          ...body(ref('AnalyzeRequest')),
        }),
      },
      '/v1/calls': {
        get: operation('List calls, newest first', 'calls:read', { '200': ok('a page', ref('CallPage')), '400': problem('invalid parameters') }, {
          parameters: ['limit', 'cursor', 'status', 'operator_id'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
        }),
      },
      '/v1/calls/{id}': { get: operation('One call', 'calls:read', { '200': ok('the call', ref('Call')), '404': problem('no such call for this tenant') }, idParameter('call')) },
      '/v1/insights/settings': {
        get: operation('The tenant’s insight settings (the defaults until set)', 'calls:read', { '200': ok('the settings', ref('InsightSettings')) }),
        put: operation('Replace the tenant’s insight settings; they apply to transcripts completed from now on', 'calls:write', { '200': ok('the settings', ref('InsightSettings')), '400': problem('invalid fields'), '415': problem('not JSON') }, body(ref('InsightSettingsInput'))),
      },
      '/v1/speech/settings': {
        get: operation('The tenant’s speech-engine settings', 'calls:read', { '200': ok('the settings', ref('SpeechSettings')) }),
        put: operation('Replace the tenant’s speech-engine settings; they apply to calls analysed from now on', 'calls:write', { '200': ok('the settings', ref('SpeechSettings')), '400': problem('invalid fields, or an engine this deployment does not offer'), '415': problem('not JSON') }, body(ref('SpeechSettingsInput'))),
      },
      '/v1/webhooks': {
        get: operation('Webhook endpoints', 'webhooks:manage', { '200': ok('the endpoints', list(ref('WebhookEndpoint'))) }),
        post: operation('Register an endpoint (the secret is returned here only)', 'webhooks:manage', { '201': ok('the endpoint with its secret', ref('WebhookEndpoint')), '400': problem('invalid fields') }, body(ref('WebhookRequest'))),
      },
      '/v1/webhooks/{id}': {
        get: operation('One endpoint', 'webhooks:manage', { '200': ok('the endpoint', ref('WebhookEndpoint')), '404': problem('no such endpoint') }, idParameter('we')),
        delete: operation('Delete an endpoint', 'webhooks:manage', { '204': { description: 'deleted' }, '404': problem('no such endpoint') }, idParameter('we')),
      },
      '/v1/webhooks/{id}/rotate-secret': {
        post: operation('A new secret; the old one co-signs for grace_seconds', 'webhooks:manage', { '200': ok('the endpoint with its new secret', ref('WebhookEndpoint')), '404': problem('no such endpoint') }, idParameter('we')),
      },
      '/v1/webhooks/{id}/enable': { post: operation('Re-enable a disabled endpoint', 'webhooks:manage', { '200': ok('the endpoint', ref('WebhookEndpoint')), '404': problem('no such endpoint') }, idParameter('we')) },
      '/v1/webhooks/{id}/deliveries': { get: operation('The latest 100 deliveries with their attempts', 'webhooks:manage', { '200': ok('deliveries', list(ref('WebhookDelivery'))), '404': problem('no such endpoint') }, idParameter('we')) },
      '/v1/attendance/check-ins': {
        post: operation('An operator checks in', 'attendance:write', { '201': ok('the check-in', ref('CheckIn')), '400': problem('invalid fields'), '403': problem('the operator is inactive, or the scope is missing') }, body(ref('CheckInRequest'))),
      },
      '/v1/attendance/operators/{operatorId}': {
        put: operation('Mark an operator active or inactive', 'attendance:write', { '200': ok('the operator', { type: 'object', properties: { operator_id: { type: 'string' }, active: { type: 'boolean' } } }) }, {
          parameters: [{ name: 'operatorId', in: 'path', required: true, schema: { type: 'string' } }],
          ...body({ type: 'object', required: ['active'], properties: { active: { type: 'boolean' } } }),
        }),
      },
    },
  };
}

import { PII_KINDS } from './insights/pii-redaction.js';
import { INSIGHT_OPTION_MODES } from './insights/call-options.js';
import { INSIGHT_LIMITS } from './insights/settings.js';
import { ENGINE_KINDS } from './transcript/speech-settings.js';
import { CHECK_IN_SOURCES } from './validation.js';
import { EVENT_TYPES } from './webhooks/events.js';
import { schemaRef as ref, type OpenApiObject } from '../http/endpoint.js';

/**
 * The call-analysis API's component schemas that no one endpoint owns: what its answers are made of, and the
 * call options a call returns as submitted. Each request body is declared with its endpoint (endpoints.ts).
 */

const nullable = (type: string): OpenApiObject => ({ type: [type, 'null'] });

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
export function insightProperties(withDefaults: boolean): Readonly<Record<string, OpenApiObject>> {
  const byDefault = (value: unknown): OpenApiObject => (withDefaults ? { default: value } : {});
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

/** The component schemas the answers (and the call options, which a call returns as submitted) refer to. */
export const CALLS_SCHEMAS: Readonly<Record<string, OpenApiObject>> = {
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

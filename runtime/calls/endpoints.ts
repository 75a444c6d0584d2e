import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { declareEndpoint, jsonSchema, schemaRef as ref, type EndpointDeclaration, type OpenApiObject } from '../http/endpoint.js';
import type { CallInsightOptions } from './insights/call-options.js';
import type { KeywordList } from './insights/settings.js';
import { insightProperties } from './schemas.js';
import type { Scope } from './tokens.js';
import { ENGINE_KINDS, type EngineKind } from './transcript/speech-settings.js';
import { CHECK_IN_SOURCES } from './validation.js';
import { EVENT_TYPES, type EventType } from './webhooks/events.js';

/**
 * Every endpoint of the call-analysis API, declared once: the OpenAPI document is made from these
 * (openapi.ts), the body readers take their field lists and types from them, and a test matches them
 * against the routes the app serves.
 */

const json = (schema: OpenApiObject): OpenApiObject => ({ 'application/json': { schema } });
const problem = (description: string): OpenApiObject => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
const ok = (description: string, schema: OpenApiObject): OpenApiObject => ({ description, content: json(schema) });
const list = (item: OpenApiObject): OpenApiObject => ({ type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: item } } });
/** A JSON Schema stated as data, typed as the value its reader returns. */
const typed = <T>(schema: OpenApiObject): TSchema & { static: T } => Type.Unsafe<T>(schema);

/** Answers every authenticated operation may give besides its own. */
const COMMON_ERRORS: OpenApiObject = {
  '401': problem('missing, invalid, expired or revoked credential'),
  '403': problem('the credential lacks the scope the operation needs'),
  '429': problem('the tenant made more requests this minute than CALLS_RATE_LIMIT_PER_MINUTE allows'),
};

/** An endpoint behind a Bearer credential with `scope`: its description names the scope, its answers add the common errors. */
function scoped<const E extends Omit<EndpointDeclaration, 'description'>>(scope: Scope, declaration: E): E & { readonly description: string } {
  return { ...declaration, description: `Scope: \`${scope}\`.`, responses: { ...declaration.responses, ...COMMON_ERRORS } };
}

const idParams = (prefix: string) => Type.Object({ id: Type.String({ pattern: `^${prefix}_[0-9a-f]{32}$` }) });

export const AnalyzeRequestBody = Type.Object(
  {
    audio_url: Type.String({ format: 'uri', maxLength: 2048 }),
    language: Type.String({ description: 'BCP-47 tag, stored in canonical form' }),
    operator_id: Type.String({ minLength: 1, maxLength: 128 }),
    insight_options: Type.Optional(
      typed<CallInsightOptions | null>({
        oneOf: [{ type: 'null' }, ref('CallInsightOptions')],
        description: 'keyword lists, script phrases, redaction and match score for this call, over or instead of the tenant’s settings',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListCallsQuery = Type.Object({
  limit: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  operator_id: Type.Optional(Type.String()),
});

const insight = insightProperties(true);
export const InsightSettingsBody = Type.Object(
  {
    keyword_lists: Type.Optional(typed<readonly KeywordList[]>(insight.keyword_lists!)),
    script: Type.Optional(typed<{ readonly phrases?: readonly string[]; readonly speaker?: string | null }>(insight.script!)),
    redact_pii: Type.Optional(typed<boolean | null>(insight.redact_pii!)),
    min_score: Type.Optional(typed<number | null>(insight.min_score!)),
  },
  { additionalProperties: false, description: 'The whole settings; a field left out takes its default.' },
);

const OpenAiEndpointBody = Type.Object(
  {
    base_url: Type.String({ format: 'uri', description: 'e.g. https://api.openai.com/v1; /audio/transcriptions is appended; the SSRF guard applies' }),
    model: Type.String({ minLength: 1, maxLength: 128 }),
    api_key: Type.Optional(Type.String({ description: 'stored sealed, never returned; left out: the stored key is kept' })),
    languages: Type.Optional(typed<readonly string[] | null>({ type: ['array', 'null'], items: { type: 'string' }, description: 'BCP-47 tags the endpoint serves; null: Whisper’s 57' })),
  },
  { additionalProperties: false },
);

export const SpeechSettingsBody = Type.Object(
  {
    engines: Type.Optional(
      typed<readonly EngineKind[] | null>({
        type: ['array', 'null'],
        items: { enum: ENGINE_KINDS },
        uniqueItems: true,
        description: 'engines in order of preference, each one the deployment offers (openai also with your own endpoint); null: the deployment’s order',
      }),
    ),
    openai: Type.Optional(typed<Static<typeof OpenAiEndpointBody> | null>({ oneOf: [{ type: 'null' }, jsonSchema(OpenAiEndpointBody)] })),
  },
  { additionalProperties: false, description: 'The whole settings; a field left out is null.' },
);

export const WebhookRequestBody = Type.Object(
  { url: Type.String({ format: 'uri' }), events: Type.Array(typed<EventType>({ enum: EVENT_TYPES }), { minItems: 1 }) },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object(
  { grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400, description: 'how long the old secret keeps co-signing' })) },
  { additionalProperties: false },
);

export const CheckInRequestBody = Type.Object(
  {
    operator_id: Type.String({ minLength: 1, maxLength: 128 }),
    source: Type.Optional(typed<(typeof CHECK_IN_SOURCES)[number]>({ enum: CHECK_IN_SOURCES, default: 'api' })),
    site_id: Type.Optional(typed<string | null>({ type: ['string', 'null'] })),
    occurred_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const OperatorUpdateBody = Type.Object({ active: Type.Boolean() }, { additionalProperties: false });

export const TokenRequestForm = Type.Object({
  grant_type: Type.Optional(typed<'client_credentials'>({ const: 'client_credentials' })),
  scope: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
});

const weParams = idParams('we');

/** By name: the readers of each take their types from its entry. */
export const callsEndpoints = {
  token: declareEndpoint({
    method: 'post',
    path: '/v1/oauth/token',
    summary: 'OAuth 2.0 client credentials: client_id = the key’s id, client_secret = the key',
    security: [],
    body: { schema: TokenRequestForm, mediaType: 'application/x-www-form-urlencoded' },
    responses: {
      '200': ok('an access token', { type: 'object', properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { type: 'integer' }, scope: { type: 'string' } } }),
      '400': problem('bad grant or scope'),
      '401': problem('unknown client or wrong secret'),
    },
  }),
  analyze: declareEndpoint(
    scoped('calls:write', {
      method: 'post',
      path: '/v1/calls/analyze',
      summary: 'Submit a recording for analysis',
      parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
      body: { schema: AnalyzeRequestBody, component: 'AnalyzeRequest' },
      responses: { '202': ok('the call, queued', ref('Call')), '400': problem('invalid fields'), '409': problem('Idempotency-Key in use'), '422': problem('Idempotency-Key reused with another body') },
    }),
  ),
  listCalls: declareEndpoint(
    scoped('calls:read', {
      method: 'get',
      path: '/v1/calls',
      summary: 'List calls, newest first',
      query: ListCallsQuery,
      responses: { '200': ok('a page', ref('CallPage')), '400': problem('invalid parameters') },
    }),
  ),
  getCall: declareEndpoint(
    scoped('calls:read', {
      method: 'get',
      path: '/v1/calls/{id}',
      summary: 'One call',
      params: idParams('call'),
      responses: { '200': ok('the call', ref('Call')), '404': problem('no such call for this tenant') },
    }),
  ),
  getInsightSettings: declareEndpoint(
    scoped('calls:read', {
      method: 'get',
      path: '/v1/insights/settings',
      summary: 'The tenant’s insight settings (the defaults until set)',
      responses: { '200': ok('the settings', ref('InsightSettings')) },
    }),
  ),
  putInsightSettings: declareEndpoint(
    scoped('calls:write', {
      method: 'put',
      path: '/v1/insights/settings',
      summary: 'Replace the tenant’s insight settings; they apply to transcripts completed from now on',
      body: { schema: InsightSettingsBody, component: 'InsightSettingsInput' },
      responses: { '200': ok('the settings', ref('InsightSettings')), '400': problem('invalid fields'), '415': problem('not JSON') },
    }),
  ),
  getSpeechSettings: declareEndpoint(
    scoped('calls:read', {
      method: 'get',
      path: '/v1/speech/settings',
      summary: 'The tenant’s speech-engine settings',
      responses: { '200': ok('the settings', ref('SpeechSettings')) },
    }),
  ),
  putSpeechSettings: declareEndpoint(
    scoped('calls:write', {
      method: 'put',
      path: '/v1/speech/settings',
      summary: 'Replace the tenant’s speech-engine settings; they apply to calls analysed from now on',
      body: { schema: SpeechSettingsBody, component: 'SpeechSettingsInput' },
      responses: { '200': ok('the settings', ref('SpeechSettings')), '400': problem('invalid fields, or an engine this deployment does not offer'), '415': problem('not JSON') },
    }),
  ),
  listWebhooks: declareEndpoint(
    scoped('webhooks:manage', { method: 'get', path: '/v1/webhooks', summary: 'Webhook endpoints', responses: { '200': ok('the endpoints', list(ref('WebhookEndpoint'))) } }),
  ),
  createWebhook: declareEndpoint(
    scoped('webhooks:manage', {
      method: 'post',
      path: '/v1/webhooks',
      summary: 'Register an endpoint (the secret is returned here only)',
      body: { schema: WebhookRequestBody, component: 'WebhookRequest' },
      responses: { '201': ok('the endpoint with its secret', ref('WebhookEndpoint')), '400': problem('invalid fields') },
    }),
  ),
  getWebhook: declareEndpoint(
    scoped('webhooks:manage', {
      method: 'get',
      path: '/v1/webhooks/{id}',
      summary: 'One endpoint',
      params: weParams,
      responses: { '200': ok('the endpoint', ref('WebhookEndpoint')), '404': problem('no such endpoint') },
    }),
  ),
  deleteWebhook: declareEndpoint(
    scoped('webhooks:manage', {
      method: 'delete',
      path: '/v1/webhooks/{id}',
      summary: 'Delete an endpoint',
      params: weParams,
      responses: { '204': { description: 'deleted' }, '404': problem('no such endpoint') },
    }),
  ),
  rotateWebhookSecret: declareEndpoint(
    scoped('webhooks:manage', {
      method: 'post',
      path: '/v1/webhooks/{id}/rotate-secret',
      summary: 'A new secret; the old one co-signs for grace_seconds',
      params: weParams,
      body: { schema: RotateSecretBody, required: false },
      responses: { '200': ok('the endpoint with its new secret', ref('WebhookEndpoint')), '400': problem('invalid fields'), '404': problem('no such endpoint') },
    }),
  ),
  enableWebhook: declareEndpoint(
    scoped('webhooks:manage', {
      method: 'post',
      path: '/v1/webhooks/{id}/enable',
      summary: 'Re-enable a disabled endpoint',
      params: weParams,
      responses: { '200': ok('the endpoint', ref('WebhookEndpoint')), '404': problem('no such endpoint') },
    }),
  ),
  listDeliveries: declareEndpoint(
    scoped('webhooks:manage', {
      method: 'get',
      path: '/v1/webhooks/{id}/deliveries',
      summary: 'The latest 100 deliveries with their attempts',
      params: weParams,
      responses: { '200': ok('deliveries', list(ref('WebhookDelivery'))), '404': problem('no such endpoint') },
    }),
  ),
  checkIn: declareEndpoint(
    scoped('attendance:write', {
      method: 'post',
      path: '/v1/attendance/check-ins',
      summary: 'An operator checks in',
      body: { schema: CheckInRequestBody, component: 'CheckInRequest' },
      responses: { '201': ok('the check-in', ref('CheckIn')), '400': problem('invalid fields'), '403': problem('the operator is inactive, or the scope is missing') },
    }),
  ),
  updateOperator: declareEndpoint(
    scoped('attendance:write', {
      method: 'put',
      path: '/v1/attendance/operators/{operatorId}',
      summary: 'Mark an operator active or inactive',
      params: Type.Object({ operatorId: Type.String() }),
      body: { schema: OperatorUpdateBody },
      responses: { '200': ok('the operator', { type: 'object', properties: { operator_id: { type: 'string' }, active: { type: 'boolean' } } }), '400': problem('invalid fields') },
    }),
  ),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

/** In the order the document lists them. */
export const CALLS_ENDPOINTS: readonly EndpointDeclaration[] = Object.values(callsEndpoints);

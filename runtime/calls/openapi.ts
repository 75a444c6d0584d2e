import { bodyComponents, openApiPaths, schemaRef as ref, type OpenApiObject } from '../http/endpoint.js';
import { CALLS_ENDPOINTS } from './endpoints.js';
import { CALLS_SCHEMAS } from './schemas.js';
import { ALL_SCOPES } from './tokens.js';

const callEvent = (summary: string): OpenApiObject => ({
  post: { summary, requestBody: { required: true, content: { 'application/json': { schema: ref('CallEvent') } } }, responses: { '200': { description: 'any 2xx acknowledges' } } },
});

/**
 * The OpenAPI 3.1 document of the call-analysis API, served at `GET /v1/openapi.json` on
 * CALLS_PORT without a credential: its operations made from the endpoint declarations the
 * routes read their input by, its components from the same constants the validation uses
 * (scopes, event types, limits), so the two cannot drift apart.
 */
export function callsOpenApiDocument(): OpenApiObject {
  return {
    openapi: '3.1.0',
    info: { title: 'Gantry call-analysis API', version: '1' },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`gantry calls key create`) or an access token from POST /v1/oauth/token.' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/v1/oauth/token', scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, s])) } } },
      },
      schemas: { ...CALLS_SCHEMAS, ...bodyComponents(CALLS_ENDPOINTS) },
    },
    webhooks: {
      'call.analysis.completed': callEvent('A call was analysed (Standard Webhooks signature headers)'),
      'call.analysis.failed': callEvent('A call’s analysis failed'),
    },
    paths: openApiPaths(CALLS_ENDPOINTS),
  };
}

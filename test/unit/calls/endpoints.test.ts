import SwaggerParser from '@apidevtools/swagger-parser';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { parseAnalyzeRequest } from '../../../runtime/calls/analyze-request.js';
import { createCallsApp, type CallsService } from '../../../runtime/calls/app.js';
import { CALLS_ENDPOINTS, callsEndpoints } from '../../../runtime/calls/endpoints.js';
import type { FieldError } from '../../../runtime/calls/errors.js';
import { parseInsightSettings } from '../../../runtime/calls/insights/settings.js';
import { callsOpenApiDocument } from '../../../runtime/calls/openapi.js';
import { parseTenantSpeechInput } from '../../../runtime/calls/transcript/tenant-speech-settings.js';
import { parseCheckInRequest, parseListQuery, parseOperatorUpdate, parseRotateRequest, parseWebhookRequest, type Validated } from '../../../runtime/calls/validation.js';
import { fieldNames, routeKey, type EndpointDeclaration } from '../../../runtime/http/endpoint.js';

interface Layer {
  readonly route?: { readonly path: string; readonly methods: Record<string, boolean> };
  readonly handle?: { readonly stack?: readonly Layer[] };
}

/** `METHOD /path` of every route of the app; its routers are mounted at `/v1`. */
function servedRoutes(app: Express): string[] {
  const walk = (stack: readonly Layer[], prefix: string): string[] =>
    stack.flatMap((layer) => {
      if (layer.route) return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${prefix}${layer.route!.path}`);
      return layer.handle?.stack ? walk(layer.handle.stack, '/v1') : [];
    });
  return walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
}

const policy = { allowPrivate: false, allowCidrs: [] };
const service = { context: { settings: { allowPrivateUrls: false, allowCidrs: [] }, log: { info: () => undefined } } } as unknown as CallsService;

/** The reader of each endpoint that takes a JSON body or query, as its route calls it. */
const readers: ReadonlyMap<EndpointDeclaration, (input: Record<string, unknown>) => Validated<unknown>> = new Map<EndpointDeclaration, (input: Record<string, unknown>) => Validated<unknown>>([
  [callsEndpoints.analyze, (input) => parseAnalyzeRequest(input, policy)],
  [callsEndpoints.listCalls, (input) => parseListQuery(input)],
  [callsEndpoints.putInsightSettings, (input) => parseInsightSettings(input)],
  [callsEndpoints.putSpeechSettings, (input) => parseTenantSpeechInput(input, policy)],
  [callsEndpoints.createWebhook, (input) => parseWebhookRequest(input, policy)],
  [callsEndpoints.rotateWebhookSecret, (input) => parseRotateRequest(input)],
  [callsEndpoints.checkIn, (input) => parseCheckInRequest(input)],
  [callsEndpoints.updateOperator, (input) => parseOperatorUpdate(input)],
]);

const unknownFields = (result: Validated<unknown>): string[] =>
  result.ok ? [] : result.errors.filter((e: FieldError) => e.code === 'unknown_field' || e.code === 'unknown_parameter').map((e) => e.field);

describe('the call-analysis endpoints', () => {
  it('declare every route the app serves, and nothing it does not serve (the document itself aside)', () => {
    const served = servedRoutes(createCallsApp(service)).filter((route) => route !== 'GET /v1/openapi.json');
    expect(served.length).toBeGreaterThan(15);
    expect(CALLS_ENDPOINTS.map((endpoint) => routeKey(endpoint)).sort()).toEqual([...new Set(served)].sort());
  });

  it('have a reader for each JSON body or query that allows exactly the declared fields', () => {
    const withInput = CALLS_ENDPOINTS.filter((e) => e.query || (e.body && (e.body.mediaType ?? 'application/json') === 'application/json'));
    expect(withInput.filter((e) => !readers.has(e)).map((e) => routeKey(e))).toEqual([]);
    for (const [endpoint, read] of readers) {
      const schema = endpoint.query ?? endpoint.body!.schema;
      const declared = fieldNames(schema as never);
      expect(unknownFields(read({ not_declared: 1 })), routeKey(endpoint)).toEqual(['not_declared']);
      expect(unknownFields(read(Object.fromEntries(declared.map((name) => [name, 'x'])))), routeKey(endpoint)).toEqual([]);
    }
  });

  it('make a valid OpenAPI 3.1 document whose operations are the declarations', async () => {
    const document = callsOpenApiDocument();
    await SwaggerParser.validate(structuredClone(document) as never);
    const paths = document.paths as Record<string, Record<string, { summary: string; requestBody?: unknown }>>;
    for (const endpoint of CALLS_ENDPOINTS) {
      expect(paths[endpoint.path]?.[endpoint.method]?.summary).toBe(endpoint.summary);
      expect(paths[endpoint.path]?.[endpoint.method]?.requestBody !== undefined).toBe(endpoint.body !== undefined);
    }
    expect(Object.values(paths).flatMap((item) => Object.keys(item))).toHaveLength(CALLS_ENDPOINTS.length);
  });
});

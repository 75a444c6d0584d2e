import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantInsights } from '../../../runtime/calls/insights/store.js';
import { SCRIPT, SUPPORT_CALL, transcriptOf } from '../../helpers/calls/fixture-transcript.js';
import { callsEnv, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';

let h: CallsHarness;

beforeAll(async () => {
  h = await startCallsHarness(callsEnv({ CALLS_CONCURRENCY: '0' }));
});
afterAll(async () => {
  await h?.close();
});

const SETTINGS = {
  keyword_lists: [{ name: 'churn', phrases: ['cancel subscription', 'refund'] }],
  script: { phrases: SCRIPT, speaker: 'operator' },
  redact_pii: true,
  min_score: 0.8,
};

describe('/v1/insights/settings', () => {
  it('a tenant starts with the defaults; PUT replaces them whole; another tenant is not affected', async () => {
    const { key, tenant } = await h.newTenant();
    const other = await h.newTenant();
    const initial = await h.request('GET', '/v1/insights/settings', { key });
    expect([initial.status, initial.body]).toEqual([
      200,
      { object: 'insight_settings', keyword_lists: [], script: { phrases: [], speaker: null }, redact_pii: false, min_score: 0.8, updated_at: null },
    ]);

    const put = await h.request('PUT', '/v1/insights/settings', { key, body: SETTINGS });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ object: 'insight_settings', ...SETTINGS, updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await h.request('GET', '/v1/insights/settings', { key })).body).toEqual(put.body);
    const { rows } = await h.platform.pool.query('SELECT tenant_id, settings FROM calls_insight_settings WHERE tenant_id = $1', [tenant]);
    expect(rows).toEqual([{ tenant_id: tenant, settings: SETTINGS }]);

    const narrowed = await h.request('PUT', '/v1/insights/settings', { key, body: { redact_pii: true } });
    expect(narrowed.body).toMatchObject({ keyword_lists: [], script: { phrases: [], speaker: null }, redact_pii: true, min_score: 0.8 });
    expect((await h.request('GET', '/v1/insights/settings', { key: other.key })).body.updated_at).toBeNull();
  });

  it('refuses a bad body naming each field, a non-JSON body, no credentials, and a read-only token for PUT', async () => {
    const { key, keyId } = await h.newTenant();
    const bad = await h.request('PUT', '/v1/insights/settings', { key, body: { keyword_lists: [{ name: 'x' }], min_score: 2, colour: 'red' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(bad.body).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(bad.body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ['colour', 'unknown_field'],
      ['keyword_lists[0].phrases', 'required'],
      ['min_score', 'invalid_min_score'],
    ]);
    const text = await h.request('PUT', '/v1/insights/settings', { key, body: 'redact_pii=true', headers: { 'content-type': 'text/plain' } });
    expect([text.status, text.body.code]).toEqual([415, 'unsupported_media_type']);
    const anonymous = await h.request('GET', '/v1/insights/settings');
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'missing_credentials']);

    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'calls:read', client_id: keyId, client_secret: key }).toString();
    const token = await h.request('POST', '/v1/oauth/token', { body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect((await h.request('GET', '/v1/insights/settings', { key: token.body.access_token })).status).toBe(200);
    const denied = await h.request('PUT', '/v1/insights/settings', { key: token.body.access_token, body: SETTINGS });
    expect([denied.status, denied.body.code]).toEqual([403, 'insufficient_scope']);
    expect((await h.request('GET', '/v1/insights/settings', { key })).body.updated_at).toBeNull();
  });
});

describe('insights applied to a completed transcript with the tenant’s stored settings', () => {
  it('redacts the transcript and adds keywords, script adherence, PII kinds and per-utterance metrics', async () => {
    const { key, tenant } = await h.newTenant();
    expect((await h.request('PUT', '/v1/insights/settings', { key, body: SETTINGS })).status).toBe(200);
    const result = await withTenantInsights(h.platform.pool, tenant, { talk: { operator_s: 30 }, transcript: transcriptOf(SUPPORT_CALL) });
    if (!('insights' in result) || !result.insights) throw new Error('no insights');
    expect(result.talk).toEqual({ operator_s: 30 });
    expect(result.insights.keywords.map((k) => [k.list, k.phrase, k.text, k.speaker])).toEqual([
      ['churn', 'refund', 're fund', 'customer'],
      ['churn', 'refund', 'refund', 'operator'],
      ['churn', 'cancel subscription', 'cancel my subscription', 'customer'],
    ]);
    expect([result.insights.script?.found, result.insights.script?.required]).toEqual([8, 8]);
    expect(result.insights.pii).toEqual({ redacted: true, kinds: ['card_number', 'email_address', 'phone_number'] });
    expect(result.insights.utterances).toHaveLength(SUPPORT_CALL.length);
    expect(JSON.stringify(result.transcript)).not.toMatch(/4111|jo\.smith@/);
  });

  it('a tenant with no settings gets the defaults (no redaction); an unavailable transcript gets insights: null; no transcript, nothing added', async () => {
    const { tenant } = await h.newTenant();
    const plain = await withTenantInsights(h.platform.pool, tenant, { transcript: transcriptOf(SUPPORT_CALL) });
    if (!('insights' in plain) || !plain.insights) throw new Error('no insights');
    expect(plain.insights.pii).toEqual({ redacted: false, kinds: [] });
    expect([plain.insights.keywords, plain.insights.script]).toEqual([[], null]);
    expect(plain.transcript).toEqual(transcriptOf(SUPPORT_CALL));
    const unavailable = { status: 'unavailable' as const, reason: 'no speech engine is configured', language: 'en-US' };
    expect(await withTenantInsights(h.platform.pool, tenant, { transcript: unavailable })).toEqual({ transcript: unavailable, insights: null });
    expect(await withTenantInsights(h.platform.pool, tenant, { talk: {} })).toEqual({ talk: {} });
  });
});

describe('the OpenAPI document of the call-analysis API', () => {
  it('is served without a credential, is valid OpenAPI 3.1 and documents every operation, the insight settings included', async () => {
    const served = await h.request('GET', '/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    await expect(SwaggerParser.validate(structuredClone(served.body))).resolves.toMatchObject({ openapi: '3.1.0' });
    const operations = Object.entries(served.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual([
      'DELETE /v1/webhooks/{id}',
      'GET /v1/calls',
      'GET /v1/calls/{id}',
      'GET /v1/insights/settings',
      'GET /v1/speech/settings',
      'GET /v1/webhooks',
      'GET /v1/webhooks/{id}',
      'GET /v1/webhooks/{id}/deliveries',
      'POST /v1/attendance/check-ins',
      'POST /v1/calls/analyze',
      'POST /v1/oauth/token',
      'POST /v1/webhooks',
      'POST /v1/webhooks/{id}/enable',
      'POST /v1/webhooks/{id}/rotate-secret',
      'PUT /v1/attendance/operators/{operatorId}',
      'PUT /v1/insights/settings',
      'PUT /v1/speech/settings',
    ]);
    expect(served.body.paths['/v1/insights/settings'].put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/InsightSettingsInput' });
    expect(Object.keys(served.body.components.schemas.InsightSettingsInput.properties)).toEqual(['keyword_lists', 'script', 'redact_pii', 'min_score']);
  });
});

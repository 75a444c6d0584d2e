import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyLockName } from '../../../runtime/calls/idempotency.js';
import { generateApiKey, revokeApiKey } from '../../../runtime/calls/keys.js';
import { expectReferenceTimings } from '../../helpers/calls/reference.js';
import { callsEnv, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;

beforeAll(async () => {
  rec = await startRecordingServer();
  h = await startCallsHarness(callsEnv({ CALLS_MAX_RECORDING_BYTES: '1000000' }));
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
});

const body = (extra: Record<string, unknown> = {}) => ({ audio_url: `${rec.url}/ref.wav`, language: 'en-us', operator_id: 'op_42', ...extra });

describe('authentication', () => {
  it('401 without, with an unknown, a malformed and a revoked key, in the one error shape', async () => {
    const missing = await h.request('POST', '/v1/calls/analyze', { body: body() });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="calls", error="invalid_token"');
    expect(missing.body).toEqual({
      type: 'https://gantry.dev/errors/calls/missing_credentials',
      title: 'Unauthorized',
      status: 401,
      code: 'missing_credentials',
      detail: 'send Authorization: Bearer <API key or access token>',
      request_id: missing.headers.get('x-request-id'),
    });
    const { key, keyId } = await h.newTenant();
    const unknown = await h.request('GET', '/v1/calls', { key: key.slice(0, -8) + 'AAAAAAAA' });
    expect([unknown.status, unknown.body.code]).toEqual([401, 'invalid_credentials']);
    expect((await h.request('GET', '/v1/calls', { key: 'nonsense' })).body.code).toBe('invalid_credentials');
    const stranger = await h.request('GET', '/v1/calls', { key: generateApiKey() });
    expect([stranger.status, stranger.body.code]).toEqual([401, 'invalid_api_key']);
    expect((await h.request('GET', '/v1/calls', { key })).status).toBe(200);
    await revokeApiKey(h.platform.pool, keyId);
    const revoked = await h.request('GET', '/v1/calls', { key });
    expect([revoked.status, revoked.body.code]).toEqual([401, 'api_key_revoked']);
  });

  it('several keys per tenant: revoking one leaves the other working (rotation without downtime)', async () => {
    const first = await h.newTenant();
    const { createApiKey } = await import('../../../runtime/calls/keys.js');
    const second = await createApiKey(h.platform.pool, first.tenant);
    await h.request('POST', '/v1/calls/analyze', { key: first.key, body: body() });
    await revokeApiKey(h.platform.pool, first.keyId);
    const list = await h.request('GET', '/v1/calls', { key: second.key });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const { rows } = await h.platform.pool.query('SELECT key_hash, prefix FROM calls_api_keys WHERE id = $1', [second.id]);
    expect(rows[0].key_hash).toHaveLength(32);
    expect(second.key.startsWith(rows[0].prefix)).toBe(true);
    expect(JSON.stringify(rows[0])).not.toContain(second.key);
  });
});

describe('POST /v1/calls/analyze', () => {
  it('202 with Location and the queued call resource, then completes with the analysis', async () => {
    const { key } = await h.newTenant();
    const response = await h.request('POST', '/v1/calls/analyze', { key, body: body() });
    expect(response.status).toBe(202);
    expect(response.body.id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(response.headers.get('location')).toBe(`/v1/calls/${response.body.id}`);
    expect(response.body).toEqual({
      id: response.body.id,
      object: 'call_analysis',
      status: 'queued',
      audio_url: `${rec.url}/ref.wav`,
      language: 'en-US',
      operator_id: 'op_42',
      insight_options: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      started_at: null,
      completed_at: null,
      attempts: 0,
      error: null,
      result: null,
    });
    const done = await h.waitForCall(key, response.body.id);
    expect(done.body.status).toBe('completed');
    expect(done.headers.get('retry-after')).toBeNull();
    expect(done.body.attempts).toBe(1);
    expect(done.body.result.audio).toEqual({ container: 'wav', codec: 'pcm_s16le', sample_rate_hz: 8000, channels: 2, duration_s: 20 });
    expectReferenceTimings(done.body.result, 0);
  });

  it('415 for a non-JSON body, 400 for malformed JSON, 413 for a body over 16 KiB', async () => {
    const { key } = await h.newTenant();
    const form = await h.request('POST', '/v1/calls/analyze', { key, body: 'audio_url=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([form.status, form.body.code]).toEqual([415, 'unsupported_media_type']);
    const broken = await h.request('POST', '/v1/calls/analyze', { key, body: '{"audio_url":' });
    expect([broken.status, broken.body.code]).toEqual([400, 'invalid_json']);
    const huge = await h.request('POST', '/v1/calls/analyze', { key, body: body({ operator_id: 'x'.repeat(20_000) }) });
    expect([huge.status, huge.body.code]).toEqual([413, 'body_too_large']);
  });

  it('400 naming every bad field: URL scheme, language, operator id, unknown fields, missing fields', async () => {
    const { key } = await h.newTenant();
    const bad = await h.request('POST', '/v1/calls/analyze', {
      key,
      body: { audio_url: 'ftp://example.com/a.wav', language: 'english', operator_id: '', webhook_url: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors).toEqual([
      { field: 'webhook_url', code: 'unknown_field', message: 'unknown field; allowed: audio_url, language, operator_id, insight_options' },
      { field: 'audio_url', code: 'invalid_url', message: 'scheme ftp is not allowed; use http or https' },
      { field: 'language', code: 'invalid_language', message: 'language must be a BCP-47 tag such as en, en-US or pt-BR' },
      { field: 'operator_id', code: 'invalid_operator_id', message: 'operator_id must be 1-128 characters without control characters' },
    ]);
    const missing = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: 42 } });
    expect(missing.body.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`)).toEqual([
      'audio_url:invalid_type',
      'language:required',
      'operator_id:required',
    ]);
    const array = await h.request('POST', '/v1/calls/analyze', { key, body: [] });
    expect(array.body.errors).toEqual([{ field: '', code: 'invalid_body', message: 'the body must be a JSON object' }]);
    const long = await h.request('POST', '/v1/calls/analyze', { key, body: body({ audio_url: `https://example.com/${'a'.repeat(2100)}`, operator_id: 'o'.repeat(129) }) });
    expect(long.body.errors.map((e: { code: string }) => e.code)).toEqual(['too_long', 'invalid_operator_id']);
    const creds = await h.request('POST', '/v1/calls/analyze', { key, body: body({ audio_url: 'https://u:p@example.com/a.wav' }) });
    expect(creds.body.errors[0]).toEqual({ field: 'audio_url', code: 'invalid_url', message: 'URLs with credentials are not allowed' });
  });

  it('stores the canonical BCP-47 form', async () => {
    const { key } = await h.newTenant();
    for (const [given, stored] of [['zh-hant-tw', 'zh-Hant-TW'], ['iw', 'he'], ['es-419', 'es-419'], ['PT-br', 'pt-BR']]) {
      const response = await h.request('POST', '/v1/calls/analyze', { key, body: body({ language: given }) });
      expect([response.status, response.body.language]).toEqual([202, stored]);
    }
    for (const bad of ['en_us', 'x', '12', '']) {
      const response = await h.request('POST', '/v1/calls/analyze', { key, body: body({ language: bad }) });
      expect(response.body.errors).toEqual([{ field: 'language', code: 'invalid_language', message: 'language must be a BCP-47 tag such as en, en-US or pt-BR' }]);
    }
  });

  it('Idempotency-Key: same body replays the same call, another body is 422, a request in flight is 409', async () => {
    const { key, tenant } = await h.newTenant();
    const headers = { 'Idempotency-Key': 'order-7781' };
    const first = await h.request('POST', '/v1/calls/analyze', { key, body: body(), headers });
    const again = await h.request('POST', '/v1/calls/analyze', { key, body: body(), headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const other = await h.request('POST', '/v1/calls/analyze', { key, body: body({ operator_id: 'op_43' }), headers });
    expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
    const invalid = await h.request('POST', '/v1/calls/analyze', { key, body: body(), headers: { 'Idempotency-Key': 'ü' } });
    expect(invalid.body.errors[0].code).toBe('invalid_idempotency_key');

    const holder = new pg.Client(h.platform.cluster.urlFor('gantry'));
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [idempotencyLockName(tenant, 'busy-key')]);
      const busy = await h.request('POST', '/v1/calls/analyze', { key, body: body(), headers: { 'Idempotency-Key': 'busy-key' } });
      expect([busy.status, busy.body.code]).toEqual([409, 'idempotency_key_in_use']);
    } finally {
      await holder.end();
    }
    const { rows } = await h.platform.pool.query('SELECT count(*)::int AS n FROM calls WHERE tenant_id = $1', [tenant]);
    expect(rows[0].n).toBe(1);
  });
});

describe('GET /v1/calls', () => {
  it('pages with a cursor, filters by status and operator, newest first', async () => {
    const { key } = await h.newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await h.request('POST', '/v1/calls/analyze', { key, body: body({ operator_id: i % 2 ? 'odd' : 'even', audio_url: `${rec.url}/missing-${i}.wav` }) });
      ids.push(response.body.id);
    }
    const first = await h.request('GET', '/v1/calls?limit=2', { key });
    expect(first.body.object).toBe('list');
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await h.request('GET', `/v1/calls?limit=2&cursor=${first.body.next_cursor}`, { key });
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const third = await h.request('GET', `/v1/calls?limit=2&cursor=${second.body.next_cursor}`, { key });
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(third.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    const odd = await h.request('GET', '/v1/calls?operator_id=odd', { key });
    expect(odd.body.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[1]]);
    for (const id of ids) await h.waitForCall(key, id);
    const failed = await h.request('GET', '/v1/calls?status=failed&operator_id=even', { key });
    expect(failed.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect((await h.request('GET', '/v1/calls?status=completed', { key })).body.data).toEqual([]);
    const bad = await h.request('GET', '/v1/calls?limit=0&status=done&cursor=zzz&sort=x', { key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['sort', 'limit', 'status', 'cursor']);
  });

  it('another tenant\'s call is a 404, like a call that does not exist', async () => {
    const a = await h.newTenant();
    const b = await h.newTenant();
    const call = await h.request('POST', '/v1/calls/analyze', { key: a.key, body: body() });
    const foreign = await h.request('GET', `/v1/calls/${call.body.id}`, { key: b.key });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    expect((await h.request('GET', `/v1/calls/call_${'0'.repeat(32)}`, { key: b.key })).status).toBe(404);
    expect((await h.request('GET', '/v1/calls/nonsense', { key: b.key })).status).toBe(404);
    expect((await h.request('GET', '/v1/calls', { key: b.key })).body.data).toEqual([]);
    const own = await h.request('GET', `/v1/calls/${call.body.id}`, { key: a.key });
    expect(own.status).toBe(200);
  });
});

describe('failed analyses', () => {
  it('each failure is a failed call with a stable code; a too-large recording is a 413 error', async () => {
    const { key } = await h.newTenant();
    const submit = async (path: string) => (await h.request('POST', '/v1/calls/analyze', { key, body: body({ audio_url: `${rec.url}${path}` }) })).body.id as string;
    const cases = { big: await submit('/big.wav'), missing: await submit('/missing.wav'), html: await submit('/page.html') };
    const big = await h.waitForCall(key, cases.big);
    expect(big.body).toMatchObject({ status: 'failed', result: null, error: { code: 'file_too_large', status: 413, message: 'the recording is larger than 1000000 bytes' } });
    expect(big.body.completed_at).not.toBeNull();
    const missing = await h.waitForCall(key, cases.missing);
    expect(missing.body.error).toEqual({ code: 'download_failed', status: 502, message: 'the server answered 404' });
    const html = await h.waitForCall(key, cases.html);
    expect(html.body.error.code).toBe('unsupported_audio_format');
    expect(html.body.error.status).toBe(415);
  });

  it('a transient download failure is retried and then completes', async () => {
    const { key } = await h.newTenant();
    const call = await h.request('POST', '/v1/calls/analyze', { key, body: body({ audio_url: `${rec.url}/flaky.wav` }) });
    const done = await h.waitForCall(key, call.body.id);
    expect(done.body.status).toBe('completed');
    expect(done.body.attempts).toBe(2);
    expect(rec.hits.get('/flaky.wav')).toBe(2);
  });
});

describe('rate limit and routes', () => {
  it('429 with Retry-After once the tenant spends its budget; other tenants are unaffected', async () => {
    const limited = await startCallsHarness(callsEnv({ CALLS_RATE_LIMIT_PER_MINUTE: '3', CALLS_CONCURRENCY: '0', CALLS_TOKEN_TTL_SECONDS: '1' }));
    try {
      // Keep the four requests inside one minute window.
      const second = new Date().getSeconds();
      if (second > 55) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
      const a = await limited.newTenant();
      const b = await limited.newTenant();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.request('GET', '/v1/calls', { key: a.key })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await limited.request('GET', '/v1/calls', { key: a.key });
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await limited.request('GET', '/v1/calls', { key: b.key })).status).toBe(200);

      const token = await limited.request('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: b.keyId, client_secret: b.key } });
      expect(token.body.expires_in).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const expired = await limited.request('GET', '/v1/calls', { key: token.body.access_token });
      expect([expired.status, expired.body.code]).toEqual([401, 'token_expired']);
    } finally {
      await limited.close();
    }
  });

  it('unknown routes are 404 in the same shape', async () => {
    const { key } = await h.newTenant();
    const response = await h.request('GET', '/v1/nothing', { key });
    expect([response.status, response.body.code, response.body.status]).toEqual([404, 'route_not_found', 404]);
  });
});

describe('OAuth 2.0 client credentials', () => {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

  it('issues a short-lived tenant-scoped token accepted as Bearer; a revoked client loses it at once', async () => {
    const { key, keyId } = await h.newTenant();
    const basic = `Basic ${Buffer.from(`${keyId}:${key}`).toString('base64')}`;
    const token = await h.request('POST', '/v1/oauth/token', { body: form({ grant_type: 'client_credentials' }), headers: { ...formHeaders, authorization: basic } });
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(token.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, scope: 'calls:read calls:write webhooks:manage attendance:write' });
    const [header, payload] = token.body.access_token.split('.').slice(0, 2).map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(payload.exp - payload.iat).toBe(900);
    expect(payload.sub).toBe(keyId);
    const call = await h.request('POST', '/v1/calls/analyze', { key: token.body.access_token, body: body() });
    expect(call.status).toBe(202);
    expect((await h.request('GET', `/v1/calls/${call.body.id}`, { key: token.body.access_token })).status).toBe(200);

    const readOnly = await h.request('POST', '/v1/oauth/token', { body: form({ grant_type: 'client_credentials', scope: 'calls:read', client_id: keyId, client_secret: key }), headers: formHeaders });
    expect(readOnly.body.scope).toBe('calls:read');
    expect((await h.request('GET', '/v1/calls', { key: readOnly.body.access_token })).status).toBe(200);
    const denied = await h.request('POST', '/v1/calls/analyze', { key: readOnly.body.access_token, body: body() });
    expect([denied.status, denied.body.code]).toEqual([403, 'insufficient_scope']);

    await revokeApiKey(h.platform.pool, keyId);
    const after = await h.request('GET', '/v1/calls', { key: token.body.access_token });
    expect([after.status, after.body.code]).toEqual([401, 'api_key_revoked']);
    const again = await h.request('POST', '/v1/oauth/token', { body: form({ grant_type: 'client_credentials' }), headers: { ...formHeaders, authorization: basic } });
    expect([again.status, again.body.error]).toEqual([401, 'invalid_client']);
  });

  it('OAuth errors: bad client 401, wrong grant 400, bad scope 400, tampered token 401', async () => {
    const { key, keyId } = await h.newTenant();
    const wrong = await h.request('POST', '/v1/oauth/token', { body: form({ grant_type: 'client_credentials', client_id: 'key_x', client_secret: key }), headers: formHeaders });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'invalid_client', error: 'invalid_client', error_description: 'unknown client or wrong secret' });
    const grant = await h.request('POST', '/v1/oauth/token', { body: form({ grant_type: 'password', client_id: keyId, client_secret: key }), headers: formHeaders });
    expect([grant.status, grant.body.error]).toEqual([400, 'unsupported_grant_type']);
    const scope = await h.request('POST', '/v1/oauth/token', { body: form({ grant_type: 'client_credentials', scope: 'admin', client_id: keyId, client_secret: key }), headers: formHeaders });
    expect([scope.status, scope.body.error]).toEqual([400, 'invalid_scope']);
    const ok = await h.request('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: keyId, client_secret: key } });
    const [head, payload, signature] = ok.body.access_token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), tid: 'someone_else' })).toString('base64url');
    const tampered = await h.request('GET', '/v1/calls', { key: `${head}.${forged}.${signature}` });
    expect([tampered.status, tampered.body.code]).toEqual([401, 'invalid_token']);
  });
});

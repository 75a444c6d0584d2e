import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../runtime/calls/keys.js';
import { callsEnv, eventually, startCallsHarness, startReceiver, type CallsHarness, type ReceivedHook } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  rec = await startRecordingServer();
  receiver = await startReceiver();
  h = await startCallsHarness(callsEnv());
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
  await receiver?.close();
});

const ALL = ['call.analysis.completed', 'call.analysis.failed', 'attendance.check_in.created', 'access.denied'];

async function register(key: string, path: string, events = ALL) {
  const response = await h.request('POST', '/v1/webhooks', { key, body: { url: `${receiver.url}${path}`, events } });
  expect(response.status).toBe(201);
  return response.body as { id: string; secret: string };
}

const hooksAt = (path: string): ReceivedHook[] => receiver.received.filter((r) => r.path === path);

function verified(secret: string, hook: ReceivedHook): { type: string; timestamp: string; data: any } {
  return new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as { type: string; timestamp: string; data: any };
}

describe('webhook endpoints', () => {
  it('create returns the whsec_ secret once; list, get and delete are per tenant', async () => {
    const { key } = await h.newTenant();
    const other = await h.newTenant();
    const created = await h.request('POST', '/v1/webhooks', { key, body: { url: `${receiver.url}/crud`, events: ['call.analysis.completed', 'call.analysis.completed'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^we_[0-9a-f]{32}$/),
      object: 'webhook_endpoint',
      url: `${receiver.url}/crud`,
      events: ['call.analysis.completed'],
      enabled: true,
      disabled_reason: null,
      created_at: expect.any(String),
      previous_secret_expires_at: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(created.headers.get('location')).toBe(`/v1/webhooks/${created.body.id}`);
    const { secret: _secret, ...withoutSecret } = created.body;
    expect((await h.request('GET', `/v1/webhooks/${created.body.id}`, { key })).body).toEqual(withoutSecret);
    expect((await h.request('GET', '/v1/webhooks', { key })).body).toEqual({ object: 'list', data: [withoutSecret] });
    expect((await h.request('GET', `/v1/webhooks/${created.body.id}`, { key: other.key })).status).toBe(404);
    expect((await h.request('DELETE', `/v1/webhooks/${created.body.id}`, { key: other.key })).status).toBe(404);
    expect((await h.request('DELETE', `/v1/webhooks/${created.body.id}`, { key })).status).toBe(204);
    expect((await h.request('GET', `/v1/webhooks/${created.body.id}`, { key })).status).toBe(404);
    expect((await h.request('GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  });

  it('validates url and events', async () => {
    const { key } = await h.newTenant();
    const bad = await h.request('POST', '/v1/webhooks', { key, body: { url: 'gopher://x', events: ['call.created'], secret: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`)).toEqual(['secret:unknown_field', 'url:invalid_url', 'events[0]:unknown_event_type']);
    const empty = await h.request('POST', '/v1/webhooks', { key, body: { url: 'https://example.com/h', events: [] } });
    expect(empty.body.errors[0]).toMatchObject({ field: 'events', code: 'invalid_type' });
    const text = await h.request('POST', '/v1/webhooks', { key, body: 'url=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });
});

describe('events and delivery', () => {
  it('call.analysis.completed and .failed arrive signed (Standard Webhooks), with the call resource', async () => {
    const { key } = await h.newTenant();
    const endpoint = await register(key, '/calls-events');
    const ok = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1' } });
    const bad = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/nope.wav`, language: 'en', operator_id: 'op_1' } });
    const hooks = await eventually(async () => (hooksAt('/calls-events').length >= 2 ? hooksAt('/calls-events') : null), 15_000, 'two call events');
    const events = hooks.map((hook) => verified(endpoint.secret, hook));
    const completed = events.find((e) => e.type === 'call.analysis.completed')!;
    const failed = events.find((e) => e.type === 'call.analysis.failed')!;
    expect(completed.data.id).toBe(ok.body.id);
    expect(completed.data.status).toBe('completed');
    expect(completed.data.result.talk.operator_s).toBe(7);
    // The event carries the transcript's status (no engine here) and the insight summary beside the metrics; the transcript itself is read from the call.
    const call = (await h.request('GET', `/v1/calls/${ok.body.id}`, { key })).body;
    const { transcript, insights, ...metrics } = call.result;
    expect(transcript).toEqual({ status: 'unavailable', reason: 'no speech engine is configured (CALLS_SPEECH_ENGINES, /v1/speech/settings)', language: 'en' });
    expect(completed.data).toEqual({ ...call, result: metrics, transcript, insights });
    expect(failed.data).toMatchObject({ id: bad.body.id, status: 'failed', error: { code: 'download_failed', status: 502 } });
    // Each event's POST carries the id of the request that submitted its call, stored with the queued jobs.
    const requestIdOf = (type: string) => hooks.find((hook) => verified(endpoint.secret, hook).type === type)!.headers['x-request-id'];
    expect([requestIdOf('call.analysis.completed'), requestIdOf('call.analysis.failed')]).toEqual([ok.headers.get('x-request-id'), bad.headers.get('x-request-id')]);
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    for (const hook of hooks) {
      expect(hook.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
      expect(hook.headers['content-type']).toBe('application/json');
      const tampered = { ...hook, body: hook.body.replace('"status"', '"Status"') };
      expect(() => verified(endpoint.secret, tampered)).toThrow('No matching signature found');
    }
  });

  it('a receiver that fails twice then succeeds gets the same message three times; the log shows every attempt', async () => {
    const { key } = await h.newTenant();
    receiver.plan('/flaky', [500, 503]);
    const endpoint = await register(key, '/flaky', ['attendance.check_in.created']);
    const checkIn = await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op_7', source: 'badge', site_id: 'lisbon' } });
    expect(checkIn.status).toBe(201);
    expect(checkIn.body).toEqual({
      id: expect.stringMatching(/^chk_[0-9a-f]{32}$/),
      object: 'attendance_check_in',
      operator_id: 'op_7',
      source: 'badge',
      site_id: 'lisbon',
      occurred_at: expect.any(String),
      created_at: expect.any(String),
    });
    const hooks = await eventually(async () => (hooksAt('/flaky').length >= 3 ? hooksAt('/flaky') : null), 15_000, 'three attempts');
    expect(new Set(hooks.map((hook) => hook.headers['webhook-id'])).size).toBe(1);
    expect(hooks.map((hook) => hook.headers['x-request-id'])).toEqual([1, 2, 3].map(() => checkIn.headers.get('x-request-id')));
    const event = verified(endpoint.secret, hooks[2]!);
    expect(event).toEqual({ type: 'attendance.check_in.created', timestamp: expect.any(String), data: checkIn.body });
    const log = await eventually(async () => {
      const response = await h.request('GET', `/v1/webhooks/${endpoint.id}/deliveries`, { key });
      return response.body.data[0]?.status === 'succeeded' ? response.body : null;
    });
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({ object: 'webhook_delivery', event_type: 'attendance.check_in.created', status: 'succeeded', attempts: 3, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(log.data[0].message_id).toBe(hooks[0]!.headers['webhook-id']);
    expect(log.data[0].attempt_log.map((a: { attempt: number; status_code: number; error: string | null }) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 503, 'HTTP 503'],
      [3, 200, null],
    ]);
    expect(log.data[0].attempt_log[0].response_snippet).toBe('nope');
  });

  it('410 disables the endpoint at once; persistent failure disables it after the schedule; enable turns it back on', async () => {
    const { key } = await h.newTenant();
    receiver.plan('/gone', [410]);
    receiver.plan('/down', [500, 500, 500]);
    const gone = await register(key, '/gone', ['attendance.check_in.created']);
    const down = await register(key, '/down', ['attendance.check_in.created']);
    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op_8' } });
    const state = async (id: string) => (await h.request('GET', `/v1/webhooks/${id}`, { key })).body;
    await eventually(async () => (await state(gone.id)).enabled === false, 15_000, 'gone disabled');
    expect(await state(gone.id)).toMatchObject({ enabled: false, disabled_reason: 'endpoint_gone' });
    expect(hooksAt('/gone')).toHaveLength(1);
    await eventually(async () => (await state(down.id)).enabled === false, 15_000, 'down disabled');
    expect(await state(down.id)).toMatchObject({ enabled: false, disabled_reason: 'persistent_failure' });
    expect(hooksAt('/down')).toHaveLength(3);
    const log = (await h.request('GET', `/v1/webhooks/${down.id}/deliveries`, { key })).body.data;
    expect(log[0]).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500 });

    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op_9' } });
    const enabled = await h.request('POST', `/v1/webhooks/${gone.id}/enable`, { key });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op_10' } });
    await eventually(async () => hooksAt('/gone').length === 2, 15_000, 'delivery after enable');
    expect(JSON.parse(hooksAt('/gone')[1]!.body).data.operator_id).toBe('op_10');
    expect(hooksAt('/down')).toHaveLength(3);
  });

  it('secret rotation: both secrets sign during the grace period, only the new one after grace 0', async () => {
    const { key } = await h.newTenant();
    const endpoint = await register(key, '/rotate', ['attendance.check_in.created']);
    const rotated = await h.request('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(86_000_000);
    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op_r1' } });
    const [first] = await eventually(async () => (hooksAt('/rotate').length === 1 ? hooksAt('/rotate') : null));
    expect(String(first!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(endpoint.secret, first!).data.operator_id).toBe('op_r1');
    expect(verified(rotated.body.secret, first!).data.operator_id).toBe('op_r1');

    const hard = await h.request('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { key, body: { grace_seconds: 0 } });
    expect(hard.body.previous_secret_expires_at).toBeNull();
    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op_r2' } });
    const second = (await eventually(async () => (hooksAt('/rotate').length === 2 ? hooksAt('/rotate') : null)))[1]!;
    expect(verified(hard.body.secret, second).data.operator_id).toBe('op_r2');
    expect(() => verified(rotated.body.secret, second)).toThrow('No matching signature found');
    const badGrace = await h.request('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { key, body: { grace_seconds: -1 } });
    expect(badGrace.body.errors[0].code).toBe('invalid_grace_seconds');
  });

  it('access.denied for a revoked key and for an inactive operator\'s check-in, throttled per subject and reason', async () => {
    const { key, keyId, tenant } = await h.newTenant();
    const { createApiKey } = await import('../../../runtime/calls/keys.js');
    const spare = await createApiKey(h.platform.pool, tenant);
    const endpoint = await register(spare.key, '/denied', ['access.denied']);
    await revokeApiKey(h.platform.pool, keyId);
    expect((await h.request('GET', '/v1/calls', { key })).status).toBe(401);
    expect((await h.request('GET', '/v1/calls', { key })).status).toBe(401);
    expect((await h.request('PUT', '/v1/attendance/operators/op_gone', { key: spare.key, body: { active: false } })).body).toEqual({
      object: 'attendance_operator',
      operator_id: 'op_gone',
      active: false,
    });
    const refused = await h.request('POST', '/v1/attendance/check-ins', { key: spare.key, body: { operator_id: 'op_gone' } });
    expect([refused.status, refused.body.code]).toEqual([403, 'operator_inactive']);
    const hooks = await eventually(async () => (hooksAt('/denied').length >= 2 ? hooksAt('/denied') : null));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(hooksAt('/denied')).toHaveLength(2);
    const events = hooks.map((hook) => verified(endpoint.secret, hook).data).sort((a, b) => a.reason.localeCompare(b.reason));
    expect(events[0]).toEqual({
      id: expect.stringMatching(/^den_/),
      occurred_at: expect.any(String),
      subject: { type: 'api_key', id: keyId },
      reason: 'key_revoked',
      request: { method: 'GET', path: '/v1/calls', ip: '127.0.0.1' },
    });
    expect(events[1]).toMatchObject({ subject: { type: 'operator', id: 'op_gone' }, reason: 'operator_inactive', request: { method: 'POST', path: '/v1/attendance/check-ins' } });
    const { rows } = await h.platform.pool.query('SELECT count(*)::int AS n FROM calls_attendance_check_ins WHERE tenant_id = $1', [tenant]);
    expect(rows[0].n).toBe(0);
  });

  it('access.denied for a wrong client secret of a real OAuth client; an unknown client id is a plain 401', async () => {
    const { key, keyId } = await h.newTenant();
    const endpoint = await register(key, '/bad-secret', ['access.denied']);
    const other = await h.newTenant();
    const attempt = (clientId: string, secret: string) =>
      h.request('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret } });
    const wrong = await attempt(keyId, other.key);
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_client']);
    expect((await attempt('key_000000000000000000000000', key)).status).toBe(401);
    const [hook] = await eventually(async () => (hooksAt('/bad-secret').length ? hooksAt('/bad-secret') : null));
    expect(verified(endpoint.secret, hook!).data).toEqual({
      id: expect.stringMatching(/^den_/),
      occurred_at: expect.any(String),
      subject: { type: 'oauth_client', id: keyId },
      reason: 'invalid_secret',
      request: { method: 'POST', path: '/v1/oauth/token', ip: '127.0.0.1' },
    });
  });

  it('check-in validation names each bad field', async () => {
    const { key } = await h.newTenant();
    const bad = await h.request('POST', '/v1/attendance/check-ins', { key, body: { source: 'telepathy', occurred_at: 'yesterday', shift: 1 } });
    expect(bad.body.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`)).toEqual([
      'shift:unknown_field',
      'operator_id:required',
      'source:invalid_source',
      'occurred_at:invalid_timestamp',
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../runtime/outbound/guarded-request.js';
import { callsEnv, eventually, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

/**
 * The default policy (no CALLS_ALLOW_PRIVATE_URLS) with only 127.0.0.1/32 let through, so a local
 * server can play the public recording host. Names resolve through an injected resolver.
 */
const names: Record<string, string> = { 'recordings.test': '127.0.0.1', 'internal.test': '10.1.2.3', 'metadata.test': '169.254.169.254' };
const resolve: Resolver = async (hostname) => {
  const address = names[hostname];
  if (!address) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;
let port: string;

beforeAll(async () => {
  rec = await startRecordingServer();
  port = new URL(rec.url).port;
  h = await startCallsHarness(callsEnv({ CALLS_ALLOW_PRIVATE_URLS: 'false', CALLS_ALLOW_CIDRS: '127.0.0.1/32' }), { resolve });
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
});

const submit = (key: string, audio_url: string) => h.request('POST', '/v1/calls/analyze', { key, body: { audio_url, language: 'en', operator_id: 'op' } });

describe('SSRF through the API', () => {
  it('IP-literal loopback, IPv6 loopback, metadata and private hosts are refused at submit', async () => {
    const { key } = await h.newTenant();
    for (const [url, reason] of [
      [`http://127.0.0.2:${port}/ref.wav`, '127.0.0.2 is a loopback address'],
      [`http://[::1]:${port}/ref.wav`, '::1 is a loopback address'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address'],
      ['http://10.0.0.7/a.wav', '10.0.0.7 is a private address'],
      ['http://[::ffff:127.0.0.2]/a.wav', '::ffff:7f00:2 is a loopback address'],
    ]) {
      const response = await submit(key, url!);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ field: 'audio_url', code: 'url_blocked', message: reason }]);
    }
    expect(rec.hits.size).toBe(0);
  });

  it('a hostname resolving to 10.x, or to the metadata address, fails the call with url_blocked and no connection', async () => {
    const { key } = await h.newTenant();
    const internal = await submit(key, `http://internal.test:${port}/ref.wav`);
    const metadata = await submit(key, 'http://metadata.test/latest/meta-data/');
    expect(internal.status).toBe(202);
    expect((await h.waitForCall(key, internal.body.id)).body.error).toEqual({
      code: 'url_blocked',
      status: 400,
      message: 'internal.test is resolving to a private address (10.1.2.3)',
    });
    expect((await h.waitForCall(key, metadata.body.id)).body.error.message).toBe('metadata.test is resolving to a cloud metadata address (169.254.169.254)');
  });

  it('a redirect from an allowed host to loopback or to the metadata address is refused on the second hop', async () => {
    const { key } = await h.newTenant();
    const toLoopback = await submit(key, `http://recordings.test:${port}/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/ref.wav`)}`);
    const toMetadata = await submit(key, `http://recordings.test:${port}/redirect?to=${encodeURIComponent('http://169.254.169.254/')}`);
    expect((await h.waitForCall(key, toLoopback.body.id)).body.error).toEqual({ code: 'url_blocked', status: 400, message: '127.0.0.2 is a loopback address' });
    expect((await h.waitForCall(key, toMetadata.body.id)).body.error.code).toBe('url_blocked');
    expect(rec.hits.get('/redirect')).toBe(2);
    expect(rec.hits.get('/ref.wav')).toBeUndefined();
  });

  it('the allowed host itself works, and webhook targets follow the same policy', async () => {
    const { key } = await h.newTenant();
    const ok = await submit(key, `http://recordings.test:${port}/ref.wav`);
    expect((await h.waitForCall(key, ok.body.id)).body.status).toBe('completed');
    const hook = await h.request('POST', '/v1/webhooks', { key, body: { url: 'http://169.254.169.254/hook', events: ['access.denied'] } });
    expect(hook.body.errors).toEqual([{ field: 'url', code: 'url_blocked', message: '169.254.169.254 is a cloud metadata address' }]);
  });

  it('a webhook URL whose name resolves to a private address is refused at delivery time', async () => {
    const { key } = await h.newTenant();
    const hook = await h.request('POST', '/v1/webhooks', { key, body: { url: `http://internal.test:${port}/hook`, events: ['attendance.check_in.created'] } });
    expect(hook.status).toBe(201);
    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op' } });
    const log = await eventually(async () => {
      const response = await h.request('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { key });
      return response.body.data[0]?.status === 'failed' ? response.body.data[0] : null;
    });
    expect(log.attempt_log.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error])).toEqual(
      Array(3).fill([null, 'url_blocked: internal.test is resolving to a private address (10.1.2.3)']),
    );
    expect((await h.request('GET', `/v1/webhooks/${hook.body.id}`, { key })).body.disabled_reason).toBe('persistent_failure');
    expect(rec.hits.get('/hook')).toBeUndefined();
  });
});

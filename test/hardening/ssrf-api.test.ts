import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../runtime/outbound/guarded-request.js';
import { callsEnv, eventually, startCallsHarness, type CallsHarness } from '../helpers/calls/harness.js';
import { startRecordingServer } from '../helpers/calls/recordings.js';
import { confineToLoopback, type LoopbackConfinement } from './loopback-only.js';

/**
 * The IPv6 transition addresses through the HTTP API, under the default policy with only
 * 127.0.0.2 let through: the recording server plays the public host there, so 127.0.0.1 (in any
 * spelling) is as forbidden as any loopback address. Names resolve through an injected resolver,
 * and the process may only connect to loopback (a regression fails, it never sends a packet).
 */
const names: Record<string, string> = {
  'recordings.test': '127.0.0.2',
  'nat64.test': '64:ff9b::a00:1',
  'compat.test': '::7f00:1',
  'stored.test': '127.0.0.2',
};
const resolve: Resolver = async (hostname) => {
  const address = names[hostname];
  if (!address) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

const COMPAT_LOOPBACK = 'a ipv4Compatible address embedding 127.0.0.1, a loopback address';
const NAT64_PRIVATE = 'a rfc6052 address embedding 10.0.0.1, a private address';

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;
let port: string;
let confinement: LoopbackConfinement;

beforeAll(async () => {
  confinement = confineToLoopback();
  rec = await startRecordingServer({}, '127.0.0.2');
  port = new URL(rec.url).port;
  h = await startCallsHarness(callsEnv({ CALLS_ALLOW_PRIVATE_URLS: 'false', CALLS_ALLOW_CIDRS: '127.0.0.2/32' }), { resolve });
});
afterEach(() => {
  expect(confinement.stopped.splice(0)).toEqual([]);
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
  confinement?.release();
});

const submit = (key: string, audio_url: string) => h.request('POST', '/v1/calls/analyze', { key, body: { audio_url, language: 'en', operator_id: 'op' } });

describe('recordings', () => {
  it('every spelling of an IPv6 address carrying a refused IPv4 address is refused at submit', async () => {
    const { key } = await h.newTenant();
    const cases = [
      [`http://[::127.0.0.1]:${port}/a.wav`, `::7f00:1 is ${COMPAT_LOOPBACK}`],
      [`http://[::ffff:0:127.0.0.1]:${port}/a.wav`, '::ffff:0:7f00:1 is a rfc6145 address embedding 127.0.0.1, a loopback address'],
      [`http://[::ffff:7f00:1]:${port}/a.wav`, '::ffff:7f00:1 is a loopback address'],
      ['http://[64:ff9b::10.0.0.1]/a.wav', `64:ff9b::a00:1 is ${NAT64_PRIVATE}`],
      ['http://[64:ff9b::169.254.169.254]/latest/meta-data/', '64:ff9b::a9fe:a9fe is a rfc6052 address embedding 169.254.169.254, a cloud metadata address'],
      [`http://[2002:7f00:1::]:${port}/a.wav`, '2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback address'],
      ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/a.wav', '2001:0:4136:e378:8000:63bf:80ff:fffe is a teredo address embedding 127.0.0.1, a loopback address'],
      [`http://0x7f.1:${port}/a.wav`, '127.0.0.1 is a loopback address'],
    ];
    const answers = [];
    for (const [url] of cases) answers.push(await submit(key, url!));
    expect(answers.map((response) => [response.status, response.body.errors])).toEqual(
      cases.map(([, message]) => [400, [{ field: 'audio_url', code: 'url_blocked', message }]]),
    );
    expect(rec.hits.size).toBe(0);
  });

  it('a redirect to ::ffff:7f00:1 or ::127.0.0.1 is refused on the second hop', async () => {
    const { key } = await h.newTenant();
    const via = (target: string) => submit(key, `http://recordings.test:${port}/redirect?to=${encodeURIComponent(target)}`);
    const mapped = await via(`http://[::ffff:7f00:1]:${port}/ref.wav`);
    const compat = await via(`http://[::127.0.0.1]:${port}/ref.wav`);
    expect((await h.waitForCall(key, mapped.body.id)).body.error).toEqual({ code: 'url_blocked', status: 400, message: '::ffff:7f00:1 is a loopback address' });
    expect((await h.waitForCall(key, compat.body.id)).body.error).toEqual({ code: 'url_blocked', status: 400, message: `::7f00:1 is ${COMPAT_LOOPBACK}` });
    expect(rec.hits.get('/redirect')).toBe(2);
    expect(rec.hits.get('/ref.wav')).toBeUndefined();
  });

  it('a name resolving to 64:ff9b::a00:1 (NAT64 of 10.0.0.1) or ::7f00:1 fails the call with url_blocked', async () => {
    const { key } = await h.newTenant();
    const nat64 = await submit(key, `http://nat64.test:${port}/ref.wav`);
    const compat = await submit(key, `http://compat.test:${port}/ref.wav`);
    expect([nat64.status, compat.status]).toEqual([202, 202]);
    expect((await h.waitForCall(key, nat64.body.id)).body.error).toEqual({
      code: 'url_blocked',
      status: 400,
      message: `nat64.test is resolving to ${NAT64_PRIVATE} (64:ff9b::a00:1)`,
    });
    expect((await h.waitForCall(key, compat.body.id)).body.error.message).toBe(`compat.test is resolving to ${COMPAT_LOOPBACK} (::7f00:1)`);
  });

  it('the allowed host still works', async () => {
    const { key } = await h.newTenant();
    const ok = await submit(key, `http://recordings.test:${port}/ref.wav`);
    expect((await h.waitForCall(key, ok.body.id)).body.status).toBe('completed');
  });
});

describe('webhook endpoints', () => {
  it('are refused at registration', async () => {
    const { key } = await h.newTenant();
    const register = (url: string) => h.request('POST', '/v1/webhooks', { key, body: { url, events: ['attendance.check_in.created'] } });
    const compat = await register(`http://[::127.0.0.1]:${port}/hook`);
    const nat64 = await register('http://[64:ff9b::a00:1]/hook');
    expect([compat.status, compat.body.errors]).toEqual([400, [{ field: 'url', code: 'url_blocked', message: `::7f00:1 is ${COMPAT_LOOPBACK}` }]]);
    expect([nat64.status, nat64.body.errors]).toEqual([400, [{ field: 'url', code: 'url_blocked', message: `64:ff9b::a00:1 is ${NAT64_PRIVATE}` }]]);
  });

  it('are refused at delivery: a name resolving to NAT64 of 10.0.0.1, and a literal stored before the check', async () => {
    const { key } = await h.newTenant();
    const register = (url: string) => h.request('POST', '/v1/webhooks', { key, body: { url, events: ['attendance.check_in.created'] } });
    const nat64 = await register(`http://nat64.test:${port}/hook`);
    const stored = await register(`http://stored.test:${port}/hook`);
    expect([nat64.status, stored.status]).toEqual([201, 201]);
    await h.platform.pool.query('UPDATE calls_webhook_endpoints SET url = $1 WHERE url = $2', [`http://[::127.0.0.1]:${port}/hook`, stored.body.url]);
    await h.request('POST', '/v1/attendance/check-ins', { key, body: { operator_id: 'op' } });
    const attempts = async (id: string) =>
      eventually(async () => {
        const response = await h.request('GET', `/v1/webhooks/${id}/deliveries`, { key });
        const delivery = response.body.data[0];
        return delivery?.status === 'failed' ? delivery.attempt_log.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error]) : null;
      });
    expect(await attempts(nat64.body.id)).toEqual(Array(3).fill([null, `url_blocked: nat64.test is resolving to ${NAT64_PRIVATE} (64:ff9b::a00:1)`]));
    expect(await attempts(stored.body.id)).toEqual(Array(3).fill([null, `url_blocked: ::7f00:1 is ${COMPAT_LOOPBACK}`]));
    expect(rec.hits.get('/hook')).toBeUndefined();
  });
});

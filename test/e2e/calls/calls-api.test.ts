import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectReferenceTimings } from '../../helpers/calls/reference.js';
import { runCli, startTestHost, testEnv, type TestHost } from '../../helpers/platform.js';
import { callsEnv, dropQueueSchema } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

let host: TestHost;
let cliEnv: Record<string, string>;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;
const env = callsEnv();

beforeAll(async () => {
  rec = await startRecordingServer();
  host = await startTestHost(env);
  cliEnv = await testEnv();
});
afterAll(async () => {
  await host?.close();
  await rec?.close();
  await dropQueueSchema(env.CALLS_QUEUE_SCHEMA!);
});

async function api(method: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(host.host.apiUrl + path, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('the call-analysis API on CALLS_PORT, keys from the CLI', () => {
  it('key create prints {id, key, tenant}; the key analyses a call; key revoke stops it at once', async () => {
    const created = await runCli(['calls', 'key', 'create', '--tenant', 'acme-e2e', '--json'], cliEnv);
    expect(created.code).toBe(0);
    const printed = JSON.parse(created.stdout);
    expect(Object.keys(printed).sort()).toEqual(['id', 'key', 'tenant']);
    expect(printed.tenant).toBe('acme-e2e');
    expect(printed.key).toMatch(/^ca_live_[0-9A-Za-z]{38}$/);

    expect((await fetch(`${host.host.apiUrl}/health`)).status).toBe(200);
    const submitted = await api('POST', '/v1/calls/analyze', printed.key, { audio_url: `${rec.url}/ref.wav`, language: 'en-GB', operator_id: 'agent-1' });
    expect(submitted.status).toBe(202);
    let call = submitted.body;
    for (let i = 0; i < 200 && (call.status === 'queued' || call.status === 'processing'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      call = (await api('GET', `/v1/calls/${submitted.body.id}`, printed.key)).body;
    }
    expect(call.status).toBe('completed');
    expectReferenceTimings(call.result, 0);

    const revoked = await runCli(['calls', 'key', 'revoke', printed.id, '--json'], cliEnv);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: printed.id, tenant: 'acme-e2e' });
    const refused = await api('GET', `/v1/calls/${submitted.body.id}`, printed.key);
    expect([refused.status, refused.body.code]).toEqual([401, 'api_key_revoked']);
  });

  it('CLI errors: unknown key id, bad tenant, missing --tenant', async () => {
    const [unknown, badTenant, usage] = await Promise.all([
      runCli(['calls', 'key', 'revoke', 'key_nope', '--json'], cliEnv),
      runCli(['calls', 'key', 'create', '--tenant', 'no spaces', '--json'], cliEnv),
      runCli(['calls', 'key', 'create', '--json'], cliEnv),
    ]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({ error: { code: 'key_not_found', message: 'API key "key_nope" does not exist' } });
    expect(JSON.parse(badTenant.stdout).error.code).toBe('invalid_tenant');
    expect(JSON.parse(usage.stdout).error.code).toBe('usage');
  });
});

describe('the default policy (CALLS_ALLOW_PRIVATE_URLS unset)', () => {
  it('refuses a recording on 127.0.0.1 at submit', async () => {
    const strictEnv = callsEnv({ CALLS_ALLOW_PRIVATE_URLS: 'false', CALLS_CONCURRENCY: '0' });
    const strict = await startTestHost(strictEnv);
    try {
      const created = JSON.parse((await runCli(['calls', 'key', 'create', '--tenant', 'strict-e2e', '--json'], cliEnv)).stdout);
      const response = await fetch(`${strict.host.apiUrl}/v1/calls/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op' }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).errors).toEqual([{ field: 'audio_url', code: 'url_blocked', message: '127.0.0.1 is a loopback address' }]);
    } finally {
      await strict.close();
      await dropQueueSchema(strictEnv.CALLS_QUEUE_SCHEMA!);
    }
  });
});

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { installation, removeInstallation, serve, type Server } from '../helpers/serve-process.js';

/**
 * `gantry serve`'s start and stop as a deployment meets them. While it loads its projects, every
 * answer is 503 with an `X-Request-Id`. SIGTERM, as a rolling release sends it behind a load
 * balancer: for SHUTDOWN_DELAY_SECONDS the host keeps accepting and serving, readiness answers 503
 * `draining` (the balancer takes it out), and every answer closes its keep-alive connection (no idle
 * connection is cut under a client sending on it); then it stops. docs/deploying.md, "Releases
 * under load".
 */

// A start on the shared 2-core machine under other suites' load has taken over 90 s.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 300_000 });

const DELAY_S = 3;
let server: Server;
/** What the polling during the start saw before the host was ready: status, the id sent, the id answered. */
const starting: { status: number; sent: string | null; answered: string | undefined }[] = [];

/** Asks `url` as fast as answers come (alternately with and without an id) until it answers 200 or `running()` is false. */
async function pollWhile(url: string, running: () => boolean): Promise<void> {
  for (let i = 0; running(); i += 1) {
    const sent = i % 2 === 0 ? `starting-${i}` : null;
    const seen = await new Promise<{ status: number; answered: string | undefined } | null>((resolve) => {
      http.get(url, { agent: false, headers: sent === null ? {} : { 'x-request-id': sent } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, answered: res.headers['x-request-id'] as string | undefined }));
      }).on('error', () => resolve(null));
    });
    if (seen && seen.status === 503) starting.push({ ...seen, sent });
    if (seen && seen.status === 200) return;
    if (!seen) await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

beforeAll(async () => {
  const inst = await installation({ env: { SHUTDOWN_DELAY_SECONDS: String(DELAY_S) } });
  let started = false;
  const polling = pollWhile(`${inst.baseUrl}/health`, () => !started);
  server = await serve(inst, 240_000).finally(() => (started = true));
  await polling;
});
afterAll(async () => {
  await server?.stop().catch(() => undefined);
  if (server) await removeInstallation(server.inst);
});

interface Seen {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: unknown;
}

/** One GET on `agent` (keep-alive: the connection of an earlier request when one is idle). */
function get(url: string, agent: http.Agent, headers: Record<string, string> = {}): Promise<Seen> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text === '' ? null : JSON.parse(text) }));
    }).on('error', reject);
  });
}

describe('the start', () => {
  it('answers 503 with an X-Request-Id (the sent one, else one made) until its projects are loaded', () => {
    expect(starting.length).toBeGreaterThan(0);
    for (const seen of starting) expect(seen.answered).toEqual(seen.sent ?? expect.stringMatching(/^[0-9a-f-]{36}$/));
  });
});

describe('SIGTERM drains before it stops', () => {
  it('keeps serving for SHUTDOWN_DELAY_SECONDS with readiness 503 draining and Connection: close, then exits 0', async () => {
    const { baseUrl, apiUrl } = server.inst;
    const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const rows = `${baseUrl}/v1/demo/rest/v1/authors?select=id&limit=1`;
    const key = { apikey: server.anonKey };
    expect(await get(rows, kept, key)).toMatchObject({ status: 200, connection: 'keep-alive' });
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The connection that was idle at the signal still answers, and is closed after its answer.
    expect(await get(rows, kept, key)).toMatchObject({ status: 200, connection: 'close' });
    // New connections are still accepted, on both listeners; readiness says draining.
    const fresh = new http.Agent({ keepAlive: true });
    expect(await get(`${baseUrl}/health`, fresh)).toMatchObject({ status: 503, connection: 'close', body: { status: 'draining', checks: {} } });
    expect(await get(`${apiUrl}/health`, fresh)).toMatchObject({ status: 503, connection: 'close', body: { status: 'draining', checks: {} } });
    expect(await get(`${baseUrl}/health/live`, fresh)).toMatchObject({ status: 200, connection: 'close' });
    expect(await get(rows, fresh, key)).toMatchObject({ status: 200, connection: 'close' });
    expect(Date.now() - signalled).toBeLessThan(DELAY_S * 1000);

    expect(await server.exited, server.output()).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DELAY_S * 1000);
    await expect(get(`${baseUrl}/health/live`, new http.Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    kept.destroy();
    fresh.destroy();
  });
});

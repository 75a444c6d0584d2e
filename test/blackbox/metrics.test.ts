import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../runtime/platform/ports.js';
import { installation, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';

/**
 * `gantry serve` with ADMIN_PORT, as its own process: known traffic on the public port, then the
 * admin listener's scrape counts it exactly; liveness, readiness and project status beside it, and
 * none of it reachable through the public port.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server | null = null;
let adminUrl: string;

beforeAll(async () => {
  const adminPort = await freePort();
  adminUrl = `http://127.0.0.1:${adminPort}`;
  inst = await installation({ env: { ADMIN_PORT: String(adminPort) } });
  server = await serve(inst);
});
afterAll(async () => {
  if (server) expect(await server.stop(), server.output()).toBe(0);
  await removeInstallation(inst);
});

/** The value of one series of the scrape, 0 when absent. */
function sample(scrape: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of scrape.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    const parts = inner.split(',');
    if (parts.length === wanted.length && wanted.every((pair) => parts.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('the admin listener', () => {
  it('counts known traffic exactly, by project, API, status class and kind', async () => {
    const apikey = server!.anonKey;
    const rest = (path: string, init: RequestInit = {}) => fetch(`${inst.baseUrl}/v1/demo/rest/v1${path}`, { ...init, headers: { apikey, 'content-type': 'application/json', ...init.headers } });
    for (let i = 0; i < 5; i++) expect((await rest('/posts?select=id&limit=2')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await rest('/rpc/add_numbers', { method: 'POST', body: JSON.stringify({ a: i, b: 1 }) })).status).toBe(200);
    expect((await rest('/no_such_table')).status).toBe(404);
    expect((await rest('/todos', { method: 'POST', body: '{}' })).status).toBe(403);
    const signIn = await fetch(`${inst.baseUrl}/v1/demo/auth/v1/token?grant_type=password`, { method: 'POST', headers: { apikey, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password' }) });
    expect(signIn.status).toBe(400);
    expect((await fetch(`${inst.baseUrl}/v1/demo/auth/v1/settings`, { headers: { apikey } })).status).toBe(200);
    expect((await fetch(`${inst.baseUrl}/v1/demo/openapi.json`, { headers: { apikey } })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await fetch(`${inst.baseUrl}/v1/no-such-${i}/rest/v1/x`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const scrape = await (await fetch(`${adminUrl}/metrics`)).text();
    const requests = (api: string, status_class: string, ref = 'demo') => sample(scrape, 'gantry_http_requests_total', { ref, api, status_class });
    expect({
      rest2xx: requests('rest', '2xx'),
      rest4xx: requests('rest', '4xx'),
      auth2xx: requests('auth', '2xx'),
      auth4xx: requests('auth', '4xx'),
      docs2xx: requests('docs', '2xx'),
      // Unknown projects are counted under ref "" (a path must not make new series).
      unknown4xx: requests('rest', '4xx', ''),
      reads: sample(scrape, 'gantry_rest_transactions_total', { ref: 'demo', kind: 'read' }),
      writes: sample(scrape, 'gantry_rest_transactions_total', { ref: 'demo', kind: 'write' }),
      rpcs: sample(scrape, 'gantry_rest_transactions_total', { ref: 'demo', kind: 'rpc' }),
      unknownReads: sample(scrape, 'gantry_rest_transactions_total', { ref: '', kind: 'read' }),
      restLatencyCount: Number(/gantry_http_request_duration_seconds_count\{ref="demo",api="rest"\} (\d+)/.exec(scrape)?.[1]),
      signInFailures: sample(scrape, 'gantry_auth_sign_ins_total', { ref: 'demo', kind: 'password', outcome: 'failure' }),
      loaded: Number(/^gantry_projects_loaded (\d+)/m.exec(scrape)?.[1]),
    }).toEqual({ rest2xx: 8, rest4xx: 2, auth2xx: 1, auth4xx: 1, docs2xx: 1, unknown4xx: 4, reads: 6, writes: 1, rpcs: 3, unknownReads: 0, restLatencyCount: 10, signInFailures: 1, loaded: 1 });
    expect(scrape).not.toContain('no-such-');
    expect(scrape).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(scrape).toMatch(/^gantry_connection_budget\{state="capacity"\} 30$/m);
    expect(scrape).toMatch(/^gantry_calls_queue_depth\{queue="calls-analyze"\} 0$/m);
  });

  it('answers /live, /ready and project status; the public port serves none of it', async () => {
    expect([(await fetch(`${adminUrl}/live`)).status, (await fetch(`${adminUrl}/ready`)).status]).toEqual([200, 200]);
    const status = (await (await fetch(`${adminUrl}/projects/demo`)).json()) as Record<string, unknown>;
    expect(status).toEqual({ ref: 'demo', loaded: true, schema_version: expect.stringMatching(/^\d+:\d+:\d+/), fingerprint: expect.stringMatching(/^[0-9a-f]{16,}$/), connections: expect.any(Number) });
    expect((await fetch(`${adminUrl}/projects/nope`)).status).toBe(404);
    expect(((await (await fetch(`${adminUrl}/status`)).json()) as { projects: { ref: string }[] }).projects.map((p) => p.ref)).toEqual(['demo']);
    for (const path of ['/metrics', '/v1/demo/metrics', '/v1/demo/rest/v1/metrics', '/live', '/ready', '/status']) {
      const res = await fetch(`${inst.baseUrl}${path}`, { headers: { apikey: server!.anonKey } });
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});

import { afterAll, describe, expect, it, vi } from 'vitest';
import { installation, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';

/**
 * Two `gantry serve` started at the same moment on one fresh database (here: one embedded cluster
 * through a shared GANTRY_HOME, each with its own generated/ folder) both find no demo project and
 * race to create it; both must come up and serve it.
 */

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

let a: Installation;
let b: Installation;
let servers: Server[] = [];

afterAll(async () => {
  for (const server of servers) expect(await server.stop(), server.output()).toBe(0);
  await removeInstallation(b);
  await removeInstallation(a);
});

describe('two hosts starting at once on a fresh database', () => {
  it('both come up and serve the one demo project', async () => {
    a = await installation({ databaseUrl: null });
    b = await installation({ databaseUrl: null, env: { GANTRY_HOME: a.home } });
    servers = await Promise.all([serve(a), serve(b)]);
    const [keysA, keysB] = servers.map((server) => server.anonKey);
    expect(keysA).toBe(keysB);
    for (const inst of [a, b]) {
      const res = await fetch(`${inst.baseUrl}/v1/demo/rest/v1/authors?select=name&order=id&limit=1`, { headers: { apikey: keysA! } });
      expect([res.status, await res.json()]).toEqual([200, [{ name: 'Ada Lovelace' }]]);
    }
  });
});

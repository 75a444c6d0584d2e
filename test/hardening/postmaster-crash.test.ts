import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installation, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { observe, record } from './traffic.js';

/**
 * `kill -9` of the embedded postmaster while `gantry serve` has traffic: the server
 * restarts the cluster it owns (crash recovery), its pools reconnect, and every write
 * it acknowledged is still there.
 */
let inst: Installation;
let server: Server | null = null;

beforeAll(async () => {
  inst = await installation({ databaseUrl: null });
});
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await removeInstallation(inst);
});

const clusterState = async () => JSON.parse(await fs.readFile(path.join(inst.home, 'pg.json'), 'utf8')) as { port: number; postmasterPid: number };

async function demoNames(ids: readonly string[]): Promise<string[]> {
  const { port } = await clusterState();
  const password = (await fs.readFile(path.join(inst.home, 'pg.password'), 'utf8')).trim();
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'project_demo' });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('SELECT name FROM authors WHERE name = ANY($1) ORDER BY name', [ids])).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('the embedded PostgreSQL dies under traffic', () => {
  it('is restarted by the server, which answers again without losing an acknowledged write', async () => {
    server = await serve(inst);
    const base = `${inst.baseUrl}/v1/demo/rest/v1`;
    const anon = { apikey: server.anonKey };
    const service = { apikey: server.serviceKey, 'content-type': 'application/json', prefer: 'return=representation' };

    const seen = observe();
    let stop = false;
    let written = 0;
    const reader = async (): Promise<void> => {
      while (!stop) await record(seen, () => fetch(`${base}/posts?select=id&limit=1`, { headers: anon }));
    };
    const writer = async (): Promise<void> => {
      while (!stop) {
        const name = `crash-${process.pid}-${written++}`;
        await record(seen, () => fetch(`${base}/authors`, { method: 'POST', headers: service, body: JSON.stringify({ name }) }), () => name);
      }
    };
    const streams = [reader(), reader(), writer(), writer()];
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const { postmasterPid } = await clusterState();
    const killedAt = Date.now();
    process.kill(postmasterPid, 'SIGKILL');
    // Recovered: a new postmaster, and a read sent after it came up is answered.
    let recoveredAt: number | null = null;
    while (recoveredAt === null && Date.now() - killedAt < 60_000) {
      const state = await clusterState().catch(() => null);
      if (state && state.postmasterPid !== postmasterPid) {
        const res = await fetch(`${base}/posts?select=id&limit=1`, { headers: anon });
        if (res.status === 200) recoveredAt = Date.now();
      }
      if (recoveredAt === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    stop = true;
    await Promise.all(streams);

    expect(recoveredAt, `not recovered within 60 s; server said:\n${server.output()}`).not.toBeNull();
    console.info(`postmaster kill -9 -> data API answering again: ${recoveredAt! - killedAt} ms; statuses ${JSON.stringify([...seen.statuses])}`);
    // While PostgreSQL was gone: 503 with a code and Retry-After, never a 500 — the connection error (PGRST000), or,
    // for a request that finds the project being loaded again, the project not loadable yet (PGRST002).
    expect(seen.unexpected).toEqual([]);
    for (const answer of seen.unavailable) expect([{ code: 'PGRST000', retryAfter: '1' }, { code: 'PGRST002', retryAfter: '1' }]).toContainEqual(answer);
    expect(seen.acknowledged.length).toBeGreaterThan(0);
    expect(await demoNames(seen.acknowledged)).toEqual([...seen.acknowledged].sort());

    const health = await fetch(`${inst.baseUrl}/health`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok', checks: { database: 'ok', queue: 'ok' }, projects: 1 }]);

    expect(await server.stop()).toBe(0);
    server = null;
    // The server that restarted the cluster still stops it on the way out.
    await expect(fs.stat(path.join(inst.home, 'pg.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 240_000);
});

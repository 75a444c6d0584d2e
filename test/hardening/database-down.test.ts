import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { taskClient } from '../../runtime/db/pool-errors.js';
import { acquireCluster, type Cluster } from '../../runtime/platform/cluster.js';
import { PROJECTS_CHANNEL } from '../../runtime/platform/platform.js';
import { installation, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { pgCtl } from '../helpers/second-cluster.js';

/**
 * With DATABASE_URL, PostgreSQL is not the server's to restart: while it is down, /health
 * (both ports) is 503 and data requests are 503 with a code and Retry-After; when it is
 * back, the server reconnects by itself.
 */
let dbHome: string;
let cluster: Cluster;
let inst: Installation;
let server: Server | null = null;

beforeAll(async () => {
  dbHome = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-external-'));
  cluster = await acquireCluster(loadConfig({ DATABASE_URL: '', GANTRY_HOME: dbHome }), { settings: { fsync: 'off' } });
  inst = await installation({ databaseUrl: cluster.urlFor('postgres') });
});
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await cluster.release();
  await fs.rm(dbHome, { recursive: true, force: true });
  await removeInstallation(inst);
});

/** Backends LISTENing on the project registry: the servers' registry listeners. */
async function registryListeners(): Promise<number> {
  const client = taskClient(cluster.urlFor('postgres'));
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`, [`LISTEN ${PROJECTS_CHANNEL}`]);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

describe('PostgreSQL of DATABASE_URL goes down and comes back', () => {
  it('answers 503 (health and data) while it is down and serves again once it is back', async () => {
    server = await serve(inst);
    const bases = [inst.baseUrl, inst.apiUrl];
    const posts = `${inst.baseUrl}/v1/demo/rest/v1/posts?select=id&limit=1`;
    const anon = { apikey: server.anonKey };
    expect((await fetch(posts, { headers: anon })).status).toBe(200);

    const { port: pgPort } = JSON.parse(await fs.readFile(path.join(dbHome, 'pg.json'), 'utf8')) as { port: number };
    await pgCtl(['stop', '-D', cluster.dataDir!, '-m', 'fast', '-w']);

    const data = await fetch(posts, { headers: anon });
    expect([data.status, data.headers.get('retry-after'), await data.json()]).toEqual([503, '1',
      { code: 'PGRST000', message: 'Database connection error. Retrying the connection.', details: null, hint: null }]);
    const [hostHealth, callsHealth] = await Promise.all(bases.map((base) => fetch(`${base}/health`)));
    expect([hostHealth!.status, hostHealth!.headers.get('retry-after'), await hostHealth!.json()]).toEqual([503, '1',
      { status: 'unavailable', checks: { database: 'unavailable', queue: 'unavailable' }, projects: 1 }]);
    expect([callsHealth!.status, await callsHealth!.json()]).toEqual([503, {
      status: 'unavailable', checks: { database: 'unavailable', queue: 'unavailable' }, speech: { engines: [], chosen_by: 'setting' } }]);
    for (const base of bases) expect((await fetch(`${base}/health/live`)).status).toBe(200);

    await pgCtl(['start', '-D', cluster.dataDir!, '-l', path.join(dbHome, 'pg.log'), '-w', '-o',
      `-p ${pgPort} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off`]);
    const healthy = await waitFor('/health 200 on both ports', async () =>
      (await Promise.all(bases.map((base) => fetch(`${base}/health`)))).every((res) => res.status === 200));
    const serving = await waitFor('data API 200', async () => (await fetch(posts, { headers: anon })).status === 200);
    console.info(`PostgreSQL back -> /health 200 after ${healthy} ms, data API 200 after ${healthy + serving} ms`);

    // The cluster is this test's alone: its one LISTEN on the registry is the server's. Once it is back, a second
    // listener (opened by node-postgres reporting the lost one twice) would keep the server from exiting.
    await waitFor('registry listener back', async () => (await registryListeners()) > 0);
    expect(await server.stop()).toBe(0);
    server = null;
  }, 240_000);
});

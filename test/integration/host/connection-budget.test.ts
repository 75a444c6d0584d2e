import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.js';
import { acquireCluster, type Cluster } from '../../../runtime/platform/cluster.js';
import { createProject } from '../../../runtime/platform/bootstrap.js';
import { projectKeys } from '../../../runtime/platform/keys.js';
import type { ProjectRecord } from '../../../runtime/platform/platform.js';
import { startTestHost, type TestHost } from '../../helpers/platform.js';

/**
 * Many projects on one host against a PostgreSQL with max_connections=50: the proof
 * with 300 projects (about 70 s more than 60 would take); GANTRY_SCALE_PROJECTS sets another count.
 */
const PROJECTS = Number(process.env.GANTRY_SCALE_PROJECTS ?? 300);
const BUDGET = 20;
const SQL = `create table item (id int primary key, label text); insert into item values (1, 'kettle'); grant select on item to anon;`;

let home: string;
let cluster: Cluster;
let t: TestHost;
let records: ProjectRecord[] = [];
let monitor: pg.Client;

/** Runs `task` over `items`, `width` at a time. */
async function eachLimited<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  }));
  return results;
}

/** The host's connections to project databases (the monitor's own is on `postgres`; autovacuum workers are not clients). */
async function projectConnections(): Promise<number> {
  const { rows } = await monitor.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname LIKE 'project\\_%' AND backend_type = 'client backend'`,
  );
  return rows[0]!.n;
}

/** Samples projectConnections() every 20 ms until stopped; resolves to every sample. */
function sample(): { stop: () => Promise<number[]> } {
  const seen: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      seen.push(await projectConnections());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return seen;
    },
  };
}

function itemUrl(record: ProjectRecord, query = ''): string {
  return `${t.host.baseUrl}/v1/${record.ref}/rest/v1/item${query}`;
}

function anon(record: ProjectRecord): Record<string, string> {
  return { apikey: projectKeys(t.platform.config, record).anon_key };
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-budget-'));
  cluster = await acquireCluster(loadConfig({ GANTRY_HOME: home }), {
    settings: { max_connections: '50', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  t = await startTestHost({ DATABASE_URL: cluster.urlFor('postgres'), DB_MAX_CONNECTIONS: String(BUDGET) });
  monitor = new pg.Client(cluster.urlFor('postgres'));
  await monitor.connect();
  const started = Date.now();
  records = await eachLimited(Array.from({ length: PROJECTS }, (_, i) => `scale_${String(i).padStart(4, '0')}`), 4, (ref) =>
    createProject(t.platform, { ref, schemaFiles: [{ name: 'item.sql', sql: SQL }] }),
  );
  console.info(`created ${PROJECTS} projects in ${Date.now() - started} ms`);
}, 600_000);

afterAll(async () => {
  await monitor?.end();
  await t?.close();
  await cluster?.release();
  await fs.rm(home, { recursive: true, force: true });
});

describe(`${PROJECTS} projects, DB_MAX_CONNECTIONS=${BUDGET}, max_connections=50`, () => {
  it('serves a request to every project, never holding more project connections than the budget', async () => {
    const sampler = sample();
    const started = Date.now();
    const answers = await eachLimited(records, 8, async (record) => {
      const response = await fetch(itemUrl(record), { headers: anon(record) });
      return [response.status, await response.json()] as const;
    });
    const samples = await sampler.stop();
    console.info(`served ${PROJECTS} projects in ${Date.now() - started} ms; project connections sampled ${samples.length} times, max ${Math.max(...samples)}`);
    expect(answers).toEqual(records.map(() => [200, [{ id: 1, label: 'kettle' }]]));
    expect(samples.length).toBeGreaterThan(0);
    expect(Math.max(...samples)).toBeLessThanOrEqual(BUDGET);
    expect(await projectConnections()).toBeLessThanOrEqual(BUDGET);
  }, 600_000);

  it('serves a project migrated while it was unloaded with its new column on the first request', async () => {
    const unloaded = records.find((record) => !t.host.directory.refs().includes(record.ref));
    expect(unloaded).toBeDefined();
    const admin = new pg.Client(cluster.urlFor(unloaded!.databaseName));
    await admin.connect();
    try {
      await admin.query(`ALTER TABLE item ADD COLUMN colour text; UPDATE item SET colour = 'teal'`);
    } finally {
      await admin.end();
    }
    const response = await fetch(itemUrl(unloaded!, '?select=id,colour'), { headers: anon(unloaded!) });
    expect([response.status, await response.json()]).toEqual([200, [{ id: 1, colour: 'teal' }]]);
  }, 120_000);
});

describe('a full connection queue', () => {
  let small: TestHost;

  beforeAll(async () => {
    // 4 connections and 32 waiting: a burst of first requests to 60 projects overflows the queue.
    small = await startTestHost({ DATABASE_URL: cluster.urlFor('postgres'), DB_MAX_CONNECTIONS: '4' });
  }, 120_000);
  afterAll(async () => {
    await small?.close();
  });

  it('answers 503 PGRST003 with Retry-After to what does not fit, and serves every project once retried', async () => {
    const burst = records.slice(0, 60);
    const answers = await Promise.all(burst.map(async (record) => {
      const response = await fetch(`${small.host.baseUrl}/v1/${record.ref}/rest/v1/item?select=id,label`, { headers: anon(record) });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as unknown };
    }));
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer).toEqual({
        status: 503,
        retryAfter: '10',
        body: { code: 'PGRST003', message: 'Timed out acquiring connection from connection pool.', details: null, hint: null },
      });
    }
    for (const answer of answers.filter((a) => a.status !== 503)) expect(answer).toEqual({ status: 200, retryAfter: null, body: [{ id: 1, label: 'kettle' }] });
    for (const [index, answer] of answers.entries()) {
      if (answer.status !== 503) continue;
      const record = burst[index]!;
      const retried = await fetch(`${small.host.baseUrl}/v1/${record.ref}/rest/v1/item?select=id,label`, { headers: anon(record) });
      expect([retried.status, await retried.json()]).toEqual([200, [{ id: 1, label: 'kettle' }]]);
    }
  }, 300_000);
});

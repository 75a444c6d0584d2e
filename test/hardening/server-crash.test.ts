import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { acquireCluster } from '../../runtime/platform/cluster.js';
import { installation, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { observe, record } from './traffic.js';

/**
 * `kill -9` of the server process during a bulk insert: each request is one transaction,
 * so the bulk insert is all or nothing, and every write the server acknowledged is kept.
 */
const BULK_ROWS = 50_000;
let inst: Installation;
let server: Server | null = null;

beforeAll(async () => {
  inst = await installation({ databaseUrl: null });
});
afterAll(async () => {
  server?.child.kill('SIGKILL');
  // The killed server never released the embedded cluster: the last lease holder out stops it.
  const cluster = await acquireCluster(loadConfig({ DATABASE_URL: '', GANTRY_HOME: inst.home }));
  await cluster.release();
  await removeInstallation(inst);
});

async function demoDatabase(): Promise<pg.Client> {
  const { port } = JSON.parse(await fs.readFile(path.join(inst.home, 'pg.json'), 'utf8')) as { port: number };
  const password = (await fs.readFile(path.join(inst.home, 'pg.password'), 'utf8')).trim();
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'project_demo' });
  await client.connect();
  return client;
}

describe('the server process is killed during a bulk insert', () => {
  it('leaves the bulk insert all or nothing and every acknowledged write in place', async () => {
    server = await serve(inst);
    const authors = `${inst.baseUrl}/v1/demo/rest/v1/authors`;
    const headers = { apikey: server.serviceKey, 'content-type': 'application/json', prefer: 'return=representation' };

    const seen = observe();
    let written = 0;
    let killed = false;
    const writer = async (): Promise<void> => {
      while (!killed) {
        const name = `single-${written++}`;
        await record(seen, () => fetch(authors, { method: 'POST', headers, body: JSON.stringify({ name }) }), () => name);
      }
    };
    const writers = [writer(), writer()];
    await new Promise((resolve) => setTimeout(resolve, 500));

    const rows = Array.from({ length: BULK_ROWS }, (_, i) => ({ name: `bulk-${i}`, bio: 'x'.repeat(100) }));
    const bulk = fetch(authors, { method: 'POST', headers: { ...headers, prefer: 'return=minimal' }, body: JSON.stringify(rows) }).then(
      (res) => res.status,
      () => 'no answer' as const,
    );
    // Killed once PostgreSQL is running the insert (or, if it was too quick to be seen, after 10 s).
    const watcher = await demoDatabase();
    const watchUntil = Date.now() + 10_000;
    let seenRunning = false;
    while (!seenRunning && Date.now() < watchUntil) {
      // Running for a while: the bulk insert, not one of the single ones.
      const { rows: running } = await watcher.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = 'project_demo' AND state = 'active' AND query ILIKE '%INSERT INTO%authors%'
           AND pid <> pg_backend_pid() AND now() - query_start > interval '200 milliseconds'`,
      );
      seenRunning = running.length > 0;
    }
    await watcher.end();
    killed = true;
    server.child.kill('SIGKILL');
    await server.exited;
    server = null;
    const bulkAnswer = await bulk;
    await Promise.all(writers);

    const db = await demoDatabase();
    try {
      // A transaction fully sent before the kill may still be committing: wait for the backends to finish.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const { rows: busy } = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'project_demo' AND pid <> pg_backend_pid() AND state <> 'idle'`);
        if (busy[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const { rows: bulkRows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM authors WHERE name LIKE 'bulk-%'`);
      const inserted = bulkRows[0]!.n;
      console.info(`bulk insert of ${BULK_ROWS} rows, server killed ${seenRunning ? 'while PostgreSQL ran it' : 'before it was seen running'}: answer ${bulkAnswer}, ${inserted} rows in the table; ${seen.acknowledged.length} single inserts acknowledged`);
      expect([0, BULK_ROWS]).toContain(inserted);
      if (bulkAnswer === 201) expect(inserted).toBe(BULK_ROWS);

      expect(seen.acknowledged.length).toBeGreaterThan(0);
      const { rows: kept } = await db.query<{ name: string }>('SELECT name FROM authors WHERE name = ANY($1) ORDER BY name', [seen.acknowledged]);
      expect(kept.map((r) => r.name)).toEqual([...seen.acknowledged].sort());
    } finally {
      await db.end();
    }
  }, 240_000);
});

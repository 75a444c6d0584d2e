import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_WATCH_APPLICATION } from '../../../runtime/host/schema-watcher.js';
import { createTestProject, startTestHost, type TestHost } from '../../helpers/platform.js';

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost({}, { projectIdleMs: 300 });
});
afterAll(async () => {
  await t.close();
});

describe('idle projects', () => {
  it('are unloaded with their schema watch, and a schema change made meanwhile is served on the next request', async () => {
    const { record, keys } = await createTestProject(t.platform, { sql: 'create table a (id int primary key); grant select on a to anon;' });
    const url = `${t.host.baseUrl}/v1/${record.ref}/rest/v1/a`;
    const headers = { apikey: keys.anon_key };
    const admin = new pg.Client(t.platform.cluster.urlFor(record.databaseName));
    await admin.connect();
    const listening = async (): Promise<number> =>
      (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [SCHEMA_WATCH_APPLICATION])).rows[0]!.n;
    try {
      const first = await fetch(url, { headers });
      expect([first.status, await first.json()]).toEqual([200, []]);
      expect(await listening()).toBe(1);

      await expect.poll(() => t.host.directory.refs().includes(record.ref), { timeout: 5_000, interval: 50 }).toBe(false);
      await expect.poll(listening, { timeout: 5_000, interval: 50 }).toBe(0);

      // Nobody watches the project now: only its next load can notice this.
      await admin.query(`ALTER TABLE a ADD COLUMN label text; INSERT INTO a VALUES (1, 'kettle')`);
      const next = await fetch(`${url}?select=id,label`, { headers });
      expect([next.status, await next.json()]).toEqual([200, [{ id: 1, label: 'kettle' }]]);
      expect(t.host.directory.refs()).toContain(record.ref);
    } finally {
      await admin.end();
    }
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoundedPool } from '../../../runtime/db/bounded-pool.js';
import { ConnectionBudget } from '../../../runtime/db/connection-budget.js';
import type { RequestIdentity } from '../../../runtime/db/rls-transaction.js';
import { ProjectPools, type ProjectConnections } from '../../../runtime/host/pools.js';
import { Platform, type ProjectRecord } from '../../../runtime/platform/platform.js';
import { createTestProject, testConfig } from '../../helpers/platform.js';

let platform: Platform;
let a: ProjectRecord;
let b: ProjectRecord;
let monitor: pg.Client;
/** Connections open slowly on a loaded machine: counts are awaited, not timed. */
const POLL = { timeout: 30_000 };

const anon: RequestIdentity = {
  role: 'anon', claims: '{"role":"anon"}', method: 'POST', path: '/item', headers: '{}', cookies: '{}', searchPath: '"public"', timezone: null, preRequest: null, appSettings: [],
};

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
  a = (await createTestProject(platform)).record;
  b = (await createTestProject(platform)).record;
  monitor = new pg.Client(platform.cluster.urlFor('postgres'));
  await monitor.connect();
});
afterAll(async () => {
  await monitor.end();
  await platform.close();
});

/** Client backends connected to the project's database. */
async function connections(record: ProjectRecord): Promise<number> {
  const { rows } = await monitor.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
    [record.databaseName],
  );
  return rows[0]!.n;
}

/** A transaction that holds its pooled connection until released; `started` counts those that got one. */
function holder(entry: ProjectConnections, counter: { started: number }): { done: Promise<unknown>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const done = entry.executor.interactive(anon, { readOnly: true }, async (query) => {
    await query('SELECT 1', []);
    counter.started++;
    await held;
    return { commit: true, value: null };
  });
  return { done, release };
}

describe('pools that follow the load', () => {
  it('a queued project grows past its share while the budget has room, and gives a connection back to a project waiting for the budget', async () => {
    // Share 6: 3 pooled, 1 admin, 1 shared (+ the schema watch's one in the host); headroom 2 of 12.
    const budget = new ConnectionBudget({ max: 12, perOwner: 6, headroom: 2, maxWaiting: 50, maxWaitMs: 60_000 });
    const pools = new ProjectPools(budget, true, 1);
    const holders: { done: Promise<unknown>; release: () => void }[] = [];
    const urls = (record: ProjectRecord) => ({ api: platform.authenticatorUrl(record.databaseName), admin: platform.cluster.urlFor(record.databaseName) });
    try {
      const onA = { started: 0 };
      const heldA = Array.from({ length: 12 }, () => holder(pools.get(a.ref, urls(a)), onA));
      holders.push(...heldA);
      // Ten, not three: the pool grew while its transactions queued, up to the budget less its headroom.
      await expect.poll(() => onA.started, POLL).toBe(10);
      expect(await connections(a)).toBe(10);
      expect(budget.stats()).toEqual({ inUse: 10, waiting: 0, owners: 1 });

      const onB = { started: 0 };
      const heldB = Array.from({ length: 4 }, () => holder(pools.get(b.ref, urls(b)), onB));
      holders.push(...heldB);
      // The headroom serves B at once; its third connection waits for the budget.
      await expect.poll(() => onB.started, POLL).toBe(2);
      await expect.poll(() => budget.stats().waiting, POLL).toBe(1);
      expect(await connections(b)).toBe(2);

      // A's next hand-back closes the connection instead of serving A's own queue: B gets it.
      heldA[0]!.release();
      await expect.poll(() => onB.started, POLL).toBe(3);
      await expect.poll(() => connections(a), POLL).toBe(9);
      expect(await connections(b)).toBe(3);
      expect(onA.started).toBe(10);

      for (const h of holders) h.release();
      await Promise.all(holders.map((h) => h.done));
      expect([onA.started, onB.started]).toEqual([12, 4]);
    } finally {
      for (const h of holders) h.release();
      await pools.closeAll();
    }
  });

  it('a grown pool gives its extra connections back at the sweep after its busiest moment has passed', async () => {
    const pool = new BoundedPool(
      { connectionString: platform.cluster.urlFor(a.databaseName), max: 1 },
      { wait: { maxWaiting: 10, maxWaitMs: 60_000 }, growth: { ceiling: 4, budgetRoom: () => true, sweepMs: 0 } },
    );
    try {
      const clients = await Promise.all(Array.from({ length: 4 }, () => pool.connect()));
      expect([pool.size, pool.totalCount]).toEqual([4, 4]);
      // At the ceiling a fifth checkout waits.
      const fifth = pool.connect();
      await new Promise((resolve) => setImmediate(resolve));
      expect(pool.queued).toBe(1);
      for (const client of clients) client.release();
      (await fifth).release();
      expect([pool.totalCount, pool.idleCount]).toEqual([4, 4]);
      // The busiest moment since the last sweep needed four: they stay.
      pool.sweep();
      expect(pool.size).toBe(4);
      // Nothing since: back to the base.
      pool.sweep();
      expect(pool.size).toBe(1);
      await expect.poll(() => pool.totalCount, POLL).toBe(1);
      expect((await pool.query<{ n: number }>('SELECT 4 AS n')).rows).toEqual([{ n: 4 }]);
    } finally {
      await pool.end();
    }
  });
});

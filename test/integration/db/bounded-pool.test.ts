import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoundedPool } from '../../../runtime/db/bounded-pool.js';
import { ConnectionBudgetError } from '../../../runtime/db/connection-budget.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, testConfig } from '../../helpers/platform.js';

let platform: Platform;
let url: string;

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
  const { record } = await createTestProject(platform);
  url = platform.cluster.urlFor(record.databaseName);
});
afterAll(async () => {
  await platform.close();
});

/** The failure of a checkout, or null when it succeeded (its client is released). */
async function failureOf(pending: Promise<pg.PoolClient>): Promise<unknown> {
  try {
    (await pending).release();
    return null;
  } catch (error) {
    return error;
  }
}

describe('BoundedPool', () => {
  it('lets at most its bound wait; the next checkout fails at once with queue_full, then a waiter in line is served', async () => {
    const pool = new BoundedPool({ connectionString: url, max: 1 }, { wait: { maxWaiting: 2, maxWaitMs: 60_000 } });
    try {
      const held = await pool.connect();
      const waiting = [pool.connect(), pool.connect()];
      await new Promise((resolve) => setImmediate(resolve));
      expect(pool.queued).toBe(2);
      const refused = await failureOf(pool.connect());
      expect(refused).toBeInstanceOf(ConnectionBudgetError);
      expect(refused).toMatchObject({ code: 'PGRST003', reason: 'queue_full', retryAfterSeconds: 60 });
      // pool.query checks out through connect: bounded too.
      await expect(pool.query('SELECT 1')).rejects.toMatchObject({ reason: 'queue_full' });
      held.release();
      expect(await Promise.all(waiting.map(failureOf))).toEqual([null, null]);
      expect(pool.queued).toBe(0);
      expect((await pool.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it('fails a checkout that waited longer than maxWaitMs with timed_out, and frees its place', async () => {
    const pool = new BoundedPool({ connectionString: url, max: 1 }, { wait: { maxWaiting: 1, maxWaitMs: 200 } });
    try {
      const held = await pool.connect();
      expect(await failureOf(pool.connect())).toMatchObject({ code: 'PGRST003', reason: 'timed_out', retryAfterSeconds: 1 });
      expect(pool.queued).toBe(0);
      const next = pool.connect();
      held.release(true);
      expect(await failureOf(next)).toBeNull();
    } finally {
      await pool.end();
    }
  });

  it('closes a handed-back connection when yieldWhen says so, and sheds idle ones on demand', async () => {
    let yieldNow = true;
    const pool = new BoundedPool({ connectionString: url, max: 2 }, { wait: { maxWaiting: 1, maxWaitMs: 60_000 }, yieldWhen: () => yieldNow });
    try {
      (await pool.connect()).release();
      await expect.poll(() => pool.totalCount).toBe(0);
      yieldNow = false;
      const [a, b] = [await pool.connect(), await pool.connect()];
      a.release();
      b.release();
      expect([pool.totalCount, pool.idleCount]).toEqual([2, 2]);
      pool.shedIdle();
      await expect.poll(() => pool.totalCount).toBe(0);
      expect((await pool.query<{ n: number }>('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
    } finally {
      await pool.end();
    }
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionsClosedError } from '../../../runtime/db/connection-failure.js';
import { RlsExecutor, type RequestIdentity } from '../../../runtime/db/rls-transaction.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, testConfig } from '../../helpers/platform.js';

const SQL = `
  CREATE TABLE notes (id int PRIMARY KEY, owner uuid NOT NULL, body text NOT NULL);
  ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
  CREATE POLICY own ON notes TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
  INSERT INTO notes SELECT n, ('00000000-0000-0000-0000-' || lpad((n % 10)::text, 12, '0'))::uuid, 'note ' || n FROM generate_series(1, 100) n;
`;

let platform: Platform;
let executor: RlsExecutor;
let adminUrl: string;
let apiUrl: string;

const user = (n: number): RequestIdentity => ({
  role: 'authenticated',
  claims: JSON.stringify({ sub: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`, role: 'authenticated' }),
  method: 'GET',
  path: '/notes',
  headers: '{}',
  cookies: '{}',
  searchPath: '"public"',
  timezone: null,
  preRequest: null, appSettings: [],
});
const mine = { name: 'test_mine', text: `SELECT coalesce(json_agg(id ORDER BY id), '[]')::text AS ids, current_setting('request.method') AS method FROM notes`, values: [] };

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
  const { record } = await createTestProject(platform, { sql: SQL });
  apiUrl = platform.authenticatorUrl(record.databaseName);
  executor = new RlsExecutor(apiUrl, { shared: 2, pooled: 2 });
  adminUrl = platform.cluster.urlFor(record.databaseName);
});
afterAll(async () => {
  await executor.close();
  await platform.close();
});

describe('RlsExecutor', () => {
  it('runs each transaction under its own role and claims, even when 300 share two pipelined connections', async () => {
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => executor.run(user(i % 10), [mine], { readOnly: true })),
    );
    results.forEach(([result], i) => {
      const owner = i % 10;
      const expected = Array.from({ length: 100 }, (_, k) => k + 1).filter((n) => n % 10 === owner);
      expect(JSON.parse(result!.rows[0].ids)).toEqual(expected);
      expect(result!.rows[0].method).toBe('GET');
    });
  });

  it('anon sees nothing through RLS; a failing transaction changes nothing and its neighbours are unaffected', async () => {
    const anon = { ...user(1), role: 'anon', claims: '{"role":"anon"}' };
    const [none] = await executor.run(anon, [mine], { readOnly: true });
    expect(none!.rows[0].ids).toBe('[]');

    const insert = { name: 'test_insert', text: 'INSERT INTO notes (id, owner, body) VALUES ($1, $2, $3)', values: [1000, '00000000-0000-0000-0000-000000000001', 'x'] };
    const failing = { name: 'test_fail', text: 'SELECT 1/0', values: [] };
    const outcomes = await Promise.allSettled([
      executor.run(user(1), [insert, failing], { readOnly: false }),
      executor.run(user(2), [mine], { readOnly: true }),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(outcomes[1].status).toBe('fulfilled');
    const client = new pg.Client(adminUrl);
    await client.connect();
    const { rowCount } = await client.query('SELECT 1 FROM notes WHERE id = 1000');
    await client.end();
    expect(rowCount).toBe(0);
  });

  it('a read-only transaction refuses writes, and commitIf decides', async () => {
    const insert = (id: number) => ({ name: 'test_insert_returning', text: 'INSERT INTO notes (id, owner, body) VALUES ($1, $2, $3) RETURNING id', values: [id, '00000000-0000-0000-0000-000000000001', 'x'] });
    await expect(executor.run(user(1), [insert(2000)], { readOnly: true })).rejects.toMatchObject({ code: '25006' });
    const [rolledBack] = await executor.run(user(1), [insert(2001)], { readOnly: false, commitIf: () => false });
    expect(rolledBack!.rows).toEqual([{ id: 2001 }]);
    await executor.run(user(1), [insert(2002)], { readOnly: false, commitIf: () => true });
    const client = new pg.Client(adminUrl);
    await client.connect();
    const { rows } = await client.query('SELECT id FROM notes WHERE id >= 2000 ORDER BY id');
    await client.end();
    expect(rows).toEqual([{ id: 2002 }]);
  });

  it('with wait limits, bounds the transactions waiting for a shared slot or a pooled connection (ConnectionBudgetError)', async () => {
    const bounded = new RlsExecutor(apiUrl, { shared: 1, pooled: 1, maxInFlight: 1, wait: { maxWaiting: 1, maxWaitMs: 60_000 } });
    try {
      const slow = { name: 'test_slow', text: "SELECT pg_sleep(0.3)::text AS slept, 'slow' AS tag", values: [] };
      const outcome = (promise: Promise<pg.QueryResult[]>) => promise.then(() => 'ok', (error: { code?: string; reason?: string }) => `${error.code} ${error.reason}`);
      const reads = [slow, mine, mine].map((statement) => outcome(bounded.run(user(1), [statement], { readOnly: true })));
      const writes = [slow, mine, mine].map((statement) => outcome(bounded.run(user(1), [statement], { readOnly: false })));
      // One running and one waiting per kind; the third is refused at once.
      expect(await Promise.all([...reads, ...writes])).toEqual(['ok', 'ok', 'PGRST003 queue_full', 'ok', 'ok', 'PGRST003 queue_full']);
      expect(bounded.idle).toBe(true);
    } finally {
      await bounded.close();
    }
  });

  it('with maxInFlight, transactions wait in one queue instead of behind a slow one on its connection', async () => {
    const bounded = new RlsExecutor(apiUrl, { shared: 2, pooled: 2, maxInFlight: 1 });
    try {
      const slow = { name: 'test_slow', text: "SELECT pg_sleep(0.5)::text AS slept, 'slow' AS tag", values: [] };
      const finished: string[] = [];
      const track = (tag: string, promise: Promise<unknown>) => promise.then(() => finished.push(tag));
      // Unbounded, the third transaction would join the slow one's connection (both busiest at one).
      await Promise.all([
        track('slow', bounded.run(user(1), [slow], { readOnly: true })),
        ...[1, 2, 3, 4].map((n) => track(`fast${n}`, bounded.run(user(n), [mine], { readOnly: true }))),
      ]);
      expect(finished).toEqual(['fast1', 'fast2', 'fast3', 'fast4', 'slow']);
    } finally {
      await bounded.close();
    }
  });

  it('closes connections left idle, so a project nobody calls holds none, and opens them again on the next request', async () => {
    // Long enough that a loaded machine counts the connections before the sweep closes them.
    const idle = new RlsExecutor(apiUrl, { shared: 2, pooled: 2, idleMs: 1_000 });
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const open = async (): Promise<number> => {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND usename = 'authenticator'");
      return rows[0]!.n;
    };
    try {
      const before = await open();
      await Promise.all([
        idle.run(user(1), [mine], { readOnly: true }),
        idle.run(user(2), [mine], { readOnly: true }),
        idle.run(user(3), [mine], { readOnly: false }),
      ]);
      expect(await open()).toBe(before + 3);
      await expect.poll(open, { timeout: 5_000, interval: 50 }).toBe(before);
      const [result] = await idle.run(user(3), [mine], { readOnly: true });
      expect(result!.rows[0]).toEqual({ ids: '[3, 13, 23, 33, 43, 53, 63, 73, 83, 93]', method: 'GET' });
    } finally {
      await admin.end();
      await idle.close();
    }
  });

  it('without prepared statements (a transaction-mode pooler in front) prepares nothing on the connection and answers the same', async () => {
    const unnamed = new RlsExecutor(apiUrl, { shared: 1, pooled: 1, preparedStatements: false });
    const prepared = { name: 'test_prepared', text: 'SELECT count(*)::int AS n FROM pg_prepared_statements', values: [] };
    try {
      const runs = [];
      for (let i = 0; i < 3; i += 1) runs.push(await unnamed.run(user(4), [prepared, mine], { readOnly: true }));
      for (const [count, result] of runs) {
        expect(count!.rows[0]).toEqual({ n: 0 });
        expect(result!.rows[0]).toEqual({ ids: '[4, 14, 24, 34, 44, 54, 64, 74, 84, 94]', method: 'GET' });
      }
      // The same statements named: the connection keeps them (the set_config one, then this one).
      const named = new RlsExecutor(apiUrl, { shared: 1, pooled: 1 });
      try {
        await named.run(user(4), [prepared], { readOnly: true });
        const [count] = await named.run(user(4), [prepared], { readOnly: true });
        expect(count!.rows[0]).toEqual({ n: 2 });
      } finally {
        await named.close();
      }
    } finally {
      await unnamed.close();
    }
  });

  it('once closed, refuses a transaction with ConnectionsClosedError (answered 503 and retried), having sent nothing', async () => {
    const closing = new RlsExecutor(apiUrl, { shared: 1, pooled: 1 });
    await closing.close();
    await expect(closing.run(user(1), [mine], { readOnly: true })).rejects.toBeInstanceOf(ConnectionsClosedError);
  });

  it('refuses a maxInFlight below one', () => {
    expect(() => new RlsExecutor(apiUrl, { shared: 2, pooled: 2, maxInFlight: 0 })).toThrow(RangeError);
  });
});

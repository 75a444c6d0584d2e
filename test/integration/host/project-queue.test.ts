import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

/**
 * Requests waiting for one project's own connections: with DB_MAX_CONNECTIONS=12 a project's
 * share is 4 (pool-sizes.ts): one shared data connection (12 transactions in flight), one pooled,
 * one admin connection, the schema watch; the pooled and admin pools grow past that while requests
 * queue and the budget has room (pool-growth.ts). 1,000 may wait per project pool (budget-limits.ts).
 */
const ADMIN_CONNECTIONS = 1;
const SHARED_SLOTS = 12;
const WAITING_PER_POOL = 1_000;

const SQL = `create table item (id int primary key, label text); insert into item values (1, 'kettle'); grant select on item to anon;`;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: unknown;
}

async function answer(response: Promise<Response>): Promise<Answer> {
  const r = await response;
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as unknown };
}

/** Resolves once `count` of `answers` have settled. */
function settled(answers: readonly Promise<unknown>[], count: number): Promise<void> {
  let done = 0;
  return new Promise((resolve) => {
    for (const a of answers) void a.finally(() => ++done === count && resolve());
  });
}

/** A session holding an ACCESS EXCLUSIVE lock on `table` of `project`: every statement touching it waits. */
async function lock(t: TestHost, project: TestProject, table: string): Promise<pg.Client> {
  const client = new pg.Client(t.platform.cluster.urlFor(project.record.databaseName));
  await client.connect();
  await client.query(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return client;
}

/** Sessions of `project`'s database waiting for a lock. */
async function lockWaiters(t: TestHost, project: TestProject): Promise<number> {
  const { rows } = await t.platform.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
    [project.record.databaseName],
  );
  return rows[0]!.n;
}

async function unlock(client: pg.Client): Promise<void> {
  await client.query('ROLLBACK');
  await client.end();
}

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost({ DB_MAX_CONNECTIONS: '12' });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('a project whose own connections are all busy', () => {
  it('queues data API requests within a bound and answers the rest 503 PGRST003 with Retry-After', async () => {
    const project = await createTestProject(t.platform, { sql: SQL, host: t.host });
    const url = `${project.url}/rest/v1/item?select=id,label`;
    const headers = { apikey: project.keys.anon_key };
    expect(await answer(fetch(url, { headers }))).toEqual({ status: 200, retryAfter: null, body: [{ id: 1, label: 'kettle' }] });

    const held = await lock(t, project, 'item');
    const fits = SHARED_SLOTS + WAITING_PER_POOL;
    const overflow = 10;
    const answers = Array.from({ length: fits + overflow }, () => answer(fetch(url, { headers })));
    // The overflow is refused at once, while everything else still waits for the lock.
    await settled(answers, overflow);
    await unlock(held);
    const all = await Promise.all(answers);
    const refused = all.filter((a) => a.status === 503);
    expect(refused).toEqual(Array.from({ length: overflow }, () => ({
      status: 503,
      retryAfter: '10',
      body: { code: 'PGRST003', message: 'Timed out acquiring connection from connection pool.', details: null, hint: null },
    })));
    expect(all.filter((a) => a.status !== 503)).toEqual(Array.from({ length: fits }, () => ({ status: 200, retryAfter: null, body: [{ id: 1, label: 'kettle' }] })));
  }, 60_000);

  it('queues auth requests within a bound and answers the rest 503 request_timeout with Retry-After', async () => {
    const project = await createTestProject(t.platform, { host: t.host });
    const headers = { apikey: project.keys.service_key, authorization: `Bearer ${project.keys.service_key}`, 'content-type': 'application/json' };
    const created = await fetch(`${project.url}/auth/v1/admin/users`, { method: 'POST', headers, body: JSON.stringify({ email: 'queued@example.com' }) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    // One query per request, on the admin pool.
    const url = `${project.url}/auth/v1/admin/users/${id}`;

    const held = await lock(t, project, 'auth.users');
    const overflow = 20;
    const total = ADMIN_CONNECTIONS + WAITING_PER_POOL + overflow;
    const answers = Array.from({ length: total }, () => answer(fetch(url, { headers })));
    let early = 0;
    for (const a of answers) void a.then(() => early++);
    // The admin pool grows while its requests queue, as far as the budget lets it: each connection it
    // opened waits on the lock, 1,000 more requests wait for one of them, and the rest are refused at once.
    await expect.poll(async () => early + (await lockWaiters(t, project)), { timeout: 30_000 }).toBe(total - WAITING_PER_POOL);
    const grown = await lockWaiters(t, project);
    expect(grown).toBeGreaterThan(ADMIN_CONNECTIONS);
    await unlock(held);
    const all = await Promise.all(answers);
    expect(all.filter((a) => a.status === 503)).toEqual(Array.from({ length: total - WAITING_PER_POOL - grown }, () => ({
      status: 503,
      retryAfter: '10',
      body: { code: 503, error_code: 'request_timeout', msg: 'Processing this request timed out, please retry after a moment.' },
    })));
    expect(all.filter((a) => a.status !== 503).map((a) => [a.status, (a.body as { email: string }).email])).toEqual(
      Array.from({ length: WAITING_PER_POOL + grown }, () => [200, 'queued@example.com']),
    );
  }, 60_000);
});

describe('a busy project beside an idle one, on a budget of 4 connections', () => {
  let small: TestHost;

  beforeAll(async () => {
    small = await startTestHost({ DB_MAX_CONNECTIONS: '4' });
  }, 120_000);
  afterAll(async () => {
    await small?.close();
  });

  it('hands connections back while the other waits, so the other is served, not refused', async () => {
    const busy = await createTestProject(small.platform, { sql: SQL, host: small.host });
    const other = await createTestProject(small.platform, { sql: SQL, host: small.host });
    const read = (project: TestProject) => answer(fetch(`${project.url}/rest/v1/item?select=id,label`, { headers: { apikey: project.keys.anon_key } }));
    const served = { status: 200, retryAfter: null, body: [{ id: 1, label: 'kettle' }] };

    let running = true;
    const busyAnswers: Answer[] = [];
    // Three clients in a loop: the busy project always has a request waiting or running.
    const load = Promise.all(Array.from({ length: 3 }, async () => {
      while (running) busyAnswers.push(await read(busy));
    }));
    await expect.poll(() => busyAnswers.length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(5);
    const otherAnswers: Answer[] = [];
    for (let i = 0; i < 5; i++) otherAnswers.push(await read(other));
    running = false;
    await load;
    expect(otherAnswers).toEqual(Array.from({ length: 5 }, () => served));
    expect(busyAnswers.filter((a) => a.status !== 200)).toEqual([]);
  }, 60_000);
});

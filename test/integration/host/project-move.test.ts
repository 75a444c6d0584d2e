import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveFingerprint } from '../../../generator/generate.js';
import { moveProject } from '../../../generator/migrations/move.js';
import { createProjectWithHistory } from '../../../generator/migrations/create.js';
import { createProject } from '../../../runtime/platform/bootstrap.js';
import { projectKeys } from '../../../runtime/platform/keys.js';
import { randomRef, runCli, startTestHost, type TestHost } from '../../helpers/platform.js';
import { countingCodeSync } from '../../helpers/counting-code-sync.js';
import { startSecondCluster, type SecondCluster } from '../../helpers/second-cluster.js';

/**
 * A project moved from the suite's cluster to a second embedded one while writers insert rows through
 * the data API (retrying on 503): every acknowledged row is on the new cluster afterwards, the
 * interruption is a pause of writes, the old database is kept read-only until `--confirm`.
 */
let second: SecondCluster;
let t: TestHost;

/** The refs whose schema the host introspected, in order. */
const introspected: string[] = [];

const counting = countingCodeSync(introspected);

beforeAll(async () => {
  second = await startSecondCluster();
  t = await startTestHost(second.env('eu'), { code: counting });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await second?.release();
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Writer {
  attempts: number;
  acknowledged: number[];
  refusals: string[];
  retries: number;
  /** When each acknowledgement came (ms since the epoch). */
  ackTimes: number[];
}

describe('project move', () => {
  it('moves a project under writes: no acknowledged row lost, writes paused for a bounded time', async () => {
    // Created with its history in migrations/<ref>/, which the move builds the new database from.
    const { record } = await createProjectWithHistory(t.platform, {
      ref: randomRef(),
      cluster: 'default',
      schemaFiles: [{ name: 'items.sql', sql: `create table items (id bigint generated always as identity primary key, n int not null unique, note text);
            insert into items (n, note) select -g, 'seeded' from generate_series(1, 500) g;` }],
    });
    const project = { record, keys: projectKeys(t.platform.config, record) };
    const key = project.keys.service_key;
    const headers = { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Prefer: 'return=minimal' };
    const url = `${t.host.baseUrl}/v1/${project.record.ref}/rest/v1/items`;
    expect((await fetch(url, { headers })).status).toBe(200);

    const writer: Writer = { attempts: 0, acknowledged: [], refusals: [], retries: 0, ackTimes: [] };
    let next = 0;
    let stop = false;
    const write = async (): Promise<void> => {
      while (!stop) {
        const n = next++;
        for (;;) {
          writer.attempts++;
          const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ n, note: `w${n}` }) });
          if (res.status === 201) {
            writer.acknowledged.push(n);
            writer.ackTimes.push(Date.now());
            break;
          }
          const body = await res.text();
          if (res.status !== 503 || res.headers.get('retry-after') === null) {
            writer.refusals.push(`${res.status} ${body}`);
            break;
          }
          writer.retries++;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
    };
    const writers = [write(), write()];
    let report: Awaited<ReturnType<typeof moveProject>>;
    try {
      await new Promise((resolve) => setTimeout(resolve, 400));
      report = await moveProject(t.platform, project.record, 'eu', liveFingerprint);
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      stop = true;
      await Promise.all(writers);
    }

    const moved = (await t.platform.getProject(project.record.ref))!;
    expect([moved.cluster, moved.movingTo, moved.movedFrom]).toEqual(['eu', null, 'default']);
    const found = await query<{ n: number }>(second.cluster.urlFor(project.record.databaseName), 'SELECT n FROM items WHERE n >= 0 ORDER BY n');
    const seeded = await query<{ count: number }>(second.cluster.urlFor(project.record.databaseName), 'SELECT count(*)::int AS count FROM items WHERE n < 0');
    const gaps = writer.ackTimes.slice(1).map((at, i) => at - writer.ackTimes[i]!);
    console.info(
      `move ${report.from} -> ${report.to}: ${report.copied.rows} rows copied of ${report.copied.tables} tables, writes paused ${report.paused_ms} ms (registry); ` +
        `writers: ${writer.attempts} attempts, ${writer.acknowledged.length} acknowledged, ${writer.retries} retried after 503, ` +
        `${found.length} found afterwards; longest gap between acknowledged writes ${Math.max(...gaps)} ms`,
    );
    expect(writer.refusals).toEqual([]);
    expect(writer.retries).toBeGreaterThan(0);
    const foundSet = new Set(found.map((row) => row.n));
    expect(writer.acknowledged.filter((n) => !foundSet.has(n))).toEqual([]);
    expect(seeded[0]!.count).toBe(500);
    expect(report.paused_ms).toBeLessThan(10_000);
    // Writes after the switch reached the new cluster (the identity sequence was copied, or they would collide).
    expect(writer.ackTimes.some((at) => at > Date.now() - 600)).toBe(true);

    // The old database is kept, read-only, until --confirm drops it.
    const old = t.platform.cluster.urlFor(project.record.databaseName);
    expect((await query<{ ro: string }>(old, "SELECT current_setting('default_transaction_read_only') AS ro"))[0]!.ro).toBe('on');
    const confirmed = await runCli(['project', 'move', project.record.ref, '--confirm', '--json'], t.env);
    expect([confirmed.code, JSON.parse(confirmed.stdout)]).toEqual([0, { ref: project.record.ref, dropped: { cluster: 'default', databaseName: project.record.databaseName } }]);
    expect(await query(t.platform.cluster.urlFor('postgres'), `SELECT 1 FROM pg_database WHERE datname = '${project.record.databaseName}'`)).toEqual([]);
  }, 60_000);

  it('project delete of a project whose kept old database is on a cluster no longer declared refuses whole, and deletes once it is declared again', async () => {
    // As after `project move --to default` from eu, unconfirmed: the old database kept on eu.
    const record = await createProject(t.platform, { ref: randomRef(), cluster: 'default', schemaFiles: [] });
    await query(second.cluster.urlFor('postgres'), `CREATE DATABASE ${record.databaseName}`);
    await t.platform.pool.query(`UPDATE projects SET moved_from = 'eu' WHERE ref = $1`, [record.ref]);
    const exists = async (url: string): Promise<boolean> =>
      (await query(url, `SELECT 1 FROM pg_database WHERE datname = '${record.databaseName}'`)).length === 1;

    const refused = await runCli(['project', 'delete', record.ref, '--json'], { ...t.env, GANTRY_CLUSTERS: '' });
    expect([refused.code, JSON.parse(refused.stdout)]).toEqual([1, { error: { code: 'unknown_cluster', message:
      `unknown cluster "eu": the clusters are "default" (GANTRY_CLUSTERS declares the others than "default"); project "${record.ref}" keeps a copy of its database (${record.databaseName}) there: declare the cluster again to delete the project; nothing was changed` } }]);
    expect(refused.stderr).not.toContain('    at ');
    expect((await t.platform.getProject(record.ref))?.movedFrom).toBe('eu');
    expect([await exists(t.platform.cluster.urlFor('postgres')), await exists(second.cluster.urlFor('postgres'))]).toEqual([true, true]);

    const deleted = await runCli(['project', 'delete', record.ref, '--json'], t.env);
    expect([deleted.code, JSON.parse(deleted.stdout)]).toEqual([0, { ref: record.ref, deleted: true }]);
    expect(await t.platform.getProject(record.ref)).toBeNull();
    expect([await exists(t.platform.cluster.urlFor('postgres')), await exists(second.cluster.urlFor('postgres'))]).toEqual([false, false]);
  }, 60_000);

  it('refuses to move a project holding large objects (move_large_objects), which the copy would leave behind: nothing paused, built or switched', async () => {
    const { record } = await createProjectWithHistory(t.platform, { ref: randomRef(), cluster: 'default', schemaFiles: [{ name: 'files.sql', sql: 'create table files (id int primary key, blob oid);' }] });
    await query(t.platform.projectUrl(record), `INSERT INTO files VALUES (1, lo_from_bytea(0, 'scan'))`);
    const refused = await runCli(['project', 'move', record.ref, '--to', 'eu', '--json'], t.env);
    expect([refused.code, JSON.parse(refused.stdout)]).toEqual([1, { error: { code: 'move_large_objects', message:
      `${record.ref} holds 1 large object(s) (pg_largeobject), which a move does not copy: store them in a bytea column (or elsewhere) and remove them first; nothing was moved` } }]);
    const after = (await t.platform.getProject(record.ref))!;
    expect([after.cluster, after.movingTo, after.movedFrom]).toEqual(['default', null, null]);
    expect(await query(second.cluster.urlFor('postgres'), `SELECT 1 FROM pg_database WHERE datname = '${record.databaseName}'`)).toEqual([]);
    expect(await query(t.platform.projectUrl(record), 'SELECT count(*)::int AS n FROM pg_largeobject_metadata')).toEqual([{ n: 1 }]);
  }, 60_000);

  it('serves a moved project on its new cluster without introspecting it again, and refuses a live schema its migrations do not build (move_schema_differs)', async () => {
    const { record } = await createProjectWithHistory(t.platform, { ref: randomRef(), cluster: 'default', schemaFiles: [{ name: 'items.sql', sql: 'create table items (id int primary key, note text);' }] });
    const key = projectKeys(t.platform.config, record).service_key;
    const headers = { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const url = `${t.host.baseUrl}/v1/${record.ref}`;
    expect((await fetch(`${url}/rest/v1/items`, { headers })).status).toBe(200);
    expect(introspected.filter((ref) => ref === record.ref)).toEqual([record.ref]);

    // A function made by hand, not in migrations/: the move would lose it, so it is refused before any pause.
    await query(t.platform.projectUrl(record), `create function public.hello() returns int language sql as 'select 1'`);
    // The host saw each change (and introspected for it) before what counts: the move below.
    const rpcAnswers = async (status: number): Promise<void> => {
      const call = async (): Promise<number> => (await fetch(`${url}/rest/v1/rpc/hello`, { method: 'POST', headers })).status;
      for (let i = 0; i < 200 && (await call()) !== status; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await call()).toBe(status);
    };
    await rpcAnswers(200);
    await expect(moveProject(t.platform, (await t.platform.getProject(record.ref))!, 'eu', liveFingerprint)).rejects.toMatchObject({ code: 'move_schema_differs' });
    expect((await t.platform.getProject(record.ref))!.cluster).toBe('default');
    // The host's reload for the drop (a call answers 404 before it too: PostgreSQL no longer has the function).
    const seen = introspected.length;
    await query(t.platform.projectUrl(record), 'drop function public.hello()');
    for (let i = 0; i < 200 && introspected.length === seen; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await rpcAnswers(404);
    const before = introspected.length;

    await moveProject(t.platform, (await t.platform.getProject(record.ref))!, 'eu', liveFingerprint);
    let written = 0;
    for (let i = 0; i < 200 && written !== 201; i++) {
      written = (await fetch(`${url}/rest/v1/items`, { method: 'POST', headers, body: JSON.stringify({ id: 1, note: 'moved' }) })).status;
      if (written !== 201) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(written).toBe(201);
    expect(await query(second.cluster.urlFor(record.databaseName), 'SELECT id, note FROM items')).toEqual([{ id: 1, note: 'moved' }]);
    expect(introspected.slice(before)).toEqual([]);
  }, 60_000);
});

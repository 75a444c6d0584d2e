import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeProject } from '../../../runtime/platform/bootstrap.js';
import { createTestProject, randomRef, runCli, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { startSecondCluster, type SecondCluster } from '../../helpers/second-cluster.js';

/**
 * Projects on two clusters served by one host: the suite's cluster (`default`, which holds the
 * registry) and a second embedded cluster declared as `eu`. Each project's database lives on its
 * cluster; the host connects to `eu` only once it serves a project of it; `eu` going away makes its
 * projects answer 503 + Retry-After while the other cluster's are served, until it is back.
 */
let second: SecondCluster;
let t: TestHost;
let home: TestProject;
let away: TestProject;
const SQL = 'create table items (id int primary key, note text);';

beforeAll(async () => {
  second = await startSecondCluster();
  t = await startTestHost(second.env('eu'));
  home = await createTestProject(t.platform, { sql: SQL, cluster: 'default' });
  away = await createTestProject(t.platform, { sql: SQL, cluster: 'eu' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await second?.release();
});

/** Client connections to the second cluster, from anyone but the one asking. */
async function connectionsToSecond(): Promise<number> {
  const client = new pg.Client(second.cluster.urlFor('postgres'));
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function databaseExists(url: string, name: string): Promise<boolean> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

function rest(project: TestProject, path: string, init: RequestInit = {}): Promise<Response> {
  const key = project.keys.service_key;
  return fetch(`${t.host.baseUrl}/v1/${project.record.ref}/rest/v1${path}`, {
    ...init,
    headers: { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) },
  });
}

describe('projects on several clusters', () => {
  it('places each database on its cluster, records the cluster, and connects to a cluster only while serving it', async () => {
    expect([home.record.cluster, away.record.cluster]).toEqual(['default', 'eu']);
    expect(await databaseExists(second.cluster.urlFor('postgres'), away.record.databaseName)).toBe(true);
    expect(await databaseExists(t.platform.cluster.urlFor('postgres'), away.record.databaseName)).toBe(false);
    expect(await connectionsToSecond()).toBe(0);

    const insert = await rest(away, '/items', { method: 'POST', body: JSON.stringify({ id: 1, note: 'eu' }) });
    expect(insert.status).toBe(201);
    const read = await rest(away, '/items?select=id,note');
    expect([read.status, await read.json()]).toEqual([200, [{ id: 1, note: 'eu' }]]);
    expect(await connectionsToSecond()).toBeGreaterThan(0);

    // Fewest projects: `eu` holds one, the suite's cluster at least two (other test files add more, never fewer).
    await createTestProject(t.platform, { cluster: 'default' });
    expect(await placeProject(t.platform)).toBe('eu');
  });

  it('refuses an unknown cluster (create, move) with unknown_cluster, and lists each project with its cluster', async () => {
    const refused = await runCli(['project', 'create', randomRef(), '--cluster', 'mars', '--json'], t.env);
    expect([refused.code, JSON.parse(refused.stdout).error.code]).toEqual([1, 'unknown_cluster']);
    const move = await runCli(['project', 'move', away.record.ref, '--to', 'mars', '--json'], t.env);
    expect([move.code, JSON.parse(move.stdout).error.code]).toEqual([1, 'unknown_cluster']);
    const listed = await runCli(['project', 'list', '--json'], t.env);
    const projects = (JSON.parse(listed.stdout) as { projects: { ref: string; cluster: string }[] }).projects;
    expect(projects.filter((p) => p.ref === home.record.ref || p.ref === away.record.ref).map((p) => [p.ref, p.cluster]).sort())
      .toEqual([[home.record.ref, 'default'], [away.record.ref, 'eu']].sort());
  }, 40_000);

  it('answers 503 + Retry-After for the projects of a cluster that went away, serves the others, and recovers', async () => {
    expect((await rest(home, '/items')).status).toBe(200);
    await second.stop();
    try {
      const down = await rest(away, '/items?select=id');
      const body = (await down.json()) as { code: string };
      console.info(`cluster eu down: ${down.status} ${body.code} Retry-After ${down.headers.get('retry-after')}`);
      expect([down.status, down.headers.get('retry-after')]).toEqual([503, '1']);
      expect(body.code).toBe('PGRST000');
      const write = await rest(away, '/items', { method: 'POST', body: JSON.stringify({ id: 2, note: 'while down' }) });
      expect([write.status, write.headers.get('retry-after')]).toEqual([503, '1']);
      const other = await rest(home, '/items', { method: 'POST', body: JSON.stringify({ id: 1, note: 'default' }) });
      expect(other.status).toBe(201);
    } finally {
      await second.start();
    }
    const started = Date.now();
    await expect.poll(async () => (await rest(away, '/items?select=id')).status, { timeout: 20_000, interval: 100 }).toBe(200);
    console.info(`cluster eu back: data API 200 after ${Date.now() - started} ms`);
    const read = await rest(away, '/items?select=id,note');
    expect(await read.json()).toEqual([{ id: 1, note: 'eu' }]);
  }, 40_000);
});

import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { eventually, request, sqlFile } from '../helpers/blackbox-projects.js';

/**
 * `gantry serve` as a user runs it with nothing set up: its own embedded cluster under
 * GANTRY_HOME (no DATABASE_URL), real ports, signals; the CLI beside it shares that
 * cluster through GANTRY_HOME/pg.json. The platform here holds only this file's
 * projects, so the commands over every project (`gen --all`, `gen --check --live`) run here.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server | null = null;

const pgState = async () => JSON.parse(await fs.readFile(path.join(inst.home, 'pg.json'), 'utf8')) as { port: number };

/** A superuser query on a database of the running embedded cluster, as psql would run it. */
async function query(database: string, sql: string): Promise<unknown[]> {
  const password = (await fs.readFile(path.join(inst.home, 'pg.password'), 'utf8')).trim();
  const client = new pg.Client({ host: '127.0.0.1', port: (await pgState()).port, user: 'postgres', password, database });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

interface GenReport {
  check: boolean;
  projects: { ref: string; changed: string[]; removed: string[] }[];
}

beforeAll(async () => {
  // Info-level logs: the restart below tells from them which projects were introspected.
  inst = await installation({ databaseUrl: null, env: { LOG_LEVEL: 'info' } });
  server = await serve(inst);
});
afterAll(async () => {
  if (server) expect(await server.stop(), server.output()).toBe(0);
  await removeInstallation(inst);
});

describe('gantry serve on its own embedded cluster', () => {
  it('creates the demo project on first start, prints the urls and the demo keys, and shares its cluster with the CLI', async () => {
    expect(server!.output()).toContain(`base_url:    ${inst.baseUrl}\n`);
    expect(server!.output()).toContain(`api_url:     ${inst.apiUrl}\n`);
    expect(server!.output()).toContain(`demo url:    ${inst.baseUrl}/v1/demo\n`);
    const state = await pgState();
    const keys = await cli(['project', 'keys', 'demo', '--json'], inst.env);
    expect(keys.code).toBe(0);
    const demo = jsonObject(keys) as { anon_key: string; url: string };
    expect(demo.url).toBe(`${inst.baseUrl}/v1/demo`);
    expect(server!.output()).toContain(`anon_key:    ${demo.anon_key}\n`);
    expect(await pgState()).toEqual(state);
    const authors = await request(`${demo.url}/rest/v1/authors?select=id&limit=1`, { headers: { apikey: demo.anon_key } });
    expect(authors.status).toBe(200);
  });

  it('serves a project the CLI created through the shared cluster within 2 s', async () => {
    const schema = await sqlFile(inst, 'notes.sql', `CREATE TABLE notes (id int PRIMARY KEY, body text);\nINSERT INTO notes VALUES (1, 'hello');\n`);
    const keys = jsonObject(await cliOk(['project', 'create', 'live_one', '--schema', schema, '--json'], inst.env)) as { url: string; anon_key: string };
    const served = await eventually(2000, () => request(`${keys.url}/rest/v1/notes`, { headers: { apikey: keys.anon_key } }), (a) => a.status === 200);
    expect(served.body).toEqual([{ id: 1, body: 'hello' }]);
    // Served by its data API, not a stand-in: an unknown table is PostgreSQL's 42P01.
    const unknown = await request(`${keys.url}/rest/v1/nothing`, { headers: { apikey: keys.anon_key } });
    expect([unknown.status, (unknown.body as { code?: string }).code]).toEqual([404, '42P01']);
  });

  it('gen --check --live with no ref checks every project: 0 in sync, 1 naming the edited one, the file left as edited', async () => {
    const clean = await cli(['gen', '--check', '--live', '--json'], inst.env);
    expect(clean.code).toBe(0);
    const report = jsonObject(clean) as unknown as GenReport;
    expect(report.check).toBe(true);
    expect(report.projects.map((p) => [p.ref, p.changed, p.removed])).toEqual([
      ['demo', [], []],
      ['live_one', [], []],
    ]);
    const file = path.join(inst.generatedDir, 'live_one/tables/notes.ts');
    const original = await fs.readFile(file, 'utf8');
    const edited = `${original}// edited by hand\n`;
    await fs.writeFile(file, edited);
    const drift = await cli(['gen', '--check', '--live'], inst.env);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toMatch(/^demo: up to date\nlive_one: differs\n/);
    expect(await fs.readFile(file, 'utf8')).toBe(edited);
    await fs.writeFile(file, original);
  });

  it('gen --all rewrites the generated code of every project', async () => {
    const deleted = path.join(inst.generatedDir, 'demo/openapi.json');
    await fs.rm(deleted);
    const edited = path.join(inst.generatedDir, 'live_one/tables/notes.ts');
    await fs.appendFile(edited, '// edited by hand\n');
    const run = await cli(['gen', '--all', '--json'], inst.env);
    expect(run.code).toBe(0);
    const report = jsonObject(run) as unknown as GenReport;
    expect(report.projects.map((p) => [p.ref, p.changed])).toEqual([
      ['demo', ['openapi.json']],
      ['live_one', ['tables/notes.ts']],
    ]);
    expect(JSON.parse(await fs.readFile(deleted, 'utf8'))).toHaveProperty('paths');
    expect(await fs.readFile(edited, 'utf8')).not.toContain('// edited by hand');
    expect((await cli(['gen', '--check', '--live'], inst.env)).code).toBe(0);
  });

  it('stops cleanly on SIGTERM, the embedded cluster with it', async () => {
    await query('project_demo', `INSERT INTO authors (name) VALUES ('Persisted Person')`);
    const code = await server!.stop();
    expect(code, server!.output()).toBe(0);
    server = null;
    await expect(fs.stat(path.join(inst.home, 'pg.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps projects and rows across a restart, and stops on SIGINT too', async () => {
    server = await serve(inst);
    const list = jsonObject(await cliOk(['project', 'list', '--json'], inst.env)) as { projects: { ref: string }[] };
    expect(list.projects.map((p) => p.ref)).toEqual(['demo', 'live_one']);
    expect(await query('project_demo', `SELECT name FROM authors WHERE name = 'Persisted Person'`)).toEqual([{ name: 'Persisted Person' }]);
    const keys = jsonObject(await cliOk(['project', 'keys', 'live_one', '--json'], inst.env)) as { url: string; anon_key: string };
    const notes = await request(`${keys.url}/rest/v1/notes`, { headers: { apikey: keys.anon_key } });
    expect([notes.status, notes.body]).toEqual([200, [{ id: 1, body: 'hello' }]]);
    // Its schema did not change while the host was down: served from the code on disk, not introspected again.
    const served = server.output().split('\n').filter((line) => line.includes('"project served"')).map((line) => JSON.parse(line) as { ref: string; introspected: boolean });
    expect(served.filter((entry) => entry.ref === 'live_one').map((entry) => entry.introspected)).toEqual([false]);
    const code = await server.stop('SIGINT');
    expect(code, server.output()).toBe(0);
    server = null;
  });
});

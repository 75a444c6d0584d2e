import fs from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, runCli, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';

let t: TestHost;
let project: TestProject;
let generatedDir: string;

const SCHEMA = `CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL);
INSERT INTO items SELECT n, 'item ' || n FROM generate_series(1, 20) n;`;

function get(pathAndQuery: string): Promise<Response> {
  return fetch(`${project.url}/rest/v1/${pathAndQuery}`, { headers: { apikey: project.keys.service_key } });
}

async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, file)] = await fs.readFile(file, 'utf8');
    }
  }
  return out;
}

beforeAll(async () => {
  t = await startTestHost();
  project = await createTestProject(t.platform, { sql: SCHEMA, host: t.host, generate: true });
  await t.host.directory.reload(project.record.ref);
  generatedDir = path.join(t.env.GANTRY_GENERATED_DIR!, project.record.ref);
});
afterAll(async () => {
  await t.close();
});

describe('gantry migrate and the running server', () => {
  it('applies a migration, regenerates, and the server serves the new schema within 2 s without failing requests in flight', async () => {
    expect((await get('items?select=id&limit=1')).status).toBe(200);
    let running = true;
    const statuses: number[] = [];
    const load = (async () => {
      while (running) {
        const batch = await Promise.all(Array.from({ length: 8 }, () => get('items?select=id,label&order=id&limit=5')));
        for (const res of batch) {
          statuses.push(res.status);
          await res.arrayBuffer();
        }
      }
    })();
    const migration = path.join(t.env.GANTRY_HOME!, 'add-price.sql');
    await fs.writeFile(migration, 'ALTER TABLE items ADD COLUMN price numeric NOT NULL DEFAULT 9.5;\nCREATE INDEX items_price ON items (price);\n');
    const run = await runCli(['migrate', project.record.ref, migration, '--json'], t.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ref: project.record.ref, migrated: migration });
    expect(JSON.parse(run.stdout).changed).toEqual(expect.arrayContaining(['database.types.ts', 'tables/items.ts']));
    // index.ts lists tables and functions, no columns and no fingerprint: a new column leaves it alone.
    expect(JSON.parse(run.stdout).changed).not.toContain('index.ts');
    const swapped = await within(2000, async () => (await get('items?select=price&limit=1')).status === 200);
    expect(swapped).toBeLessThan(2000);
    running = false;
    await load;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const body = (await (await get('items?select=id,price&id=eq.3')).json()) as unknown;
    expect(body).toEqual([{ id: 3, price: 9.5 }]);
  });

  it('a failing migration applies nothing, names file and line, and leaves the generated code untouched', async () => {
    const before = await snapshot(generatedDir);
    const migration = path.join(t.env.GANTRY_HOME!, 'broken.sql');
    await fs.writeFile(migration, 'ALTER TABLE items ADD COLUMN colour text;\n\nALTER TABLE nowhere ADD COLUMN x int;\n');
    const run = await runCli(['migrate', project.record.ref, migration], t.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`gantry: ${migration}:3: relation "nowhere" does not exist (SQLSTATE 42P01)\n`);
    expect(await snapshot(generatedDir)).toEqual(before);
    const client = new pg.Client(t.platform.cluster.urlFor(project.record.databaseName));
    await client.connect();
    const { rowCount } = await client.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'items' AND column_name = 'colour'`);
    await client.end();
    expect(rowCount).toBe(0);
  });

  it('serves DDL run by hand (psql users) within 2 s, regenerating the code', async () => {
    const client = new pg.Client(t.platform.cluster.urlFor(project.record.databaseName));
    await client.connect();
    await client.query('CREATE TABLE gadgets (id int PRIMARY KEY)');
    await client.end();
    expect(await within(2000, async () => (await get('gadgets')).status === 200)).toBeLessThan(2000);
    expect(await fs.readFile(path.join(generatedDir, 'tables/gadgets.ts'), 'utf8')).toContain('Table public.gadgets');
  });

  it('gen --check --live exits 1 with a readable summary when the code differs, and gen restores it', async () => {
    const check = await runCli(['gen', project.record.ref, '--check', '--live'], t.env);
    expect(check.code).toBe(0);
    expect(check.stdout).toBe(`${project.record.ref}: up to date\n`);
    const file = path.join(generatedDir, 'tables/items.ts');
    const original = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, original.replace('label', 'lable'));
    const drift = await runCli(['gen', project.record.ref, '--check', '--live', '--json'], t.env);
    expect(drift.code).toBe(1);
    const report = JSON.parse(drift.stdout) as { check: boolean; projects: { ref: string; changed: string[] }[] };
    expect(report.check).toBe(true);
    expect(report.projects[0]!.changed).toEqual(['tables/items.ts']);
    expect(await fs.readFile(file, 'utf8')).not.toBe(original);
    const fixed = await runCli(['gen', project.record.ref], t.env);
    expect(fixed.code).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toBe(original);
  });

  it('keeps memory bounded over 100 hot swaps', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    for (let i = 0; i < 10; i++) await t.host.directory.reload(project.record.ref);
    const before = heap();
    for (let i = 0; i < 100; i++) await t.host.directory.reload(project.record.ref);
    const growth = heap() - before;
    expect(growth).toBeLessThan(15 * 1024 * 1024);
    expect((await get('items?limit=1')).status).toBe(200);
  }, 120_000);
});

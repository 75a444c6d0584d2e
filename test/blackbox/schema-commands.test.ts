import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cli,
  cliOk,
  jsonObject,
  servedInstallation,
  shutDown,
  type Installation,
  type Server,
} from '../helpers/serve-process.js';
import {
  createProject,
  eventually,
  getProject,
  projectNotFound,
  SHOP_SQL,
  sqlFile,
  type PrintedKeys as Keys,
} from '../helpers/blackbox-projects.js';

/**
 * The commands that change a project's schema, code or existence (migrate, gen,
 * delete), each run as its own process beside a running `gantry serve`, their effect
 * asserted through the server's HTTP API and the generated/ folder only.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server;
/** The project the gen tests share. */
let shop: Keys;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
  shop = await createProject(inst, ['--schema', SHOP_SQL]);
});
afterAll(async () => {
  await shutDown(server);
});

describe('gantry migrate', () => {
  let keys: Keys;
  beforeAll(async () => {
    keys = await createProject(inst, ['--schema', SHOP_SQL]);
    await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
  });

  it('runs the file and the running server serves the new column within 2 s', async () => {
    const file = await sqlFile(inst, 'add-stock.sql', 'ALTER TABLE products ADD COLUMN stock int NOT NULL DEFAULT 7;\n');
    const run = await cli(['migrate', keys.ref, file, '--json'], inst.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({ ref: keys.ref, migrated: file });
    const served = await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id,stock&order=id'), (a) => a.status === 200);
    expect(served.body).toEqual([
      { id: 1, stock: 7 },
      { id: 2, stock: 7 },
    ]);
    const openapi = await getProject(keys, 'openapi.json');
    const schemas = (openapi.body as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas;
    expect(Object.keys(schemas.products!.properties)).toEqual(['id', 'name', 'price', 'stock']);
  });

  it('a failing migration exits 1 and changes nothing: the earlier statements are not served', async () => {
    const file = await sqlFile(inst, 'half.sql', 'ALTER TABLE products ADD COLUMN colour text;\n\nALTER TABLE nowhere ADD COLUMN x int;\n');
    const run = await cli(['migrate', keys.ref, file, '--json'], inst.env);
    expect(run.code).toBe(1);
    expect(jsonObject(run)).toEqual({ error: { code: 'schema_failed', message: `${file}:3: relation "nowhere" does not exist (SQLSTATE 42P01)` } });
    const answer = await getProject(keys, 'rest/v1/products?select=colour');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '42703' });
    expect((await getProject(keys, 'rest/v1/products?select=id,stock&id=eq.1')).body).toEqual([{ id: 1, stock: 7 }]);
  });
});

describe('gantry gen <ref>', () => {
  let keys: Keys;
  let dir: string;
  beforeAll(() => {
    keys = shop;
    dir = path.join(inst.generatedDir, keys.ref);
  });

  it('gen --check --live exits 0 in sync, and 1 after a generated file is edited, leaving the file as edited', async () => {
    const clean = await cli(['gen', keys.ref, '--check', '--live', '--json'], inst.env);
    expect(clean.code).toBe(0);
    expect(jsonObject(clean)).toEqual({ check: true, projects: [{ ref: keys.ref, changed: [], removed: [], diff: '', extensions: [] }] });
    const file = path.join(dir, 'tables/products.ts');
    const edited = `${await fs.readFile(file, 'utf8')}// edited by hand\n`;
    await fs.writeFile(file, edited);
    const drift = await cli(['gen', keys.ref, '--check', '--live', '--json'], inst.env);
    expect(drift.code).toBe(1);
    expect(jsonObject(drift)).toMatchObject({ check: true, projects: [{ ref: keys.ref, changed: ['tables/products.ts'], removed: [] }] });
    expect(await fs.readFile(file, 'utf8')).toBe(edited);
  });

  it('gen rewrites an edited and a deleted generated file', async () => {
    const edited = path.join(dir, 'tables/products.ts');
    const deleted = path.join(dir, 'openapi.json');
    await fs.rm(deleted);
    const run = await cli(['gen', keys.ref, '--json'], inst.env);
    expect(run.code).toBe(0);
    const report = jsonObject(run) as { check: boolean; projects: { ref: string; changed: string[] }[] };
    expect(report.check).toBe(false);
    expect(report.projects.map((p) => p.ref)).toEqual([keys.ref]);
    expect([...report.projects[0]!.changed].sort()).toEqual(['openapi.json', 'tables/products.ts']);
    expect(await fs.readFile(edited, 'utf8')).not.toContain('// edited by hand');
    expect(JSON.parse(await fs.readFile(deleted, 'utf8'))).toHaveProperty('paths');
    expect((await cli(['gen', keys.ref, '--check', '--live'], inst.env)).code).toBe(0);
  });
});

describe('gantry project delete', () => {
  it('the running server answers 404 for the project within 2 s, and list no longer holds it', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
    const run = await cli(['project', 'delete', keys.ref, '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toEqual({ ref: keys.ref, deleted: true });
    const gone = await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id'), (a) => a.status === 404);
    expect(gone.body).toEqual(projectNotFound(keys.ref));
    expect((await getProject(keys, 'openapi.json')).status).toBe(404);
    const list = jsonObject(await cliOk(['project', 'list', '--json'], inst.env)) as { projects: { ref: string }[] };
    expect(list.projects.map((p) => p.ref)).not.toContain(keys.ref);
    const again = await cli(['project', 'delete', keys.ref, '--json'], inst.env);
    expect(again.code).toBe(1);
    expect(jsonObject(again)).toEqual({ error: { code: 'project_not_found', message: `project "${keys.ref}" does not exist` } });
  });
});

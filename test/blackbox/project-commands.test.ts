import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cli,
  cliOk,
  eventually,
  installation,
  jsonObject,
  projectNotFound,
  removeInstallation,
  request,
  serve,
  sqlFile,
  uniqueRef,
  watchTable,
  type Answer,
  type Installation,
  type PrintedKeys as Keys,
  type Server,
} from './process.js';

/**
 * The project commands of the CLI, each run as its own process beside a running
 * `gantry serve`, their effect asserted through the server's HTTP API only.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

const SHOP = `CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL, price numeric NOT NULL);
INSERT INTO products VALUES (1, 'Kettle', 25.5), (2, 'Teapot', 18);
CREATE FUNCTION product_count() RETURNS int LANGUAGE sql STABLE AS $$ SELECT count(*)::int FROM products $$;
`;
const ROWS = [
  { id: 1, name: 'Kettle', price: 25.5 },
  { id: 2, name: 'Teapot', price: 18 },
];


let inst: Installation;
let server: Server;
let shopSql: string;
/** A project the read-only tests share. */
let shop: Keys;

beforeAll(async () => {
  inst = await installation();
  server = await serve(inst);
  shopSql = await sqlFile(inst, 'shop.sql', SHOP);
  shop = await createShop();
});
afterAll(async () => {
  expect(await server.stop(), server.output()).toBe(0);
  await removeInstallation(inst);
});

function get(keys: Keys, pathAndQuery: string, key = keys.anon_key): Promise<Answer> {
  return request(`${keys.url}/${pathAndQuery}`, { headers: { apikey: key } });
}

async function createShop(extra: string[] = []): Promise<Keys> {
  const run = await cliOk(['project', 'create', uniqueRef('bb'), '--schema', shopSql, ...extra, '--json'], inst.env);
  return jsonObject(run) as unknown as Keys;
}

function signup(keys: Keys, email: string): Promise<Answer> {
  return request(`${keys.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple' }),
  });
}

describe('gantry project create --schema', () => {

  it('prints the keys object and the running server serves its rows within 2 s, never answering as if the table were missing', async () => {
    const ref = uniqueRef('bb');
    const url = `${inst.baseUrl}/v1/${ref}`;
    // Polls from before the command starts until the rows are served after it returned.
    const watch = watchTable(inst.baseUrl, ref, 'products?select=id,name,price&order=id');
    let unexpected: Answer[] = [];
    try {
      const run = await cli(['project', 'create', ref, '--schema', shopSql, '--json'], inst.env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const keys = jsonObject(run) as unknown as Keys;
      expect(Object.keys(keys).sort()).toEqual(['anon_key', 'jwt_secret', 'ref', 'service_key', 'url']);
      expect(keys).toMatchObject({ ref, url });
      for (const value of [keys.anon_key, keys.service_key]) expect(value).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(keys.jwt_secret).toMatch(/^\S{32,}$/);
      watch.useKey(keys.anon_key);
      const served = await eventually(2000, () => get(keys, 'rest/v1/products?select=id,name,price&order=id'), (a) => a.status === 200);
      expect(served.body).toEqual(ROWS);
    } finally {
      unexpected = await watch.stop();
    }
    expect(unexpected).toEqual([]);
  });

  it('serves the project in full: RPC, /openapi.json listing the table, /docs', async () => {
    const keys = shop;
    await eventually(2000, () => get(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
    const rpc = await request(`${keys.url}/rest/v1/rpc/product_count`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(rpc).toMatchObject({ status: 200, body: 2 });
    const openapi = await get(keys, 'openapi.json');
    expect(openapi.status).toBe(200);
    const paths = Object.keys((openapi.body as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(expect.arrayContaining(['/rest/v1/products', '/rest/v1/rpc/product_count']));
    const docs = await get(keys, 'docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/<html/i);
  });

  it('project keys prints the same object as create', async () => {
    const keys = shop;
    const run = await cli(['project', 'keys', keys.ref, '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toEqual(keys);
  });

  it('project list --json holds the project', async () => {
    const keys = shop;
    const run = await cli(['project', 'list', '--json'], inst.env);
    expect(run.code).toBe(0);
    const { projects } = jsonObject(run) as { projects: { ref: string; url: string }[] };
    expect(projects.find((p) => p.ref === keys.ref)).toMatchObject({ ref: keys.ref, url: keys.url });
  });

  it('a failing schema file exits 1 naming file:line and SQLSTATE, and leaves no project behind', async () => {
    const ref = uniqueRef('bb');
    const broken = await sqlFile(inst, 'broken.sql', 'CREATE TABLE fine (id int);\n\nALTER TABLE nowhere ADD COLUMN x int;\n');
    const run = await cli(['project', 'create', ref, '--schema', broken, '--json'], inst.env);
    expect(run.code).toBe(1);
    const message = `${broken}:3: relation "nowhere" does not exist (SQLSTATE 42P01)`;
    expect(run.stderr).toBe(`gantry: ${message}\n`);
    expect(jsonObject(run)).toEqual({ error: { code: 'schema_failed', message } });
    expect(await request(`${inst.baseUrl}/v1/${ref}/rest/v1/fine`)).toMatchObject({ status: 404, body: projectNotFound(ref) });
    const keysRun = await cli(['project', 'keys', ref, '--json'], inst.env);
    expect(keysRun.code).toBe(1);
    expect(jsonObject(keysRun)).toEqual({ error: { code: 'project_not_found', message: `project "${ref}" does not exist` } });
  });
});

describe('sign-up confirmation settings', () => {
  it('--autoconfirm: a sign-up returns a session at once', async () => {
    const keys = await createShop(['--autoconfirm']);
    const answer = await eventually(2000, () => signup(keys, 'auto@example.com'), (a) => a.status !== 404);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), user: { email: 'auto@example.com' } });
  });

  it('project config --set auth.autoconfirm=true changes sign-up on the running server', async () => {
    const keys = await createShop();
    const before = await eventually(2000, () => signup(keys, 'first@example.com'), (a) => a.status !== 404);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ user: { email: 'first@example.com', confirmation_sent_at: expect.any(String) }, session: null });

    const run = await cli(['project', 'config', keys.ref, '--set', 'auth.autoconfirm=true', '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({ ref: keys.ref, settings: { 'auth.autoconfirm': true } });
    // Sign-ups are rate limited: wait for the setting through the settings endpoint, then sign up once.
    await eventually(2000, () => request(`${keys.url}/auth/v1/settings`, { headers: { apikey: keys.anon_key } }), (a) =>
      (a.body as { mailer_autoconfirm?: boolean }).mailer_autoconfirm === true,
    );
    const after = await signup(keys, 'later@example.com');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ access_token: expect.any(String), token_type: 'bearer', user: { email: 'later@example.com' } });
  });

  it('project config with an unknown key or a bad value exits 1 and changes nothing', async () => {
    const keys = shop;
    const unknown = await cli(['project', 'config', keys.ref, '--set', 'auth.nonsense=true', '--json'], inst.env);
    expect(unknown.code).toBe(1);
    expect(jsonObject(unknown)).toMatchObject({ error: { code: 'invalid_setting', message: expect.stringContaining('auth.nonsense') } });
    const bad = await cli(['project', 'config', keys.ref, '--set', 'auth.autoconfirm=maybe'], inst.env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^gantry: .*"maybe".*\n$/);
    const list = jsonObject(await cliOk(['project', 'list', '--json'], inst.env)) as { projects: { ref: string; settings: Record<string, unknown> }[] };
    expect(list.projects.find((p) => p.ref === keys.ref)?.settings['auth.autoconfirm']).toBe(false);
    const answer = await request(`${keys.url}/auth/v1/settings`, { headers: { apikey: keys.anon_key } });
    expect(answer.body).toMatchObject({ mailer_autoconfirm: false });
  });
});

describe('gantry migrate', () => {
  let keys: Keys;
  beforeAll(async () => {
    keys = await createShop();
    await eventually(2000, () => get(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
  });

  it('runs the file and the running server serves the new column within 2 s', async () => {
    const file = await sqlFile(inst, 'add-stock.sql', 'ALTER TABLE products ADD COLUMN stock int NOT NULL DEFAULT 7;\n');
    const run = await cli(['migrate', keys.ref, file, '--json'], inst.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({ ref: keys.ref, migrated: file });
    const served = await eventually(2000, () => get(keys, 'rest/v1/products?select=id,stock&order=id'), (a) => a.status === 200);
    expect(served.body).toEqual([
      { id: 1, stock: 7 },
      { id: 2, stock: 7 },
    ]);
    const openapi = await get(keys, 'openapi.json');
    const schemas = (openapi.body as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas;
    expect(Object.keys(schemas.products!.properties)).toEqual(['id', 'name', 'price', 'stock']);
  });

  it('a failing migration exits 1 and changes nothing: the earlier statements are not served', async () => {
    const file = await sqlFile(inst, 'half.sql', 'ALTER TABLE products ADD COLUMN colour text;\n\nALTER TABLE nowhere ADD COLUMN x int;\n');
    const run = await cli(['migrate', keys.ref, file, '--json'], inst.env);
    expect(run.code).toBe(1);
    expect(jsonObject(run)).toEqual({ error: { code: 'schema_failed', message: `${file}:3: relation "nowhere" does not exist (SQLSTATE 42P01)` } });
    const answer = await get(keys, 'rest/v1/products?select=colour');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: '42703' });
    expect((await get(keys, 'rest/v1/products?select=id,stock&id=eq.1')).body).toEqual([{ id: 1, stock: 7 }]);
  });
});

describe('gantry gen <ref>', () => {
  let keys: Keys;
  let dir: string;
  beforeAll(() => {
    keys = shop;
    dir = path.join(inst.generatedDir, keys.ref);
  });

  it('gen --check exits 0 in sync, and 1 after a generated file is edited, leaving the file as edited', async () => {
    const clean = await cli(['gen', keys.ref, '--check', '--json'], inst.env);
    expect(clean.code).toBe(0);
    expect(jsonObject(clean)).toEqual({ check: true, projects: [{ ref: keys.ref, changed: [], removed: [], diff: '' }] });
    const file = path.join(dir, 'tables/products.ts');
    const edited = `${await fs.readFile(file, 'utf8')}// edited by hand\n`;
    await fs.writeFile(file, edited);
    const drift = await cli(['gen', keys.ref, '--check', '--json'], inst.env);
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
    expect((await cli(['gen', keys.ref, '--check'], inst.env)).code).toBe(0);
  });
});

describe('gantry project delete', () => {
  it('the running server answers 404 for the project within 2 s, and list no longer holds it', async () => {
    const keys = await createShop();
    await eventually(2000, () => get(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
    const run = await cli(['project', 'delete', keys.ref, '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toEqual({ ref: keys.ref, deleted: true });
    const gone = await eventually(2000, () => get(keys, 'rest/v1/products?select=id'), (a) => a.status === 404);
    expect(gone.body).toEqual(projectNotFound(keys.ref));
    expect((await get(keys, 'openapi.json')).status).toBe(404);
    const list = jsonObject(await cliOk(['project', 'list', '--json'], inst.env)) as { projects: { ref: string }[] };
    expect(list.projects.map((p) => p.ref)).not.toContain(keys.ref);
    const again = await cli(['project', 'delete', keys.ref, '--json'], inst.env);
    expect(again.code).toBe(1);
    expect(jsonObject(again)).toEqual({ error: { code: 'project_not_found', message: `project "${keys.ref}" does not exist` } });
  });
});

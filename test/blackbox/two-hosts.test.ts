import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { eventually, projectNotFound, request, sqlFile, uniqueRef, watchTable, type Answer, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/**
 * Two hosts sharing one database (DATABASE_URL to the same cluster), each with its own
 * GANTRY_HOME and generated/ folder, as two checkouts of a team would run. The CLI runs
 * with host A's folders only, so host B never sees the files it writes.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });


const ROWS = [{ id: 1, name: 'Kettle' }];

let a: Installation;
let b: Installation;
let hosts: Server[] = [];
let keys: Keys;

/** The project's path on one host (the printed url names host A). */
function on(inst: Installation, pathAndQuery: string): Promise<Answer> {
  return request(`${inst.baseUrl}/v1/${keys.ref}/${pathAndQuery}`, { headers: { apikey: keys.anon_key } });
}

beforeAll(async () => {
  [a, b] = [await installation(), await installation()];
  // At once, as a deployment starts them (both may find the shared demo project missing).
  hosts = await Promise.all([serve(a), serve(b)]);
});
afterAll(async () => {
  for (const host of hosts) expect(await host.stop(), host.output()).toBe(0);
  for (const inst of [a, b]) await removeInstallation(inst);
});

describe('two hosts sharing one database', () => {
  it('both serve a project the CLI created within 2 s, never as if its table were missing; host B writes its own generated/<ref>/', async () => {
    const schema = await sqlFile(a, 'shop.sql', `CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL);\nINSERT INTO products VALUES (1, 'Kettle');\n`);
    const ref = uniqueRef('bbt');
    const watches = [a, b].map((inst) => watchTable(inst.baseUrl, ref, 'products?select=id,name'));
    let unexpected: Answer[][] = [];
    try {
      const run = await cli(['project', 'create', ref, '--schema', schema, '--json'], a.env);
      expect(run.code).toBe(0);
      keys = jsonObject(run) as unknown as Keys;
      for (const watch of watches) watch.useKey(keys.anon_key);
      for (const inst of [a, b]) {
        const served = await eventually(2000, () => on(inst, 'rest/v1/products?select=id,name'), (x) => x.status === 200);
        expect(served.body).toEqual(ROWS);
        expect((await on(inst, 'openapi.json')).status).toBe(200);
        expect((await on(inst, 'docs')).status).toBe(200);
      }
    } finally {
      unexpected = await Promise.all(watches.map((watch) => watch.stop()));
    }
    expect(unexpected).toEqual([[], []]);
    const written = await fs.readFile(path.join(b.generatedDir, keys.ref, 'tables/products.ts'), 'utf8');
    expect(written).toBe(await fs.readFile(path.join(a.generatedDir, keys.ref, 'tables/products.ts'), 'utf8'));
  });

  it('a migration run through the CLI is served on both within 2 s', async () => {
    const file = await sqlFile(a, 'add-stock.sql', 'ALTER TABLE products ADD COLUMN stock int NOT NULL DEFAULT 3;\n');
    const run = await cli(['migrate', keys.ref, file, '--json'], a.env);
    expect(run.code).toBe(0);
    for (const inst of [a, b]) {
      const served = await eventually(2000, () => on(inst, 'rest/v1/products?select=id,stock'), (x) => x.status === 200);
      expect(served.body).toEqual([{ id: 1, stock: 3 }]);
    }
    expect(await fs.readFile(path.join(b.generatedDir, keys.ref, 'tables/products.ts'), 'utf8')).toContain('stock');
  });

  it('a project deleted through the CLI is gone on both within 2 s', async () => {
    const run = await cli(['project', 'delete', keys.ref, '--json'], a.env);
    expect(run.code).toBe(0);
    for (const inst of [a, b]) {
      const gone = await eventually(2000, () => on(inst, 'rest/v1/products'), (x) => x.status === 404);
      expect(gone.body).toEqual(projectNotFound(keys.ref));
    }
  });
});

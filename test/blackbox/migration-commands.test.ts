import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { migrationChecksum } from '../../generator/migrations/local-files.js';
import { repoRoot } from '../helpers/platform.js';
import { cli, cliOk, jsonObject, servedInstallation, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { createProject, eventually, getProject, request, SHOP_SQL, sqlFile, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/**
 * The schema history as a team drives it: `migration new|list|repair|import`, `migrate <ref>` and
 * `db reset`, each its own process beside a running `gantry serve`, asserted through the files of
 * migrations/<ref>/, the CLI's JSON, the server's HTTP answers and (as psql would) the database.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let server: Server;
let inst: Installation;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
});
afterAll(async () => {
  await shutDown(server);
});

const migrationsOf = (ref: string) => path.join(inst.home, 'migrations', ref);

/** Runs SQL on a project's database as the superuser, as psql would. */
async function psql<T extends pg.QueryResultRow>(ref: string, sql: string): Promise<T[]> {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/project_${ref}`;
  const client = new pg.Client(url.toString());
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Listed {
  version: string;
  name: string | null;
  state: string;
  applied_at: string | null;
  local_checksum: string | null;
  applied_checksum: string | null;
}

async function list(ref: string): Promise<Listed[]> {
  return (jsonObject(await cliOk(['migration', 'list', ref, '--json'], inst.env)) as { migrations: Listed[] }).migrations;
}

/** `migration new` and the file filled with `sql`; its version. */
async function newMigration(ref: string, name: string, sql: string): Promise<{ path: string; version: string }> {
  const created = jsonObject(await cliOk(['migration', 'new', ref, name, '--json'], inst.env)) as { path: string; version: string };
  await fs.writeFile(created.path, sql);
  return created;
}

describe('project create and migration new', () => {
  it('create records its schema files as the first migrations; new adds an empty, later-versioned file', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    const [sum, ...files] = (await fs.readdir(migrationsOf(keys.ref))).sort().reverse();
    expect(sum).toBe('gantry.sum');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{14}_shop\.sql$/);
    const shopSql = await fs.readFile(SHOP_SQL, 'utf8');
    expect(await fs.readFile(path.join(migrationsOf(keys.ref), files[0]!), 'utf8')).toBe(shopSql);
    const [first] = await list(keys.ref);
    expect(first).toMatchObject({ version: files[0]!.slice(0, 14), name: 'shop', state: 'applied', local_checksum: migrationChecksum(shopSql), applied_checksum: migrationChecksum(shopSql) });
    expect(Date.now() - Date.parse(first!.applied_at!)).toBeLessThan(120_000);

    const created = jsonObject(await cliOk(['migration', 'new', keys.ref, 'add_stock', '--json'], inst.env)) as { path: string; version: string };
    expect(Object.keys(created).sort()).toEqual(['path', 'version']);
    expect(created.version).toMatch(/^\d{14}$/);
    expect(created.version > first!.version).toBe(true);
    expect(created.path).toBe(path.join(migrationsOf(keys.ref), `${created.version}_add_stock.sql`));
    expect(await fs.readFile(created.path, 'utf8')).toBe('');
    // gantry.sum: a line per migration file, the new empty one included, with the checksum migrate records.
    expect((await fs.readFile(path.join(migrationsOf(keys.ref), 'gantry.sum'), 'utf8')).split('\n').slice(1)).toEqual([
      `${first!.version} shop ${migrationChecksum(shopSql)}`,
      `${created.version} add_stock ${migrationChecksum('')}`,
      '',
    ]);
    expect((await list(keys.ref)).map((m) => [m.name, m.state])).toEqual([['shop', 'applied'], ['add_stock', 'pending']]);

    const bad = await cli(['migration', 'new', keys.ref, 'add stock', '--json'], inst.env);
    expect(bad.code).toBe(1);
    expect(jsonObject(bad)).toEqual({ error: { code: 'invalid_migration_name', message: 'invalid migration name "add stock": at most 200 characters, letters, digits, "_", "-" or "." (starting with a letter or digit)' } });
  });

  it('the first start applied migrations/demo/ and recorded it', async () => {
    const builtIn = await fs.readdir(path.join(repoRoot, 'migrations/demo'));
    expect((await fs.readdir(migrationsOf('demo'))).sort()).toEqual(builtIn.sort());
    expect((await list('demo')).map((m) => [`${m.version}_${m.name}.sql`, m.state])).toEqual(builtIn.filter((f) => f.endsWith('.sql')).sort().map((f) => [f, 'applied']));
  });
});

describe('gantry migrate <ref>', () => {
  let keys: Keys;
  beforeAll(async () => {
    keys = await createProject(inst, ['--schema', SHOP_SQL]);
    await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
  });

  it('applies the pending files in version order, records them, and the server serves the result within 2 s', async () => {
    const a = await newMigration(keys.ref, 'add_stock', 'ALTER TABLE products ADD COLUMN stock int NOT NULL DEFAULT 3;\n');
    const b = await newMigration(keys.ref, 'stock_ten', 'UPDATE products SET stock = stock * 10;\n');
    const run = await cli(['migrate', keys.ref, '--json'], inst.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = jsonObject(run) as { report: { base: string; head: string; changes: { kind: string; severity: string; target: string }[]; lint: { files: string[] } } };
    expect(printed).toMatchObject({
      ref: keys.ref,
      applied: [{ version: a.version, name: 'add_stock' }, { version: b.version, name: 'stock_ten' }],
      missing_locally: [],
    });
    // The API change report of `gantry diff`, for what this run applied.
    expect(printed.report.changes.map((c) => [c.kind, c.severity, c.target])).toEqual([['column_added', 'compatible', 'public.products.stock']]);
    expect(printed.report.lint.files).toEqual([a.path, b.path]);
    const served = await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id,stock&order=id'), (r) => r.status === 200);
    expect(served.body).toEqual([{ id: 1, stock: 30 }, { id: 2, stock: 30 }]);
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'applied', 'applied']);
    const again = jsonObject(await cliOk(['migrate', keys.ref, '--json'], inst.env));
    expect(again).toMatchObject({ applied: [], changed: [], removed: [], report: null });
  });

  it('refuses an applied file that was edited, with both checksums; repair records it deliberately', async () => {
    const [, stock] = await list(keys.ref);
    const file = path.join(migrationsOf(keys.ref), `${stock!.version}_add_stock.sql`);
    const original = await fs.readFile(file, 'utf8');
    const edited = 'ALTER TABLE products ADD COLUMN stock int NOT NULL DEFAULT 4;\n';
    await fs.writeFile(file, edited);
    const pending = await newMigration(keys.ref, 'colour', 'ALTER TABLE products ADD COLUMN colour text;\n');
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'modified', 'applied', 'pending']);

    const run = await cli(['migrate', keys.ref, '--json'], inst.env);
    expect(run.code).toBe(1);
    const error = (jsonObject(run) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('migration_modified');
    expect(error.message).toContain(`${file}: applied with checksum ${migrationChecksum(original)}, the file now has checksum ${migrationChecksum(edited)}`);
    expect((await getProject(keys, 'rest/v1/products?select=colour')).status).toBe(400);

    const repaired = await cli(['migration', 'repair', keys.ref, stock!.version, '--status', 'applied', '--json'], inst.env);
    expect(repaired.code).toBe(0);
    expect(jsonObject(repaired)).toEqual({ ref: keys.ref, version: stock!.version, status: 'applied', changed: true });
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'applied', 'applied', 'pending']);
    expect(jsonObject(await cliOk(['migrate', keys.ref, '--json'], inst.env))).toMatchObject({ applied: [{ version: pending.version, name: 'colour' }] });
    expect((await getProject(keys, 'rest/v1/products?select=colour&id=eq.1')).body).toEqual([{ colour: null }]);
  });

  it('repair --status reverted forgets a record; a recorded version without its file is missing-locally', async () => {
    const listed = await list(keys.ref);
    const last = listed.at(-1)!;
    const reverted = jsonObject(await cliOk(['migration', 'repair', keys.ref, last.version, '--status', 'reverted', '--json'], inst.env));
    expect(reverted).toEqual({ ref: keys.ref, version: last.version, status: 'reverted', changed: true });
    expect((await list(keys.ref)).at(-1)).toMatchObject({ version: last.version, state: 'pending', applied_at: null, applied_checksum: null });
    await cliOk(['migration', 'repair', keys.ref, last.version, '--status', 'applied'], inst.env);
    await fs.rm(path.join(migrationsOf(keys.ref), `${last.version}_colour.sql`));
    expect((await list(keys.ref)).at(-1)).toMatchObject({ version: last.version, name: 'colour', state: 'missing-locally', local_checksum: null });
    await cliOk(['migration', 'repair', keys.ref, last.version, '--status', 'reverted'], inst.env);
  });

  it('FILE.sql (the earlier contract) becomes the newest version, applied; a failing one leaves no file behind', async () => {
    const file = await sqlFile(inst, 'Add Size.sql', 'ALTER TABLE products ADD COLUMN size int;\n');
    const run = jsonObject(await cliOk(['migrate', keys.ref, file, '--json'], inst.env)) as { migrated: string; version: string; path: string; applied: unknown[] };
    expect(run.migrated).toBe(file);
    expect(run.path).toBe(path.join(migrationsOf(keys.ref), `${run.version}_add_size.sql`));
    expect(run.applied).toEqual([{ version: run.version, name: 'add_size' }]);
    expect(await fs.readFile(run.path, 'utf8')).toBe('ALTER TABLE products ADD COLUMN size int;\n');
    expect((await list(keys.ref)).find((m) => m.version === run.version)?.state).toBe('applied');

    const before = await fs.readdir(migrationsOf(keys.ref));
    const broken = await sqlFile(inst, 'broken.sql', 'ALTER TABLE nowhere ADD COLUMN x int;\n');
    const failed = await cli(['migrate', keys.ref, broken, '--json'], inst.env);
    expect(failed.code).toBe(1);
    expect(jsonObject(failed)).toEqual({ error: { code: 'schema_failed', message: `${broken}:1: relation "nowhere" does not exist (SQLSTATE 42P01)` } });
    expect(await fs.readdir(migrationsOf(keys.ref))).toEqual(before);
  });

  it('two migrate processes at once apply each file once', async () => {
    const other = await createProject(inst, ['--schema', SHOP_SQL]);
    const slow = await newMigration(other.ref, 'slow', 'SELECT pg_sleep(1);\nCREATE TABLE audit (id serial PRIMARY KEY, note text);\nINSERT INTO audit (note) VALUES (\'once\');\n');
    const [one, two] = await Promise.all([cli(['migrate', other.ref, '--json'], inst.env), cli(['migrate', other.ref, '--json'], inst.env)]);
    expect([one.code, two.code, one.stderr, two.stderr]).toEqual([0, 0, '', '']);
    const applied = [...(jsonObject(one).applied as { version: string }[]), ...(jsonObject(two).applied as { version: string }[])];
    expect(applied.map((m) => m.version)).toEqual([slow.version]);
    expect(await psql(other.ref, 'SELECT note FROM audit')).toEqual([{ note: 'once' }]);
    expect(await psql(other.ref, `SELECT count(*)::int AS n FROM supabase_migrations.schema_migrations WHERE version = '${slow.version}'`)).toEqual([{ n: 1 }]);
    // The history table is neither served nor generated.
    expect((await getProject(other, 'rest/v1/schema_migrations')).status).toBe(404);
    const generated = await fs.readdir(path.join(inst.generatedDir, other.ref), { recursive: true });
    expect(generated.map(String).filter((f) => f.includes('migration'))).toEqual([]);
  });

  it('a project from before the history: list shows its files pending; repair marks what it already has', async () => {
    const old = await createProject(inst, ['--schema', SHOP_SQL]);
    await psql(old.ref, 'DROP SCHEMA supabase_migrations CASCADE');
    const [file] = await list(old.ref);
    expect(file).toMatchObject({ name: 'shop', state: 'pending', applied_at: null });
    await cliOk(['migration', 'repair', old.ref, file!.version, '--status', 'applied'], inst.env);
    expect((await list(old.ref)).map((m) => m.state)).toEqual(['applied']);
    expect(jsonObject(await cliOk(['migrate', old.ref, '--json'], inst.env))).toMatchObject({ applied: [] });
  });
});

describe('gantry migrate: the local database and git branches', () => {
  it('refuses a database migrated on another branch, naming db reset; the reset makes migrate pass', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    // Branch A: a migration applied, then the checkout switches to branch B, which has another one.
    const a = await newMigration(keys.ref, 'colour', 'ALTER TABLE products ADD COLUMN colour text;\n');
    await cliOk(['migrate', keys.ref], inst.env);
    await fs.rm(a.path);
    const b = await newMigration(keys.ref, 'weight', 'ALTER TABLE products ADD COLUMN weight numeric;\n');
    const generatedBefore = await fs.readFile(path.join(inst.generatedDir, keys.ref, 'tables/products.ts'), 'utf8');

    const refused = await cli(['migrate', keys.ref, '--json'], inst.env);
    expect(refused.code).toBe(1);
    expect(jsonObject(refused)).toEqual({
      error: {
        code: 'history_diverged',
        message: [
          `${a.version}_colour: applied to the database, not in ${migrationsOf(keys.ref)}`,
          "the local database was migrated from other files than this branch's (another branch's, or a file edited since it ran)",
          `rebuild it from this branch's migrations and seed.sql, keeping keys and settings (its rows are lost): npx gantry db reset ${keys.ref} --yes`,
        ].join('\n'),
      },
    });
    // Nothing applied, nothing regenerated from a schema holding the other branch's column.
    expect(await fs.readFile(path.join(inst.generatedDir, keys.ref, 'tables/products.ts'), 'utf8')).toBe(generatedBefore);
    expect((await list(keys.ref)).find((m) => m.version === b.version)?.state).toBe('pending');

    const reset = await cli(['db', 'reset', keys.ref, '--yes'], inst.env);
    expect([reset.code, reset.stderr]).toEqual([0, '']);
    expect(jsonObject(await cliOk(['migrate', keys.ref, '--json'], inst.env))).toMatchObject({ applied: [], missing_locally: [], production: false });
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'applied']);
    const columns = await psql<{ column_name: string }>(keys.ref, "SELECT column_name FROM information_schema.columns WHERE table_name = 'products' ORDER BY ordinal_position");
    expect(columns.map((c) => c.column_name)).toEqual(['id', 'name', 'price', 'weight']);
    expect((await getProject(keys, 'rest/v1/products?select=id,weight&id=eq.1')).body).toEqual([{ id: 1, weight: null }]);
  });

  it('a database marked production (migrate --production) keeps the mark across processes, is never reset, and is told why', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    const a = await newMigration(keys.ref, 'colour', 'ALTER TABLE products ADD COLUMN colour text;\n');
    const marked = await cli(['migrate', keys.ref, '--production', '--json'], inst.env);
    expect(marked.code).toBe(0);
    expect(jsonObject(marked)).toMatchObject({ applied: [{ version: a.version }], production: true });
    expect(await psql(keys.ref, "SELECT current_setting('gantry.environment', true) AS mark")).toEqual([{ mark: 'production' }]);

    // An older commit deployed: a recorded version without its file is left alone and reported.
    await fs.rm(a.path);
    expect(jsonObject(await cliOk(['migrate', keys.ref, '--json'], inst.env))).toMatchObject({ applied: [], missing_locally: [a.version], production: true });

    await fs.writeFile(a.path, 'ALTER TABLE products ADD COLUMN colour varchar(20);\n');
    const edited = await cli(['migrate', keys.ref, '--json'], inst.env);
    expect(edited.code).toBe(1);
    const error = (jsonObject(edited) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('migration_modified');
    expect(error.message.split('\n').at(-1)).toBe(
      `${keys.ref}'s database is marked production, so it is never reset: an applied migration must not change; restore the file as it was applied and add a new migration, or record the edit deliberately with \`gantry migration repair ${keys.ref} <version> --status applied\``,
    );

    const reset = await cli(['db', 'reset', keys.ref, '--yes', '--json'], inst.env);
    expect(reset.code).toBe(1);
    expect(jsonObject(reset)).toEqual({
      error: { code: 'database_is_production', message: `${keys.ref}: the database is marked production (gantry migrate --production); db reset never drops it, with or without --yes` },
    });
    expect((await getProject(keys, 'rest/v1/products?select=id,colour&id=eq.1')).body).toEqual([{ id: 1, colour: null }]);
  });
});

describe('gantry migrate: a file marked -- gantry:no-transaction', () => {
  it('refuses a marked file of more than one statement before running anything', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    const twoStatements = await newMigration(keys.ref, 'two', '-- gantry:no-transaction\nCREATE INDEX CONCURRENTLY a_idx ON products (name);\nCREATE INDEX CONCURRENTLY b_idx ON products (price);\n');
    const refused = await cli(['migrate', keys.ref, '--json'], inst.env);
    expect(refused.code).toBe(1);
    expect(jsonObject(refused)).toEqual({
      error: {
        code: 'no_transaction_statements',
        message: `${twoStatements.path}: a file marked -- gantry:no-transaction runs without a transaction and must hold exactly one statement, not 2; put the others in a migration of their own`,
      },
    });
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'pending']);
  });

  it('runs CREATE INDEX CONCURRENTLY on its own, records it after, lints it as such; db reset builds it too', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    const index = await newMigration(keys.ref, 'name_index', '-- gantry:no-transaction\n-- builds without blocking writes\nCREATE INDEX CONCURRENTLY products_name_idx ON products (name);\n');
    const run = await cli(['migrate', keys.ref, '--json'], inst.env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const printed = jsonObject(run) as { applied: unknown[]; report: { lint: { files: string[]; findings: { rule: string }[] } } };
    expect(printed.applied).toEqual([{ version: index.version, name: 'name_index' }]);
    expect(printed.report.lint).toEqual({ files: [index.path], findings: [] });
    const valid = "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'products_name_idx'";
    expect(await psql(keys.ref, valid)).toEqual([{ relname: 'products_name_idx', indisvalid: true }]);
    expect((await list(keys.ref)).map((m) => [m.version === index.version ? 'index' : 'shop', m.state])).toEqual([['shop', 'applied'], ['index', 'applied']]);

    const reset = await cli(['db', 'reset', keys.ref, '--yes'], inst.env);
    expect([reset.code, reset.stderr]).toEqual([0, '']);
    expect(await psql(keys.ref, valid)).toEqual([{ relname: 'products_name_idx', indisvalid: true }]);
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'applied']);
  });
});

describe('gantry migration import', () => {
  it('copies a Supabase CLI migrations folder as is; versions its history table holds count as applied', async () => {
    const keys = await createProject(inst, []);
    const dir = path.join(inst.home, 'supabase', 'migrations');
    await fs.mkdir(dir, { recursive: true });
    const first = 'CREATE TABLE todos (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, task text NOT NULL);\n';
    const second = 'ALTER TABLE todos ADD COLUMN done boolean NOT NULL DEFAULT false;\n';
    await fs.writeFile(path.join(dir, '20240101120000_create-todos.sql'), first);
    await fs.writeFile(path.join(dir, '20240102120000_todos_done.sql'), second);
    // The database was migrated by the Supabase CLI up to the first file (its table in place of Gantry's).
    await psql(keys.ref, `${first}
      DROP SCHEMA supabase_migrations CASCADE;
      CREATE SCHEMA supabase_migrations;
      CREATE TABLE supabase_migrations.schema_migrations (version text NOT NULL PRIMARY KEY, statements text[], name text);
      INSERT INTO supabase_migrations.schema_migrations VALUES ('20240101120000', ARRAY['CREATE TABLE todos (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, task text NOT NULL)'], 'create-todos');`);

    const run = jsonObject(await cliOk(['migration', 'import', keys.ref, dir, '--json'], inst.env));
    expect(run).toEqual({
      ref: keys.ref,
      found: 2,
      imported: [
        { version: '20240101120000', name: 'create-todos', path: path.join(migrationsOf(keys.ref), '20240101120000_create-todos.sql') },
        { version: '20240102120000', name: 'todos_done', path: path.join(migrationsOf(keys.ref), '20240102120000_todos_done.sql') },
      ],
    });
    expect((await list(keys.ref)).map((m) => [m.version, m.state])).toEqual([['20240101120000', 'applied'], ['20240102120000', 'pending']]);
    expect(jsonObject(await cliOk(['migrate', keys.ref, '--json'], inst.env))).toMatchObject({ applied: [{ version: '20240102120000', name: 'todos_done' }] });
    const served = await eventually(2000, () => getProject(keys, 'rest/v1/todos?select=id,task,done'), (a) => a.status === 200);
    expect(served.body).toEqual([]);
    expect((await list(keys.ref)).map((m) => [m.state, m.applied_checksum])).toEqual([['applied', migrationChecksum(first)], ['applied', migrationChecksum(second)]]);
    // Again: nothing new, nothing clobbered.
    expect(jsonObject(await cliOk(['migration', 'import', keys.ref, dir, '--json'], inst.env))).toMatchObject({ imported: [], found: 2 });
  });
});

describe('gantry migrate and extensions/<ref>/', () => {
  it('refuses a migration that breaks the extension or its SQL, printing file:line:col and PostgreSQL\'s message, as the gate does; applies it with --force', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    const dir = path.join(inst.home, 'extensions', keys.ref);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'index.ts'), [
      `import { defineExtension, route, t } from '${path.join(repoRoot, 'runtime/index.js')}';`,
      `import type { Database } from '../../generated/${keys.ref}/database.types.js';`,
      'export default defineExtension<Database>()({',
      '  tables: { products: { beforeInsert: (rows) => rows.map((row) => ({ ...row, name: row.name.trim() })) } },',
      '  routes: {',
      '    reprice: route({',
      '      input: t.object({ id: t.integer(), price: t.number() }),',
      '      output: t.string(),',
      '      async handler({ id, price }, ctx) {',
      '        const [row] = await ctx.sql`UPDATE products SET price = ${price} WHERE id = ${id} RETURNING id, name, price`;',
      "        const statement = Object.assign(['SELECT 1'], { raw: ['SELECT 1'] });",
      '        await ctx.sql(statement);',
      "        return row ? `${row.name}: ${row.price}` : 'none';",
      '      },',
      '    }),',
      '  },',
      '});',
      '',
    ].join('\n'));
    const rename = await newMigration(keys.ref, 'rename_name', 'ALTER TABLE products RENAME COLUMN name TO title;\n');
    const run = await cli(['migrate', keys.ref], inst.env);
    expect(run.code).toBe(1);
    const file = `extensions/${keys.ref}/index.ts`;
    const sqlProblem = `${file}:10:29 UPDATE products SET price = $1 WHERE id = $2 RETURNING id, name, price: column "name" does not exist (42703, at character 60 of the query)`;
    expect(run.stderr).toContain(`gantry: ${rename.path} breaks extensions/${keys.ref}/; rolled back, nothing recorded:\n${sqlProblem}\n`);
    expect(run.stderr).toMatch(new RegExp(`extensions/${keys.ref}/index\\.ts:4:\\d+ Property 'name' does not exist`));
    expect((await getProject(keys, 'rest/v1/products?select=name&id=eq.1')).body).toEqual([{ name: 'Kettle' }]);
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'pending']);
    expect(await psql(keys.ref, `SELECT attname FROM pg_attribute WHERE attrelid = 'products'::regclass AND attnum > 0 ORDER BY attnum`)).toEqual([{ attname: 'id' }, { attname: 'name' }, { attname: 'price' }]);

    // The CI gate builds the project from its migrations and fails with the same lines; the dynamic query is a warning, said once.
    const gate = await cli(['gen', '--check', keys.ref], inst.env);
    expect(gate.code).toBe(1);
    const gateLines = gate.stdout.split('\n');
    expect(gateLines).toContain(`  ${sqlProblem}`);
    expect(gateLines.filter((line) => line.includes('not checkable'))).toEqual([
      `${keys.ref}: warning: 1 query site(s) not checkable`,
      `  ${file}:12:15 not checkable: the query API called with SQL built at run time (only a ctx.sql\`…\` template is checked and typed)`,
    ]);

    const forced = await cli(['migrate', keys.ref, '--force', '--json'], inst.env);
    expect(forced.code).toBe(0);
    expect(jsonObject(forced)).toMatchObject({ applied: [{ version: rename.version, name: 'rename_name' }] });
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied', 'applied']);
    expect(await psql(keys.ref, `SELECT title FROM products WHERE id = 1`)).toEqual([{ title: 'Kettle' }]);
  });
});

describe('gantry db reset', () => {
  it('refuses without --yes while tables hold rows; rebuilds from migrations and seed.sql, keeping keys, served at once', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
    await fs.writeFile(path.join(migrationsOf(keys.ref), 'seed.sql'), "INSERT INTO products VALUES (3, 'Mug', 6);\n");
    await psql(keys.ref, "INSERT INTO products VALUES (9, 'Added by hand', 1)");

    const refused = await cli(['db', 'reset', keys.ref, '--json'], inst.env);
    expect(refused.code).toBe(1);
    expect(jsonObject(refused)).toEqual({
      error: { code: 'database_not_empty', message: `${keys.ref}: public.products hold rows that a reset deletes; run again with --yes to reset anyway` },
    });
    expect((await getProject(keys, 'rest/v1/products?select=id&order=id')).body).toEqual([{ id: 1 }, { id: 2 }, { id: 9 }]);

    const oid = (await psql<{ oid: string }>(keys.ref, 'SELECT oid::text FROM pg_database WHERE datname = current_database()'))[0]!.oid;
    const reset = await cli(['db', 'reset', keys.ref, '--yes', '--json'], inst.env);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(jsonObject(reset)).toMatchObject({ ref: keys.ref, seeded: true, migrations: [{ name: 'shop' }] });
    expect((await psql<{ oid: string }>(keys.ref, 'SELECT oid::text FROM pg_database WHERE datname = current_database()'))[0]!.oid).not.toBe(oid);
    // The same anon key still works: keys and settings were not touched.
    const served = await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id&order=id'), (a) => a.status === 200 && JSON.stringify(a.body) !== '[{"id":1},{"id":2},{"id":9}]');
    expect(served.body).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(jsonObject(await cliOk(['project', 'keys', keys.ref, '--json'], inst.env))).toEqual(keys);
    expect((await list(keys.ref)).map((m) => m.state)).toEqual(['applied']);
    const signup = await request(`${keys.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'after-reset@example.com', password: 'a-long-password-1' }),
    });
    expect(signup.status).toBe(200);
  });

  it('resets an empty project without --yes', async () => {
    const keys = await createProject(inst, []);
    await newMigration(keys.ref, 'notes', 'CREATE TABLE notes (id int PRIMARY KEY);\n');
    const run = jsonObject(await cliOk(['db', 'reset', keys.ref, '--json'], inst.env));
    expect(run).toMatchObject({ ref: keys.ref, seeded: false, migrations: [{ name: 'notes' }] });
    const served = await eventually(2000, () => getProject(keys, 'rest/v1/notes?select=id'), (a) => a.status === 200);
    expect(served.body).toEqual([]);
  });
});

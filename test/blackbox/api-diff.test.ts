import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseNameFor } from '../../runtime/platform/bootstrap.js';
import { cli, cliOk, installation, jsonObject, removeInstallation, type Installation } from '../helpers/serve-process.js';
import { createProject, SHOP_SQL } from './projects.js';

/**
 * `gantry diff` as a team runs it: a git repository holding generated/ and migrations/, the
 * schema changed and the code regenerated, the report read from the CLI's stdout and exit code.
 * Each step commits what the one before left, so every report shows one change.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const run = promisify(execFile);

let inst: Installation;
let ref: string;
let db: pg.Client;

async function git(...args: string[]): Promise<string> {
  return (await run('git', ['-C', inst.home, ...args])).stdout;
}

/** The schema changed by other means than gantry (psql, another tool), then `gantry gen`. */
async function changeSchema(sql: string): Promise<void> {
  await db.query(sql);
  await cliOk(['gen', ref], inst.env);
}

async function commit(message: string): Promise<void> {
  await git('add', '-A', '.');
  await git('commit', '-q', '-m', message);
}

function diff(...args: string[]) {
  return cli(['diff', ref, ...args], inst.env);
}

beforeAll(async () => {
  inst = await installation();
  // GANTRY_HOME is the repository: generated/ and migrations/ are committed, the rest is local state.
  await fs.writeFile(path.join(inst.home, '.gitignore'), '/*\n!/.gitignore\n!/generated/\n!/migrations/\n');
  await git('init', '-q', '-b', 'main');
  await git('config', 'user.email', 'team@example.com');
  await git('config', 'user.name', 'Team');
  ref = (await createProject(inst, ['--schema', SHOP_SQL])).ref;
  await commit('shop');
  const url = new URL(inst.env.DATABASE_URL!);
  url.pathname = `/${databaseNameFor(ref)}`;
  db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  if (inst) await removeInstallation(inst);
});

describe('gantry diff', () => {
  it('reports no change on a clean tree', async () => {
    const clean = await diff('--fail-on-breaking');
    expect(clean.stdout).toBe(`${ref}: no API changes from main to working tree\n`);
    expect(clean.code).toBe(0);
  });

  it('an added nullable column is compatible: --fail-on-breaking exits 0; --json prints the whole report', async () => {
    await changeSchema('ALTER TABLE products ADD COLUMN colour text');
    const added = await diff('--fail-on-breaking', '--json');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(jsonObject(added)).toEqual({
      ref,
      base: 'main',
      head: 'working tree',
      changes: [
        {
          kind: 'column_added',
          severity: 'compatible',
          target: 'public.products.colour',
          message: 'column added',
          reason: 'select=* answers one more field; writes that omit it still work',
          before: null,
          after: 'colour text',
        },
      ],
      lint: { files: [], findings: [] },
      summary: { breaking: 0, compatible: 1, lint: 0 },
      settings: [],
    });
    await commit('colour');
  });

  it('a dropped column is breaking: --fail-on-breaking exits 1', async () => {
    await changeSchema('ALTER TABLE products DROP COLUMN colour');
    const dropped = await diff('--fail-on-breaking');
    expect(dropped.stdout).toBe(
      [
        `${ref}: API changes from main to working tree: 1 breaking, 0 compatible`,
        'BREAKING public.products.colour: column removed',
        '  a request that names it now fails (42703), and select=* answers without it',
        '  - colour text',
        '',
      ].join('\n'),
    );
    expect(dropped.code).toBe(1);
    expect((await diff()).code).toBe(0);
    await commit('no colour');
  });

  it('numeric → integer is breaking although database.types.ts says number before and after (markdown)', async () => {
    await changeSchema('ALTER TABLE products ALTER COLUMN price TYPE integer');
    // database.types.ts changes in its fingerprint line at most: price is a number before and after.
    const typeLines = (await git('diff', '-U0', '--', `generated/${ref}/database.types.ts`)).split('\n').filter((line) => /^[-+](?![-+])/.test(line));
    expect(typeLines.filter((line) => !/fingerprint/i.test(line))).toEqual([]);
    const retyped = await diff('--format', 'markdown');
    expect(retyped.stdout).toBe(
      [
        `### API changes: \`${ref}\` (main → working tree)`,
        '',
        '**1 breaking**, 0 compatible',
        '',
        '#### Breaking',
        '',
        '- `public.products.price`: type numeric → integer. values valid before may now be refused or read back differently, whatever the TypeScript type says.',
        '  ```diff',
        '  - price numeric NOT NULL',
        '  + price integer NOT NULL',
        '  ```',
        '',
      ].join('\n'),
    );
    expect(retyped.code).toBe(0);
    await commit('integer prices');
  });

  it('a changed policy is breaking and shown in full; --base reaches further back', async () => {
    await changeSchema(`ALTER TABLE products ENABLE ROW LEVEL SECURITY;
      CREATE POLICY "cheap for all" ON products FOR SELECT TO anon USING (price < 100)`);
    await commit('policy');
    await changeSchema('ALTER POLICY "cheap for all" ON products USING (price < 50)');
    const changed = await diff();
    expect(changed.stdout).toBe(
      [
        `${ref}: API changes from main to working tree: 1 breaking, 0 compatible`,
        'BREAKING public.products policy cheap for all: SELECT policy changed',
        '  which rows a request sees or may write changes',
        '  - CREATE POLICY "cheap for all" ON public.products',
        '  -   AS PERMISSIVE FOR SELECT',
        '  -   TO anon',
        '  -   USING ((price < 100))',
        '  + CREATE POLICY "cheap for all" ON public.products',
        '  +   AS PERMISSIVE FOR SELECT',
        '  +   TO anon',
        '  +   USING ((price < 50))',
        '',
      ].join('\n'),
    );
    const since = jsonObject(await diff('--base', 'HEAD~1', '--json')) as { changes: { kind: string; target: string }[] };
    expect(since.changes.map((c) => `${c.kind} ${c.target}`)).toEqual(['rls_changed public.products', 'policy_added public.products policy cheap for all']);
    await commit('cheaper');
  });

  it('compares from the merge-base: a branch behind main is not charged with what main changed since', async () => {
    await git('checkout', '-q', '-b', 'behind');
    await git('checkout', '-q', 'main');
    await changeSchema('ALTER TABLE products ADD COLUMN weight numeric');
    await commit('main adds weight');
    await git('checkout', '-q', 'behind');
    const forkedAt = (await git('merge-base', 'main', 'HEAD')).trim().slice(0, 7);
    // Compared with main's tip, the branch would "add back" the column: a change it never made.
    const tip = await diff('--base', 'main', '--json');
    expect(jsonObject(tip)).toMatchObject({ base: `main (merge-base ${forkedAt})`, changes: [], summary: { breaking: 0, compatible: 0 } });
    expect((await diff('--fail-on-breaking')).stdout).toBe(`${ref}: no API changes from main (merge-base ${forkedAt}) to working tree\n`);
    // The local database follows no branch: what main added is dropped by hand here.
    await changeSchema('ALTER TABLE products DROP COLUMN weight; ALTER TABLE products ADD COLUMN colour_code text');
    const own = jsonObject(await diff('--json')) as { changes: { kind: string; target: string; severity: string }[] };
    expect(own.changes.map((c) => `${c.severity} ${c.kind} ${c.target}`)).toEqual(['compatible column_added public.products.colour_code']);
    await git('checkout', '-q', '--', '.');
    await git('checkout', '-q', 'main');
    await db.query('ALTER TABLE products DROP COLUMN colour_code; ALTER TABLE products ADD COLUMN weight numeric');
  });

  it('an unknown base revision is an error', async () => {
    const unknown = await diff('--base', 'no-such-branch', '--json');
    expect(unknown.code).toBe(1);
    expect(jsonObject(unknown)).toEqual({ error: { code: 'base_not_found', message: 'git knows no revision "no-such-branch"' } });
  });
});

describe('gantry diff: migration lint (squawk)', () => {
  const file = (name: string) => path.join(inst.home, 'migrations', ref, name);

  it('lints the migration files new since the base; a squawk-ignore comment accepts a finding; --fail-on-lint exits 1', async () => {
    await fs.mkdir(path.dirname(file('x')), { recursive: true });
    await fs.writeFile(
      file('20261126120000_index_names.sql'),
      'CREATE INDEX products_name_idx ON products (name);\n-- squawk-ignore ban-drop-column\nALTER TABLE products DROP COLUMN name;\nALTER TABLE products ADD COLUMN sku text NOT NULL;\n',
    );
    const linted = await diff('--json', '--fail-on-lint');
    const shown = `migrations/${ref}/20261126120000_index_names.sql`;
    expect(jsonObject(linted).lint).toEqual({
      files: [shown],
      findings: [
        {
          file: shown,
          line: 1,
          column: 1,
          rule: 'require-concurrent-index-creation',
          level: 'warning',
          message: 'During normal index creation, table updates are blocked, but reads are still allowed.',
          help: 'Use `concurrently` to avoid blocking writes.',
        },
        {
          file: shown,
          line: 4,
          column: 22,
          rule: 'adding-required-field',
          level: 'warning',
          message: 'Adding a new column that is `NOT NULL` and has no default value to an existing table effectively makes it required.',
          help: 'Make the field nullable or add a non-VOLATILE DEFAULT',
        },
      ],
    });
    expect(linted.code).toBe(1);
    // Lint findings are not API changes: only --fail-on-lint fails on them.
    expect((await diff('--fail-on-breaking')).code).toBe(0);
    await commit('index');
    const committed = jsonObject(await diff('--json', '--fail-on-lint'));
    expect(committed.lint).toEqual({ files: [], findings: [] });
  });
});

import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseNameFor } from '../../runtime/platform/bootstrap.js';
import { cli, cliOk, installation, jsonObject, removeInstallation, type Installation } from '../helpers/serve-process.js';
import { createProject, SHOP_SQL } from '../helpers/blackbox-projects.js';

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
          endpoints: ['GET /rest/v1/products', 'POST /rest/v1/products', 'PATCH /rest/v1/products', 'DELETE /rest/v1/products'],
          types: [
            "Database['public']['Tables']['products']['Row'].colour: string | null added",
            "Database['public']['Tables']['products']['Insert'].colour?: string | null added",
            "Database['public']['Tables']['products']['Update'].colour?: string | null added",
          ],
          references: [],
          data: [],
          expandContract: null,
          accepted: null,
        },
      ],
      database: null,
      warnings: [],
      lint: { files: [], findings: [] },
      summary: { breaking: 0, accepted: 0, compatible: 1, lint: 0 },
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
        '  endpoints: GET /rest/v1/products, POST /rest/v1/products, PATCH /rest/v1/products, DELETE /rest/v1/products',
        '  types:',
        "    Database['public']['Tables']['products']['Row'].colour removed",
        "    Database['public']['Tables']['products']['Insert'].colour removed",
        "    Database['public']['Tables']['products']['Update'].colour removed",
        '  data: rows whose colour value is dropped with it: not counted: no database (gantry diff --data counts them)',
        '  expand/contract: stop every client and extension reading or writing colour (and drop its NOT NULL or give it a default), release, then drop it',
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
        '  - **Endpoints**: `GET /rest/v1/products`, `POST /rest/v1/products`, `PATCH /rest/v1/products`, `DELETE /rest/v1/products`',
        '  - **Types**: `database.types.ts` unchanged',
        '  - **Data**: rows with a fractional part in price (the cast to integer rounds them): not counted: no database (gantry diff --data counts them)',
        '  - **Data**: rows with price outside the range of integer (the migration fails, 22003): not counted: no database (gantry diff --data counts them)',
        '  - **Expand/contract**: add a column of type integer beside price, backfill it (deciding what happens to values that do not fit), write both, switch clients, then drop price',
        '',
        'Accept a breaking change the pull request means with `-- gantry:breaking <target> <reason>` in its migration.',
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
        '  endpoints: GET /rest/v1/products, POST /rest/v1/products, PATCH /rest/v1/products, DELETE /rest/v1/products',
        '  expand/contract: release the clients that cope with the new access rules first, then change them',
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

describe('gantry diff: what a reviewer must check (helpdesk)', () => {
  const changes = (report: Record<string, unknown>) => report.changes as Record<string, unknown>[];

  it('names the endpoints, generated types and extension code a rename touches; counts rows with --data; a marker accepts only what it names', async () => {
    await changeSchema(`CREATE TABLE tickets (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, org_id bigint NOT NULL, title text NOT NULL, status text NOT NULL DEFAULT 'open');
      CREATE TABLE invoices (id bigint PRIMARY KEY, amount numeric NOT NULL);
      REVOKE ALL ON invoices FROM anon, authenticated, service_role;
      GRANT SELECT ON invoices TO authenticated`);
    await commit('helpdesk');
    const change = 'ALTER TABLE tickets RENAME COLUMN title TO subject;\nALTER TABLE tickets ALTER COLUMN subject TYPE varchar(200);\nALTER TABLE tickets ADD COLUMN priority int;\nALTER TABLE invoices ALTER COLUMN amount TYPE integer;\n';
    await changeSchema(change);
    const migration = path.join(inst.home, 'migrations', ref, '20261128120000_subject.sql');
    await fs.writeFile(migration, change);
    // The database the release will migrate, still at the base: amounts as production holds them.
    await db.query('ALTER TABLE invoices ALTER COLUMN amount TYPE numeric; INSERT INTO invoices VALUES (1, 10), (2, 12.5), (3, 7.25)');
    const extension = (await fs.readFile(path.join(import.meta.dirname, '../fixtures/helpdesk/extension.ts.txt'), 'utf8')).replace('generated/helpdesk/', `generated/${ref}/`);
    await fs.mkdir(path.join(inst.home, 'extensions', ref), { recursive: true });
    await fs.writeFile(path.join(inst.home, 'extensions', ref, 'index.ts'), extension);

    const refused = await diff('--json', '--data', '--fail-on-breaking');
    expect(refused.code).toBe(1);
    const report = jsonObject(refused);
    expect(changes(report).map((c) => `${c.severity} ${c.kind} ${c.target}`)).toEqual([
      'breaking column_type_changed public.invoices.amount',
      'breaking column_renamed public.tickets.title',
      'breaking column_type_changed public.tickets.subject',
      'compatible column_added public.tickets.priority',
    ]);
    const [amount, renamed, retyped] = changes(report);
    expect(amount).toMatchObject({
      endpoints: ['GET /rest/v1/invoices'],
      types: [],
      data: [
        { description: 'rows with a fractional part in amount (the cast to integer rounds them)', rows: 2, note: null },
        { description: 'rows with amount outside the range of integer (the migration fails, 22003)', rows: 0, note: null },
      ],
    });
    expect(renamed).toMatchObject({
      message: 'column renamed: title → subject',
      endpoints: ['GET /rest/v1/tickets', 'POST /rest/v1/tickets', 'PATCH /rest/v1/tickets', 'DELETE /rest/v1/tickets', 'POST /functions/v1/close-ticket'],
      types: [
        "Database['public']['Tables']['tickets']['Row'].title: string → subject: string",
        "Database['public']['Tables']['tickets']['Insert'].title: string → subject: string",
        "Database['public']['Tables']['tickets']['Update'].title?: string → subject?: string",
      ],
      expandContract: 'add column subject, backfill it from title, write both (a trigger or the writers), switch clients to subject, then drop title',
      accepted: null,
    });
    const file = `extensions/${ref}/index.ts`;
    expect((renamed!.references as Record<string, unknown>[]).map((r) => `${r.file}:${r.line}:${r.column} ${r.kind} ${r.in} ${r.endpoint}`)).toEqual([
      `${file}:4:22 string null null`,
      `${file}:9:7 hook null null`,
      `${file}:10:45 property hook tickets.beforeInsert null`,
      `${file}:10:56 property hook tickets.beforeInsert null`,
      `${file}:19:32 sql route close-ticket POST /functions/v1/close-ticket`,
    ]);
    // The database no longer has title: it cannot answer for the base, and says so.
    expect(retyped!.data).toEqual([
      { description: 'rows with title longer than 200 characters (the migration fails, 22001)', rows: null, note: `not counted: the database's tickets has no column title (it is not at the base's schema)` },
    ]);

    await fs.writeFile(migration, `-- gantry:breaking tickets.title the app reads subject since 2.4\n-- gantry:breaking tickets.subject titles are at most 200 characters\n${change}`);
    const partly = await diff('--fail-on-breaking');
    expect(partly.code).toBe(1);
    expect(partly.stdout).toContain(`: 3 breaking (2 accepted), 1 compatible\nBREAKING public.invoices.amount: type numeric → integer\n`);
    await fs.writeFile(migration, `-- gantry:breaking tickets.title the app reads subject since 2.4\n-- gantry:breaking tickets.subject titles are at most 200 characters\n-- gantry:breaking invoices.amount amounts are whole euros\n-- gantry:breaking tickets.state no such column\n${change}`);
    const accepted = await diff('--fail-on-breaking', '--format', 'markdown');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(`**3 breaking** (3 accepted), 1 compatible\n\n#### Breaking, accepted\n\n- \`public.invoices.amount\`: type numeric → integer.`);
    expect(accepted.stdout).toContain(`  - **Accepted**: the app reads subject since 2.4 (\`migrations/${ref}/20261128120000_subject.sql:1\`)\n`);
    expect(accepted.stdout).toContain(`#### Warnings\n\n- \`migrations/${ref}/20261128120000_subject.sql:4\`: -- gantry:breaking tickets.state names no breaking change of this report\n`);
  });
});

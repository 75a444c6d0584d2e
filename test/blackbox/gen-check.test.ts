import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { writeSum } from '../../generator/migrations/sum-file.js';
import { createProject, deleteProject } from '../../runtime/platform/bootstrap.js';
import { Platform } from '../../runtime/platform/platform.js';
import { blogExtension } from '../helpers/extension-project.js';
import { randomRef, repoRoot, runCli, testConfig, type CliResult } from '../helpers/platform.js';

/**
 * The CI gate as CI runs it: `gantry gen --check` in a fresh checkout holding only what a team commits
 * (migrations/, generated/, extensions/), with a GANTRY_HOME that does not exist and no server. The checkout's
 * code was written by `gantry gen`; each test copies it and changes one thing.
 */

// Every run is a fresh Node process that loads the generator and the compiler, and builds the project.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const ref = randomRef('gate');
let template: string;
const scratch: string[] = [];

const MIGRATIONS = [
  ['20260101000000_blog.sql', await fs.readFile(path.join(repoRoot, 'test/fixtures/schemas/extensions.sql'), 'utf8')],
  ['20260102000000_post_subtitle.sql', 'ALTER TABLE public.posts ADD COLUMN subtitle text;\n'],
] as const;

const migrationsDir = (root: string): string => path.join(root, 'migrations', ref);
const generated = (root: string, file = ''): string => path.join(root, 'generated', ref, file);

/** The environment of a fresh checkout: nothing under GANTRY_HOME, and (without `shared`) no DATABASE_URL either. */
function checkoutEnv(root: string, shared: boolean): Record<string, string> {
  return {
    GANTRY_HOME: path.join(root, '.gantry'),
    GANTRY_GENERATED_DIR: path.join(root, 'generated'),
    DATABASE_URL: shared ? inject('databaseUrl') : '',
    LOG_LEVEL: 'warn',
  };
}

/** A copy of the committed files, as `git clone` gives them. */
async function freshCheckout(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-checkout-'));
  scratch.push(root);
  await fs.cp(template, root, { recursive: true });
  return root;
}

/** `gantry gen --check` run in the checkout (on the suite's cluster unless `alone`). */
function check(root: string, args: readonly string[] = [], options: { alone?: boolean } = {}): Promise<CliResult> {
  return runCli(['gen', '--check', ...args], checkoutEnv(root, !options.alone), root);
}

const lines = (run: CliResult): string[] => run.stdout.trimEnd().split('\n');

/** The remedy for code that differs where there is no local database (a fresh clone, CI). */
const FROM_MIGRATIONS = `  run: npx gantry gen ${ref} --from-migrations   (writes generated/${ref}/ as this check builds it, from migrations/${ref}/ alone)`;

/** The command of a remedy line (`run: CMD   (why)`), as arguments to bin/gantry.mjs. */
function remedyArgs(remedy: string): string[] {
  const command = /run: npx gantry (.+?)(?: {3}\(|$)/.exec(remedy.trim())?.[1];
  if (!command) throw new Error(`no command in "${remedy}"`);
  return command.split(' ');
}

/** The gate's remedy for the project, run as printed; the run's result. */
async function runRemedy(root: string, env: Record<string, string>): Promise<CliResult> {
  const run = await runCli(['gen', '--check', '--json'], env, root);
  expect(run.code).toBe(1);
  const { projects } = JSON.parse(run.stdout) as { projects: { remedy: string }[] };
  const remedy = await runCli(remedyArgs(projects[0]!.remedy), env, root);
  expect([remedy.code, remedy.stderr]).toEqual([0, '']);
  return remedy;
}

beforeAll(async () => {
  template = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-committed-'));
  scratch.push(template);
  await fs.mkdir(migrationsDir(template), { recursive: true });
  for (const [file, sql] of MIGRATIONS) await fs.writeFile(path.join(migrationsDir(template), file), sql);
  await fs.mkdir(path.join(template, 'extensions', ref), { recursive: true });
  await fs.writeFile(path.join(template, 'extensions', ref, 'index.ts'), await blogExtension(ref));
  // The committed code as a developer makes it: the project built from the migrations, then `gantry gen`.
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-dev-'));
  scratch.push(home);
  const env = { ...checkoutEnv(template, true), GANTRY_HOME: home };
  const platform = await Platform.open(await testConfig(env));
  try {
    await createProject(platform, { ref, schemaFiles: MIGRATIONS.map(([name, sql]) => ({ name, sql })) });
    const gen = await runCli(['gen', ref], env, template);
    expect(gen.code, gen.stderr).toBe(0);
    await writeSum(path.join(template, 'migrations'), ref);
    await deleteProject(platform, ref);
  } finally {
    await platform.close();
  }
});
afterAll(async () => {
  await Promise.all(scratch.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

describe('gantry gen --check, the CI gate', () => {
  it('passes on a fresh checkout with no GANTRY_HOME, no DATABASE_URL and no server, and leaves nothing behind', async () => {
    const root = await freshCheckout();
    const run = await check(root, [], { alone: true });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(lines(run)[0]).toBe(`${ref}: up to date`);
    expect(lines(run)[1]).toMatch(/^gen --check passes \(built from migrations in \d+(\.\d)? s\)$/);
    expect(lines(run)).toHaveLength(2);
    await expect(fs.stat(path.join(root, '.gantry'))).rejects.toThrow();
    expect((await fs.readdir(root)).sort()).toEqual(['extensions', 'generated', 'migrations']);
  });

  it('says the same in --json', async () => {
    const run = await check(await freshCheckout(), ['--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report).toEqual({
      check: true,
      source: 'migrations',
      passes: true,
      seconds: expect.any(Number),
      projects: [{ ref, status: 'up_to_date', summary: `${ref}: up to date`, migrations: 2, files: [], extensions: [], not_checkable: [], error: null, remedy: null, history: [], history_base: null }],
    });
  });

  it('fails when a generated file was edited, naming the file with a short hunk and the remedy', async () => {
    const root = await freshCheckout();
    const file = generated(root, 'tables/posts.ts');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('{ name: "subtitle", pgType: "text" },', '{ name: "subtitle", pgType: "text", nullable: false },'));
    const run = await check(root);
    expect(run.code).toBe(1);
    expect(lines(run).slice(0, -1)).toEqual([
      `${ref}: differs (1 file)`,
      '  M tables/posts.ts',
      expect.stringMatching(/^ {4}@@ -\d+ \+\d+ @@$/),
      '    -     { name: "subtitle", pgType: "text", nullable: false },',
      '    +     { name: "subtitle", pgType: "text" },',
      FROM_MIGRATIONS,
    ]);
    expect(lines(run).at(-1)).toMatch(/^gen --check fails: 1 of 1 project\(s\) \(built from migrations in [\d.]+ s\)$/);
  });

  it('shows a bounded number of lines per file, then how many more', async () => {
    const root = await freshCheckout();
    const file = generated(root, 'openapi.json');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replaceAll('"description":', '"Description":'));
    const run = await check(root, ['--json']);
    expect(run.code).toBe(1);
    const { projects } = JSON.parse(run.stdout) as { projects: { status: string; files: { path: string; change: string; hunks: string }[] }[] };
    expect(projects[0]!.status).toBe('differs');
    const [openapi] = projects[0]!.files;
    expect([openapi!.path, openapi!.change]).toEqual(['openapi.json', 'modified']);
    const shown = openapi!.hunks.split('\n').filter((line) => /^ {2}[-+] /.test(line));
    expect(shown).toHaveLength(12);
    expect(openapi!.hunks.split('\n').at(-1)).toMatch(/^ {2}… \d+ more changed line\(s\)$/);
  });

  it('fails when a migration was edited: the code no longer matches what the migrations give', async () => {
    const root = await freshCheckout();
    await fs.appendFile(path.join(migrationsDir(root), MIGRATIONS[1][0]), 'ALTER TABLE public.notes ADD COLUMN pinned boolean NOT NULL DEFAULT false;\n');
    const run = await check(root, ['--json']);
    expect(run.code).toBe(1);
    const { projects } = JSON.parse(run.stdout) as { projects: { summary: string; files: { path: string; change: string }[]; remedy: string }[] };
    expect(projects[0]!.files.map((f) => [f.path, f.change])).toEqual([
      ['api.d.ts', 'modified'],
      ['database.types.ts', 'modified'],
      ['openapi.json', 'modified'],
      ['schema.json', 'modified'],
      ['tables/notes.ts', 'modified'],
    ]);
    expect(projects[0]!.summary).toBe(`${ref}: differs (5 files)`);
    expect(projects[0]!.remedy).toBe(FROM_MIGRATIONS.trim());
  });

  it('fails with the extension\'s file:line:col when a migration breaks it', async () => {
    const root = await freshCheckout();
    await fs.writeFile(path.join(migrationsDir(root), '20260103000000_rename_slug.sql'), 'ALTER TABLE public.posts RENAME COLUMN slug TO handle;\n');
    const run = await check(root);
    expect(run.code).toBe(1);
    const out = lines(run);
    expect(out[0]).toMatch(new RegExp(`^${ref}: differs \\(\\d+ files\\)$`));
    const problems = out.slice(out.indexOf(`${ref}: extensions do not typecheck`) + 1).filter((line) => line.startsWith('  extensions/'));
    // The queries PostgreSQL refuses first (as migrate prints them: test/blackbox/migration-commands.test.ts), then the compiler's findings.
    expect(problems[0]).toBe(`  extensions/${ref}/index.ts:35:31 SELECT count(*)::int AS n FROM public.posts WHERE slug = $1: column "slug" does not exist (42703, at character 51 of the query)`);
    expect(problems[2]).toMatch(new RegExp(`^  extensions/${ref}/index\\.ts:\\d+:\\d+ Property 'slug' does not exist`));
  });

  it('fails on generated code with no migrations', async () => {
    const root = await freshCheckout();
    await fs.rm(path.join(root, 'migrations'), { recursive: true });
    const run = await check(root);
    expect(run.code).toBe(1);
    expect(lines(run).slice(0, 2)).toEqual([
      `${ref}: generated code without migrations (migrations/${ref}/ holds none)`,
      `  commit the schema as migrations (npx gantry migration import ${ref} DIR, or npx gantry migration new ${ref} NAME), or delete generated/${ref}/ if the project is gone`,
    ]);
  });

  it('fails on migrations with no generated code', async () => {
    const root = await freshCheckout();
    await fs.rm(path.join(root, 'generated'), { recursive: true });
    const run = await check(root);
    expect(run.code).toBe(1);
    expect(lines(run)[0]).toMatch(new RegExp(`^${ref}: no generated code for 2 migrations \\(generated/${ref}/ lacks \\d+ files\\)$`));
    expect(lines(run)[1]).toBe(FROM_MIGRATIONS);
  });

  it('fails, naming the file and line, when a migration does not run on a fresh database', async () => {
    const root = await freshCheckout();
    await fs.writeFile(path.join(migrationsDir(root), '20260103000000_broken.sql'), '\nALTER TABLE public.nowhere ADD COLUMN x int;\n');
    const run = await check(root);
    expect(run.code).toBe(1);
    expect(lines(run).slice(0, 2)).toEqual([
      `${ref}: migrations fail on a fresh database`,
      `  migrations/${ref}/20260103000000_broken.sql:2: relation "public.nowhere" does not exist (SQLSTATE 42P01)`,
    ]);
  });

  it('an edited generated file in a fresh clone: the remedy, run, makes the gate pass', async () => {
    const root = await freshCheckout();
    const file = generated(root, 'tables/posts.ts');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('{ name: "subtitle", pgType: "text" },', '{ name: "subtitle", pgType: "text", nullable: false },'));
    const env = checkoutEnv(root, true);
    await runRemedy(root, env);
    const after = await check(root);
    expect([after.code, lines(after)[0]]).toEqual([0, `${ref}: up to date`]);
  });

  it('with a local database: a pending migration names migrate, one from another branch names db reset; each, run, makes the gate pass', async () => {
    const root = await freshCheckout();
    const env = checkoutEnv(root, true);
    const created = await runCli(['project', 'create', ref], env, root);
    expect([created.code, created.stderr]).toEqual([0, '']);
    try {
      const views = path.join(migrationsDir(root), '20260103000000_post_views.sql');
      await fs.writeFile(views, 'ALTER TABLE public.posts ADD COLUMN views int;\n');
      const pending = await check(root, ['--json']);
      expect((JSON.parse(pending.stdout) as { projects: { remedy: string }[] }).projects[0]!.remedy).toBe(
        `run: npx gantry migrate ${ref}   (the local database lacks migrations of this branch: it applies them and regenerates)`,
      );
      await runRemedy(root, env);
      expect((await check(root)).code).toBe(0);

      // The checkout switches to a branch without that migration; the local database and the code still have it.
      await fs.rm(views);
      const other = await check(root, ['--json']);
      expect((JSON.parse(other.stdout) as { projects: { remedy: string }[] }).projects[0]!.remedy).toBe(
        `run: npx gantry db reset ${ref} --yes   (the local database ran migrations this branch does not have: it is rebuilt from this branch's migrations and seed.sql, keys and settings kept, and the code regenerated)`,
      );
      await runRemedy(root, env);
      const after = await check(root);
      expect([after.code, lines(after)[0]]).toEqual([0, `${ref}: up to date`]);
    } finally {
      await runCli(['project', 'delete', ref], env, root);
    }
  }, 480_000);

  it('fails when there is nothing to check: a gate run in the wrong folder proves nothing', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-empty-'));
    scratch.push(root);
    const run = await check(root, ['--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: 'no_projects', message: `no project to check: neither ${path.join(root, 'generated')} nor ${path.join(root, 'migrations')} holds a project folder` },
    });
  });
});

describe('gantry gen --check: history on branches and merges (git)', () => {
  const exec = promisify(execFile);
  const gitIn = (root: string) => async (...args: string[]): Promise<string> => (await exec('git', ['-C', root, ...args])).stdout;

  /** A fresh checkout made a git repository on main, with the .gitattributes line gantry init writes. */
  async function repository(): Promise<{ root: string; git: (...args: string[]) => Promise<string>; env: Record<string, string> }> {
    const root = await freshCheckout();
    const git = gitIn(root);
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.email', 'team@example.com');
    await git('config', 'user.name', 'Team');
    await fs.writeFile(path.join(root, '.gitattributes'), 'migrations/*/gantry.sum merge=union\n');
    await fs.writeFile(path.join(root, '.gitignore'), '.gantry/\n');
    await git('add', '-A');
    await git('commit', '-qm', 'blog');
    return { root, git, env: checkoutEnv(root, true) };
  }

  it('an edited migration of main fails the gate even when the API is unchanged and gantry.sum was rewritten', async () => {
    const { root, git, env } = await repository();
    await git('checkout', '-qb', 'index');
    await fs.appendFile(path.join(migrationsDir(root), MIGRATIONS[0][0]), 'CREATE INDEX posts_title_idx ON public.posts (title);\n');
    expect((await runCli(['gen', ref, '--from-migrations'], env, root)).code).toBe(0);
    const run = await check(root);
    expect(run.code).toBe(1);
    expect(lines(run).slice(0, 4)).toEqual([
      `${ref}: up to date`,
      `${ref}: schema history: 1 problem (against main)`,
      `  migrations/${ref}/${MIGRATIONS[0][0]}: edited since main recorded it in gantry.sum`,
      expect.stringMatching(new RegExp(`^ {4}restore it: git checkout [0-9a-f]{12} -- migrations/${ref}/${MIGRATIONS[0][0]}; a change to a merged migration goes in a new one: npx gantry migration new ${ref} NAME$`)),
    ]);
  });

  it('two schema branches merged: gantry.sum merges by union, generated/ conflicts; gen --from-migrations resolves it mid-merge; the older version is reported out of order, and its remedy passes', async () => {
    const { root, git, env } = await repository();
    const add = async (file: string, sql: string) => {
      await fs.writeFile(path.join(migrationsDir(root), file), sql);
      const gen = await runCli(['gen', ref, '--from-migrations'], env, root);
      expect([gen.code, gen.stderr]).toEqual([0, '']);
      await git('add', '-A');
      await git('commit', '-qm', file);
    };
    await git('checkout', '-qb', 'colour');
    await add('20260103000000_post_colour.sql', 'ALTER TABLE public.posts ADD COLUMN colour text;\n');
    await git('checkout', '-q', 'main');
    await add('20260104000000_post_views.sql', 'ALTER TABLE public.posts ADD COLUMN views int;\n');
    await git('checkout', '-q', 'colour');

    const merge = await exec('git', ['-C', root, 'merge', 'main', '-m', 'merge main']).then(() => null, (error: { stdout: string }) => error.stdout);
    expect(merge).toMatch(new RegExp(`CONFLICT \\(content\\): Merge conflict in generated/${ref}/`));
    expect(merge).not.toMatch(/CONFLICT.*gantry\.sum/);
    expect(await fs.readFile(generated(root, 'schema.json'), 'utf8')).toContain('<<<<<<<');
    const midMerge = await check(root);
    expect([midMerge.code, lines(midMerge)[0]]).toEqual([1, expect.stringMatching(new RegExp(`^${ref}: differs \\(\\d+ files?\\)$`))]);

    const resolved = await runCli(['gen', ref, '--from-migrations'], env, root);
    expect([resolved.code, resolved.stderr]).toEqual([0, '']);
    await git('add', '-A');
    await git('commit', '-q', '--no-edit');
    const merged = await check(root, ['--json']);
    expect(merged.code).toBe(1);
    const [project] = (JSON.parse(merged.stdout) as { projects: { status: string; history: { kind: string; message: string; remedy: string }[]; history_base: string }[] }).projects;
    expect(project!.status).toBe('up_to_date');
    expect(project!.history_base).toBe('main');
    expect(project!.history.map((h) => [h.kind, h.message])).toEqual([
      [
        'out_of_order',
        `migrations/${ref}/20260103000000_post_colour.sql: older than 20260104000000_post_views.sql, the newest migration on main: a database that ran main's would run it after newer ones, a fresh one before them`,
      ],
    ]);
    const [, from, to] = /^give it a later version: git mv (\S+) (\S+) && npx gantry gen \S+ --from-migrations$/.exec(project!.history[0]!.remedy)!;
    await git('mv', from!, to!);
    const renumbered = await runCli(['gen', ref, '--from-migrations'], env, root);
    expect([renumbered.code, renumbered.stderr]).toEqual([0, '']);
    await git('add', '-A');
    await git('commit', '-qm', 'colour after views');
    const after = await check(root);
    expect([after.code, lines(after)[0]]).toEqual([0, `${ref}: up to date`]);
  }, 480_000);
});

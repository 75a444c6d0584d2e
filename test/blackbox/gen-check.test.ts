import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createProject, deleteProject } from '../../runtime/platform/bootstrap.js';
import { Platform } from '../../runtime/platform/platform.js';
import { blogExtension } from '../extensions/project.js';
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
      projects: [{ ref, status: 'up_to_date', summary: `${ref}: up to date`, migrations: 2, files: [], extensions: [], error: null, remedy: null }],
    });
  });

  it('fails when a generated file was edited, naming the file with a short hunk and the remedy', async () => {
    const root = await freshCheckout();
    const file = generated(root, 'tables/posts.ts');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('subtitle?: string | null;', 'subtitle?: string;'));
    const run = await check(root);
    expect(run.code).toBe(1);
    expect(lines(run).slice(0, -1)).toEqual([
      `${ref}: differs (1 file)`,
      '  M tables/posts.ts',
      expect.stringMatching(/^ {4}@@ -\d+ \+\d+ @@$/),
      '    -   subtitle?: string;',
      '    +   subtitle?: string | null;',
      `  run: npx gantry gen ${ref}`,
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
    expect(projects[0]!.remedy).toBe(`run: npx gantry gen ${ref}`);
  });

  it('fails with the extension\'s file:line:col when a migration breaks it', async () => {
    const root = await freshCheckout();
    await fs.writeFile(path.join(migrationsDir(root), '20260103000000_rename_slug.sql'), 'ALTER TABLE public.posts RENAME COLUMN slug TO handle;\n');
    const run = await check(root);
    expect(run.code).toBe(1);
    const out = lines(run);
    expect(out[0]).toMatch(new RegExp(`^${ref}: differs \\(\\d+ files\\)$`));
    const problems = out.slice(out.indexOf(`${ref}: extensions do not typecheck`) + 1).filter((line) => line.startsWith('  extensions/'));
    expect(problems[0]).toMatch(new RegExp(`^  extensions/${ref}/index\\.ts:\\d+:\\d+ Property 'slug' does not exist`));
    expect(problems.length).toBeGreaterThan(1);
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
    expect(lines(run)[1]).toBe(`  run: npx gantry gen ${ref}`);
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

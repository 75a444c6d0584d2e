import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type TestHost, type TestProject } from '../../helpers/platform.js';
import { blogExtension, blogProject, writeExtension } from '../../helpers/extension-project.js';

/**
 * The compiler as the reviewer's tool: `gantry gen --check --live` typechecks a project's extensions against
 * the types it generates from the live schema (`gen --check` does the same from the migrations: test/blackbox/gen-check.test.ts), so a migration that breaks one fails with its file and line.
 */

// Every CLI run is a fresh Node process that loads the generator and the compiler: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

let host: TestHost;
let project: TestProject;
let ref: string;

beforeAll(async () => {
  ({ host, project } = await blogProject());
  ref = project.record.ref;
});
afterAll(() => host?.close());

describe('gen --check --live typechecks extensions', () => {
  it('passes while the extension matches the schema', async () => {
    const result = await runCli(['gen', '--check', '--live', ref], host.env);
    expect([result.code, result.stdout.trim()]).toEqual([0, `${ref}: up to date`]);
  });

  it('fails with the extension file and line when a migration renames a column it uses, and passes once fixed', async () => {
    const migration = path.join(host.env.GANTRY_HOME!, 'rename.sql');
    await fs.writeFile(migration, 'ALTER TABLE public.posts RENAME COLUMN slug TO handle;');
    // --force: migrate itself refuses a migration that breaks the extension (test/blackbox/migration-commands.test.ts).
    expect((await runCli(['migrate', ref, migration, '--force'], host.env)).code).toBe(0);

    const broken = await runCli(['gen', '--check', '--live', ref], host.env);
    expect(broken.code).toBe(1);
    const lines = broken.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual([`${ref}: up to date`, `${ref}: extensions do not typecheck`]);
    const file = `extensions/${ref}/index.ts`;
    // First the queries PostgreSQL refuses (Describe, as the hook and the route send them), then the compiler's findings.
    expect(lines.slice(2).map((line) => line.replace(/ on type .*$/, ''))).toEqual([
      `${file}:35:31 SELECT count(*)::int AS n FROM public.posts WHERE slug = $1: column "slug" does not exist (42703, at character 51 of the query)`,
      `${file}:67:28 SELECT id, slug, status FROM public.posts WHERE ($1::text IS NULL OR status = $2) AND ($3::text[] IS NULL OR slug = ANY($4)) ORDER BY id DESC LIMIT $5: column "slug" does not exist (42703, at character 23 of the query)`,
      `${file}:34:15 Property 'slug' does not exist`,
      `${file}:34:34 Property 'slug' does not exist`,
      `${file}:35:117 Property 'slug' does not exist`,
      `${file}:36:93 Property 'slug' does not exist`,
      `${file}:36:116 Property 'slug' does not exist`,
      `${file}:41:19 Property 'slug' does not exist`,
      `${file}:47:44 Property 'slug' does not exist`,
      `${file}:52:39 Property 'slug' does not exist`,
      `${file}:52:95 Property 'slug' does not exist`,
    ]);

    const fix = (await blogExtension(ref))
      .replaceAll('row.slug', 'row.handle')
      .replaceAll('patch.slug', 'patch.handle')
      .replace('WHERE slug =', 'WHERE handle =')
      .replace('SELECT id, slug, status', 'SELECT id, handle AS slug, status')
      .replace('OR slug = ANY', 'OR handle = ANY');
    await writeExtension(host, ref, fix);
    // The queries' text changed, so their types too: `gen` writes extension-queries.ts anew, and the extension checks.
    const fixed = await runCli(['gen', ref], host.env);
    expect([fixed.code, fixed.stdout.split('\n')[0], fixed.stdout.includes('extensions do not typecheck')]).toEqual([0, `${ref}: written`, false]);
  });
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/platform.js';

/**
 * `gantry init` run as a team runs it, in its own repository folder (a separate process whose cwd is
 * that folder): the files it writes, a second run that changes nothing, a second project, and a file
 * the team changed left alone.
 */

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

async function teamRepo(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-team-'));
  dirs.push(dir);
  await fs.writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'helpdesk-app', private: true, scripts: { 'gantry:check': 'echo mine' } }, null, 4)}\n`);
  return dir;
}

/** A clean environment: nothing pointing at another root's folders. */
const ENV = { GANTRY_GENERATED_DIR: '', GANTRY_MIGRATIONS_DIR: '', GANTRY_EXTENSIONS_DIR: '', GANTRY_HOME: '' };

async function init(cwd: string, args: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  const result = await runCli(['init', ...args, '--json'], ENV, cwd);
  return { code: result.code, json: JSON.parse(result.stdout) as Record<string, unknown>, stderr: result.stderr };
}

const read = (dir: string, file: string): Promise<string> => fs.readFile(path.join(dir, file), 'utf8');

describe('gantry init', () => {
  it('writes the team folder once, changes nothing the second time, adds a project, and keeps a file the team changed', async () => {
    const repo = await teamRepo();
    const first = await init(repo, ['helpdesk']);
    expect(first.code).toBe(0);
    expect(first.json).toEqual({
      root: repo,
      config: path.join(repo, 'gantry.toml'),
      projects: ['helpdesk'],
      files: [
        { path: 'gantry.toml', status: 'created' },
        { path: 'extensions/helpdesk/tsconfig.json', status: 'created' },
        { path: '.gitignore', status: 'created' },
        { path: '.gitattributes', status: 'created' },
        { path: 'package.json', status: 'updated', note: 'added "gantry:serve", "gantry:migrate"; kept your "gantry:check"' },
        { path: '.github/workflows/gantry.yml', status: 'created' },
      ],
    });
    expect(await read(repo, 'gantry.toml')).toMatch(/\n\[projects\.helpdesk\]\n$/);
    expect(await fs.stat(path.join(repo, 'migrations/helpdesk')).then((s) => s.isDirectory())).toBe(true);
    expect(JSON.parse(await read(repo, 'extensions/helpdesk/tsconfig.json'))).toEqual({
      extends: 'gantry/tsconfig.extensions.json',
      include: ['./**/*.ts', '../../generated/helpdesk/**/*.ts'],
    });
    expect(await read(repo, '.gitignore')).toBe('# Gantry: local state and dependencies\nnode_modules/\n.gantry/\n');
    expect(await read(repo, '.gitattributes')).toBe('# Gantry: generated code folded in reviews, migration sums merged by union\ngenerated/** linguist-generated=true\nmigrations/*/gantry.sum merge=union\n');
    expect(JSON.parse(await read(repo, 'package.json')).scripts).toEqual({
      'gantry:check': 'echo mine',
      'gantry:serve': 'gantry serve',
      'gantry:migrate': 'gantry migrate --all',
    });
    // package.json keeps its own indentation.
    expect(await read(repo, 'package.json')).toContain('\n    "scripts": {\n');
    const workflow = await read(repo, '.github/workflows/gantry.yml');
    expect([...workflow.matchAll(/^\s*- run: (.+)$/gm)].map((m) => m[1])).toEqual([
      'npm ci',
      'npx gantry gen --check',
      'npx gantry diff helpdesk --fail-on-breaking --fail-on-lint',
    ]);

    const again = await init(repo, ['helpdesk']);
    expect(again.code).toBe(0);
    expect((again.json.files as { status: string }[]).map((f) => f.status)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);

    // From a subfolder: the root is found upwards. The workflow is init's own, so it gains the new project.
    await fs.mkdir(path.join(repo, 'src/app'), { recursive: true });
    const second = await init(path.join(repo, 'src/app'), ['billing']);
    expect(second.json.root).toBe(repo);
    expect(second.json.projects).toEqual(['billing', 'helpdesk']);
    expect(await read(repo, '.github/workflows/gantry.yml')).toContain('npx gantry diff billing --fail-on-breaking --fail-on-lint\n      - run: npx gantry diff helpdesk');

    // A workflow the team edited is theirs: init reports it kept and leaves it as it is.
    const edited = `${await read(repo, '.github/workflows/gantry.yml')}      - run: npm test\n`;
    await fs.writeFile(path.join(repo, '.github/workflows/gantry.yml'), edited);
    const third = await init(repo, ['reports']);
    expect(third.code).toBe(0);
    expect(third.json.files).toContainEqual({ path: '.github/workflows/gantry.yml', status: 'kept', note: "it differs from what init writes; remove it to get init's version" });
    expect(await read(repo, '.github/workflows/gantry.yml')).toBe(edited);
  });

  it('refuses a bad ref and a broken gantry.toml with a coded error and no stack', async () => {
    const repo = await teamRepo();
    const bad = await init(repo, ['Bad-Ref']);
    expect(bad.code).toBe(1);
    expect(bad.json).toEqual({ error: { code: 'invalid_ref', message: 'invalid project ref "Bad-Ref": it must match ^[a-z][a-z0-9_]{2,39}$' } });
    await fs.writeFile(path.join(repo, 'gantry.toml'), '[projects.shop\n');
    const broken = await init(repo, ['shop']);
    expect(broken.code).toBe(1);
    expect((broken.json.error as { code: string }).code).toBe('invalid_config');
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    expect(await fs.readdir(repo)).toEqual(['gantry.toml', 'package.json']);
  });
});

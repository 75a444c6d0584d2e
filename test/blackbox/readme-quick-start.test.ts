import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { docsExample } from '../helpers/docs-examples.js';
import { repoRoot } from '../helpers/platform.js';
import { servedInstallation, shutDown, type Server } from '../helpers/serve-process.js';

/**
 * The README's "Trying the demo project" as a newcomer runs it: its two shell blocks, taken from the page
 * and changed only in the port, in one bash beside `gantry serve` in its own process (which stands for the
 * block's `npm start &`), with the installation's environment.
 */

// The blocks run the CLI (a fresh Node process each) and a supabase-js program: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

const execFileAsync = promisify(execFile);
let server: Server;
/**
 * Where the blocks run: a folder inside this repository (so `npx gantry` and the block's imports resolve as in
 * the repository) holding a copy of its gantry.toml, which makes it the project root: the block's
 * `project config demo --set` writes the demo's setting into that copy, not into the committed file.
 */
let root: string;

beforeAll(async () => {
  await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
  root = await fs.mkdtemp(path.join(repoRoot, 'test-output', 'readme-'));
  await fs.copyFile(path.join(repoRoot, 'gantry.toml'), path.join(root, 'gantry.toml'));
  server = await servedInstallation();
});
afterAll(async () => {
  await shutDown(server);
  await fs.rm(root, { recursive: true, force: true });
});

/** The README's blocks as one script for this installation: its server already runs, on its own port. */
function quickStart(): string {
  const curl = docsExample('README.md', 'rpc/add_numbers');
  const supabase = docsExample('README.md', "from '@supabase/supabase-js'");
  expect(curl.startsWith('npm start &\n')).toBe(true);
  return `${curl.slice('npm start &\n'.length)}\n${supabase}`.replaceAll('http://127.0.0.1:54321', server.inst.baseUrl);
}

describe('README: Trying the demo project', () => {
  it('the curl and supabase-js examples print the published posts, the sum, and the new user\'s todo', async () => {
    const { stdout } = await execFileAsync('bash', ['-euo', 'pipefail', '-c', quickStart()], {
      cwd: root,
      env: { ...process.env, ...server.inst.env },
    });
    // curl prints the answers without a newline: the posts' JSON array, then the sum; then what config and node print.
    const [, posts, sum, rest] = /^(\[[\s\S]*?\])(\d+)([\s\S]*)$/.exec(stdout) ?? [];
    expect(JSON.parse(posts as string)).toEqual([
      { title: 'Notes on the Analytical Engine', authors: { name: 'Ada Lovelace' }, tags: [{ name: 'history' }, { name: 'hardware' }] },
      { title: 'Bernoulli numbers', authors: { name: 'Ada Lovelace' }, tags: [{ name: 'history' }, { name: 'math' }] },
      { title: 'Computing machinery and intelligence', authors: { name: 'Alan Turing' }, tags: [{ name: 'ai' }] },
      { title: 'The first bug', authors: { name: 'Grace Hopper' }, tags: [{ name: 'history' }, { name: 'hardware' }] },
    ]);
    expect(sum).toBe('5');
    const printed = rest ?? '';
    expect(printed.startsWith('api.schemas=public\n')).toBe(true);
    expect(printed).toContain('\nauth.autoconfirm=true\n');
    expect(printed).toContain("title: 'Notes on the Analytical Engine',\n    authors: { name: 'Ada Lovelace' }\n");
    expect(printed).toContain("{ title: 'Bernoulli numbers', authors: { name: 'Ada Lovelace' } }\n]\n");
    expect(printed).toMatch(/^reader\d+@example\.com \[ \{ task: 'read the docs', done: false \} \]$/m);
    expect(await fs.readFile(path.join(root, 'gantry.toml'), 'utf8')).toContain('\n[projects.demo.settings]\n"auth.autoconfirm" = true\n');
  });
});

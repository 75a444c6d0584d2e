import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../helpers/platform.js';

/**
 * The CI workflow the docs give (docs/ci/github-actions.yml) runs the gate exactly as documented: its `run:` steps,
 * in order, in a fresh clone of this repository, with no GANTRY_HOME, no DATABASE_URL and no server. One step is
 * stood in for: `npm ci` becomes a link to the node_modules this suite runs with (the test has no registry to
 * install from, and the installed tree is what `npm ci` gives from the same lock file).
 */

vi.setConfig({ testTimeout: 300_000 });

const WORKFLOW = path.join(repoRoot, 'docs/ci/github-actions.yml');
let clone: string | null = null;

afterAll(async () => {
  if (clone) await fs.rm(clone, { recursive: true, force: true });
});

/** The environment of a CI runner: this one's, without anything that points Gantry at local state. */
function runnerEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name === 'DATABASE_URL' || name === 'DATABASE_DIRECT_URL' || name.startsWith('GANTRY_')) delete env[name];
  return env;
}

describe('docs/ci/github-actions.yml', () => {
  it('runs npm ci and then the gate, which passes on a fresh clone of this repository', async () => {
    const steps = [...(await fs.readFile(WORKFLOW, 'utf8')).matchAll(/^\s*- run: (.+)$/gm)].map((m) => m[1]!.trim());
    expect(steps).toEqual(['npm ci', 'npx gantry gen --check']);

    clone = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-clone-'));
    execFileSync('git', ['clone', '--quiet', '--depth', '1', `file://${repoRoot}`, clone]);
    const outputs: string[] = [];
    for (const step of steps) {
      if (step === 'npm ci') {
        await fs.symlink(path.join(repoRoot, 'node_modules'), path.join(clone, 'node_modules'));
        continue;
      }
      const run = spawnSync('sh', ['-c', step], { cwd: clone, env: runnerEnv(), encoding: 'utf8' });
      expect(run.status, `${step}\n${run.stdout}${run.stderr}`).toBe(0);
      outputs.push(run.stdout);
    }
    const gate = outputs.at(-1)!.trimEnd().split('\n');
    expect(gate).toContain('demo: up to date');
    expect(gate.at(-1)).toMatch(/^gen --check passes \(built from migrations in [\d.]+ s\)$/);
    // The gate leaves the clone as it found it: no GANTRY_HOME, no generated file touched.
    expect(execFileSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=all'], { cwd: clone, encoding: 'utf8' })).toBe('!! node_modules\n');
  });
});

/**
 * The CI gate's time: `gantry gen --check` as a fresh process in a fresh checkout, for the demo project (this
 * repository's migrations/demo, generated/demo and extensions/demo) and for a 50-table project (bench/gen-500.ts's
 * schema), each alone; without DATABASE_URL (the gate starts its own scratch cluster, as in CI) and with it.
 *
 *   DATABASE_URL=... npx tsx bench/gate.ts [--tables 50] [--runs 3]
 *
 * DATABASE_URL (a running cluster) is needed to write the 50-table project's committed code with `gantry gen`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchSchema } from './gen-500.js';

const { values } = parseArgs({ options: { tables: { type: 'string', default: '50' }, runs: { type: 'string', default: '3' } } });
const root = path.resolve(import.meta.dirname, '..');
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('set DATABASE_URL (a superuser URL of a running cluster)');
const bin = path.join(root, 'bin/gantry.mjs');

/** A checkout: the committed folders, and runtime/ and node_modules/ beside them for the extensions' imports. */
async function checkout(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-gate-bench-'));
  for (const folder of ['runtime', 'node_modules']) await fs.symlink(path.join(root, folder), path.join(dir, folder));
  return dir;
}

async function demoCheckout(): Promise<string> {
  const dir = await checkout();
  for (const folder of ['generated/demo', 'extensions/demo', 'migrations/demo']) {
    await fs.cp(path.join(root, folder), path.join(dir, folder), { recursive: true }).catch(() => undefined);
  }
  const migrations = path.join(dir, 'migrations/demo');
  if ((await fs.readdir(migrations).catch(() => [])).length === 0) {
    await fs.mkdir(migrations, { recursive: true });
    await fs.copyFile(path.join(root, 'runtime/platform/demo/schema.sql'), path.join(migrations, '20260101000000_demo_schema.sql'));
  }
  return dir;
}

/** A project of `tables` tables whose committed code `gantry project create` wrote (the migration copied in when it did not). */
async function tablesCheckout(tables: number): Promise<string> {
  const dir = await checkout();
  const ref = `gate_bench_${Date.now().toString(36)}`;
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-gate-home-'));
  const env = { ...process.env, GANTRY_HOME: home, GANTRY_GENERATED_DIR: path.join(dir, 'generated'), LOG_LEVEL: 'warn' };
  const schema = path.join(home, 'schema.sql');
  await fs.writeFile(schema, benchSchema(tables));
  execFileSync(process.execPath, [bin, 'project', 'create', ref, '--schema', schema, '--json'], { cwd: dir, env });
  const migrations = path.join(dir, 'migrations', ref);
  if ((await fs.readdir(migrations).catch(() => [])).length === 0) {
    await fs.mkdir(migrations, { recursive: true });
    await fs.copyFile(schema, path.join(migrations, '20260101000000_schema.sql'));
  }
  // `project delete` removes the generated code too: keep the committed copy aside meanwhile.
  const aside = path.join(home, 'generated');
  await fs.rename(path.join(dir, 'generated', ref), aside);
  execFileSync(process.execPath, [bin, 'project', 'delete', ref, '--json'], { cwd: dir, env });
  await fs.rename(aside, path.join(dir, 'generated', ref));
  await fs.rm(home, { recursive: true, force: true });
  return dir;
}

function timeGate(dir: string, shared: boolean): number {
  const env = { ...process.env, GANTRY_HOME: path.join(dir, '.gantry'), GANTRY_GENERATED_DIR: path.join(dir, 'generated'), DATABASE_URL: shared ? databaseUrl : '' };
  const started = performance.now();
  const run = spawnSync(process.execPath, [bin, 'gen', '--check'], { cwd: dir, env, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`gen --check failed in ${dir}:\n${run.stdout}${run.stderr}`);
  return seconds;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const [label, make] of [
  ['demo', demoCheckout],
  [`${values.tables} tables`, () => tablesCheckout(Number(values.tables))],
] as const) {
  const dir = await make();
  try {
    for (const shared of [false, true]) {
      const times = Array.from({ length: Number(values.runs) }, () => timeGate(dir, shared));
      console.log(`${label}, ${shared ? 'DATABASE_URL' : 'scratch embedded cluster'}: median ${median(times).toFixed(1)} s (${times.map((t) => t.toFixed(1)).join(', ')})`);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

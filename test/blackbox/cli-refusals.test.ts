import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, installation, removeInstallation, type CliRun, type Installation } from '../helpers/serve-process.js';

/**
 * Every command refusing over-long and hostile names, refs, paths and options, each run as its own
 * process as a user runs it: exit 1, one `{"error": {code, message}}` on stdout with --json, the same
 * message on stderr, a stable code (never `internal`) and no stack trace; nothing written.
 */

// Each run is a fresh Node process; the machine is shared, so two at a time.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 60_000 });

let inst: Installation;

beforeAll(async () => {
  inst = await installation();
});
afterAll(async () => {
  await removeInstallation(inst);
});

const LONG = 'a'.repeat(240);
const INJECTION = "x'; drop table users; --";
const REF = 'refusals';

/** Argument lists and the code each must be refused with: each command once. */
const REFUSALS: readonly (readonly [readonly string[], string])[] = [
  [['migration', 'new', REF, '../../etc/passwd'], 'invalid_migration_name'],
  [['migration', 'new', REF, INJECTION], 'invalid_migration_name'],
  [['migration', 'new', LONG, 'add_stock'], 'invalid_ref'],
  [['migration', 'list', LONG], 'invalid_ref'],
  [['migration', 'repair', REF, LONG, '--status', 'applied'], 'migration_not_found'],
  [['migration', 'import', REF, `/nonexistent/${LONG}/${LONG}`], 'migration_not_found'],
  [['migrate', '../../etc'], 'invalid_ref'],
  [['migrate', REF, `/nonexistent/${LONG}/${LONG}.sql`], 'schema_unreadable'],
  [['db', 'reset', LONG, '--yes'], 'invalid_ref'],
  [['gen', INJECTION], 'invalid_ref'],
  [['gen', '--check', LONG], 'invalid_ref'],
  [['diff', LONG], 'invalid_ref'],
  [['project', 'create', '../../etc'], 'invalid_ref'],
  [['project', 'create', REF, '--schema', `/nonexistent/${LONG}/${LONG}.sql`], 'schema_unreadable'],
  [['project', 'keys', LONG], 'invalid_ref'],
  [['project', 'delete', INJECTION], 'invalid_ref'],
  [['project', 'config', REF, '--set', `${LONG}=1`], 'invalid_setting'],
  [['project', 'keys', 'rotate', LONG], 'invalid_ref'],
  [['calls', 'key', 'create', '--tenant', LONG], 'invalid_tenant'],
  [['calls', 'key', 'revoke', LONG], 'key_not_found'],
  [['init', LONG], 'invalid_ref'],
  [[LONG], 'usage'],
];

/** Asserts the documented refusal shape of one run; returns its message. */
function expectRefusal(run: CliRun, code: string, args: readonly string[]): string {
  const shown = `gantry ${args.join(' ').slice(0, 120)}`;
  expect(run.code, shown).toBe(1);
  expect(run.json, shown).toEqual({ error: { code, message: expect.any(String) } });
  const message = (run.json as { error: { message: string } }).error.message;
  expect(run.stdout, shown).toBe(`${JSON.stringify({ error: { code, message } })}\n`);
  expect(run.stderr, shown).toBe(`gantry: ${message}\n`);
  expect(`${message}${run.stderr}`, shown).not.toMatch(/\n\s+at |\.ts:\d+|node:internal/);
  return message;
}

/** Runs every argument list, two processes at a time. */
async function runAll<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all([0, 1].map(async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

describe('the CLI refuses bad input with a coded error, never a stack trace', () => {
  it('every command, over-long and hostile names, refs, paths and options', async () => {
    const failures: string[] = [];
    await runAll(REFUSALS, async ([args, code]) => {
      const run = await cli([...args, '--json'], inst.env);
      try {
        expectRefusal(run, code, args);
      } catch (error) {
        failures.push(`${(error as Error).message.split('\n')[0]}\n  stdout: ${run.stdout.slice(0, 300)}`);
      }
    });
    expect(failures).toEqual([]);
    // Nothing was written for the refused names and refs.
    await expect(fs.readdir(path.join(inst.home, 'migrations'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a migration name is refused before the file system is touched, with the limit in the message', async () => {
    const run = await cli(['migration', 'new', REF, LONG, '--json'], inst.env);
    expect(expectRefusal(run, 'invalid_migration_name', ['migration', 'new', REF, LONG])).toBe(
      `invalid migration name "${LONG}": at most 200 characters, letters, digits, "_", "-" or "." (starting with a letter or digit)`,
    );
  });

  it('a setting of the environment is refused with its code (a ConfigError), on every command', async () => {
    await runAll([['project', 'list'], ['serve']], async (args) => {
      const run = await cli([...args, '--json'], { ...inst.env, PORT: LONG });
      expect(expectRefusal(run, 'invalid_config', args)).toBe(`PORT must be a port number (0-65535), got "${LONG}"`);
    });
  });

  it('an unexpected error is `internal` with a plain message; the stack trace only with GANTRY_DEBUG=1', async () => {
    const unreachable = { ...inst.env, DATABASE_URL: 'postgres://gantry@127.0.0.1:1/gantry' };
    const plain = await cli(['project', 'list', '--json'], unreachable);
    expect(expectRefusal(plain, 'internal', ['project', 'list'])).toBe(
      'connect ECONNREFUSED 127.0.0.1:1 (an unexpected error: run again with GANTRY_DEBUG=1 to see its stack trace)',
    );
    const debug = await cli(['project', 'list', '--json'], { ...unreachable, GANTRY_DEBUG: '1' });
    expect(debug.code).toBe(1);
    expect(debug.json).toEqual(plain.json);
    expect(debug.stderr).toMatch(/^gantry: connect ECONNREFUSED 127\.0\.0\.1:1 \(an unexpected error[^\n]*\nError: connect ECONNREFUSED 127\.0\.0\.1:1\n\s+at /);
  });
});

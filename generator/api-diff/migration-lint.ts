import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { runsOutsideTransaction } from '../migrations/no-transaction.js';
import { compareCodePoints } from '../model/sort.js';
import { ApiDiffError } from './api-diff-error.js';

const run = promisify(execFile);

/** A migration file to lint: where it is, and how the report names it (`migrations/demo/…sql`). */
export interface MigrationFile {
  readonly path: string;
  readonly name: string;
}

/** One finding of the migration linter (squawk) on a migration file. */
export interface LintFinding {
  /** The file's name in the report (MigrationFile.name). */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
  /** squawk's rule name: the name a `-- squawk-ignore RULE` comment accepts it by. */
  readonly rule: string;
  readonly level: 'error' | 'warning';
  readonly message: string;
  readonly help: string | null;
}

/**
 * How Gantry runs squawk. `gantry migrate` runs each file in its own transaction, so the files
 * are linted as if wrapped in one (but those marked `-- gantry:no-transaction`). Left out: rules about style rather than hazards, and
 * `prefer-robust-stmts` (a file that fails is rolled back whole, so it reruns cleanly), and the
 * timeout rules (they fire on every ALTER of every file, large table or not).
 */
export const squawkArguments: readonly string[] = [
  '--reporter=json',
  '--no-error-on-unmatched-pattern',
  `--exclude=${[
    'prefer-robust-stmts',
    'prefer-bigint-over-int',
    'prefer-bigint-over-smallint',
    'prefer-identity',
    'prefer-text-field',
    'prefer-timestamp-tz',
    'require-lock-timeout',
    'require-statement-timeout',
    'require-timeout-settings',
  ].join(',')}`,
];

interface SquawkViolation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly level: string;
  readonly message: string;
  readonly help: string | null;
  readonly rule_name: string;
}

/** squawk's `--reporter=json` output as findings; `names` maps the paths squawk was given back to the caller's names. */
export function parseSquawkReport(json: string, names: ReadonlyMap<string, string>): LintFinding[] {
  let violations: SquawkViolation[];
  try {
    violations = JSON.parse(json) as SquawkViolation[];
  } catch {
    throw new ApiDiffError('lint_failed', `squawk printed no JSON report: ${json.slice(0, 200)}`);
  }
  if (!Array.isArray(violations)) throw new ApiDiffError('lint_failed', 'squawk printed no list of violations');
  return violations
    .map((v) => ({
      file: names.get(v.file) ?? v.file,
      line: v.line + 1,
      column: v.column + 1,
      rule: v.rule_name,
      level: v.level.toLowerCase() === 'error' ? ('error' as const) : ('warning' as const),
      message: v.message,
      help: v.help,
    }))
    .sort((a, b) => compareCodePoints(a.file, b.file) || a.line - b.line || a.column - b.column || compareCodePoints(a.rule, b.rule));
}

/** The squawk binary the npm package `squawk-cli` installed for this platform (an optional dependency). */
function squawkBinary(): string {
  const require = createRequire(import.meta.url);
  const { getBinaryPath } = require('squawk-cli/js/index.js') as { getBinaryPath: () => string };
  try {
    return getBinaryPath();
  } catch (error) {
    throw new ApiDiffError('lint_failed', (error as Error).message);
  }
}

/** squawk's findings on the given migration files, in file and line order. */
export async function lintMigrations(files: readonly MigrationFile[]): Promise<LintFinding[]> {
  const marked = await Promise.all(files.map(async (file) => runsOutsideTransaction(await fs.readFile(file.path, 'utf8'))));
  const findings = [
    ...(await runSquawk(files.filter((_, i) => !marked[i]), ['--assume-in-transaction'])),
    ...(await runSquawk(files.filter((_, i) => marked[i]), [])),
  ];
  return findings.sort((a, b) => compareCodePoints(a.file, b.file) || a.line - b.line || a.column - b.column || compareCodePoints(a.rule, b.rule));
}

async function runSquawk(files: readonly MigrationFile[], extra: readonly string[]): Promise<LintFinding[]> {
  if (files.length === 0) return [];
  const names = new Map(files.map((file) => [path.resolve(file.path), file.name]));
  const result = await run(squawkBinary(), [...extra, ...squawkArguments, ...names.keys()], { maxBuffer: 1 << 26 }).catch(
    (error: { code?: unknown; stdout?: string; stderr?: string }) => {
      // squawk exits 1 when it found something; its report is on stdout all the same.
      if (error.code === 1 && typeof error.stdout === 'string' && error.stdout.trim().startsWith('[')) return { stdout: error.stdout };
      throw new ApiDiffError('lint_failed', `squawk failed: ${error.stderr ?? String(error)}`);
    },
  );
  return parseSquawkReport(result.stdout, names);
}

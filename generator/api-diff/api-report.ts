import type { ApiChange } from './api-change.js';
import type { LintFinding } from './migration-lint.js';

/** What `gantry diff` (and `gantry migrate`) reports: the API changes and the lint of the migrations behind them. */
export interface ApiReport {
  readonly ref: string;
  /** What the changes are measured from: a git revision, or what `migrate` found before it ran. */
  readonly base: string;
  /** What they are measured to: `working tree`, or the database just migrated. */
  readonly head: string;
  readonly changes: readonly ApiChange[];
  readonly lint: {
    /** The migration files linted: those new since the base. */
    readonly files: readonly string[];
    readonly findings: readonly LintFinding[];
  };
  readonly summary: { readonly breaking: number; readonly compatible: number; readonly lint: number };
}

export function apiReport(
  ref: string,
  base: string,
  head: string,
  changes: readonly ApiChange[],
  lint: ApiReport['lint'],
): ApiReport {
  const breaking = changes.filter((c) => c.severity === 'breaking').length;
  return { ref, base, head, changes, lint, summary: { breaking, compatible: changes.length - breaking, lint: lint.findings.length } };
}

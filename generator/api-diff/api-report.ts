import type { ApiChange } from './api-change.js';
import type { Acceptance, ReportWarning } from './breaking-marker.js';
import type { DataFinding } from './data-effects.js';
import type { LintFinding } from './migration-lint.js';
import type { CodeReference } from './references.js';

/** A change as the report shows it: what it is, and what a reviewer must check because of it. */
export interface ReportedChange extends ApiChange {
  /** The endpoints it is felt at: `GET /rest/v1/tickets`, `POST /rest/v1/rpc/close_ticket`, `POST /functions/v1/close-ticket`. */
  readonly endpoints: readonly string[];
  /** The generated TypeScript types it changes: `Database['public']['Tables']['tickets']['Row'].title removed`. */
  readonly types: readonly string[];
  /** Where the project's extensions use what changed. */
  readonly references: readonly CodeReference[];
  /** What it does to the rows the database holds; counted only when the report had a database to ask. */
  readonly data: readonly DataFinding[];
  /** A breaking change's compatible sequence (expand, migrate, contract), in one line; null for a compatible one. */
  readonly expandContract: string | null;
  /** Set when a `-- gantry:breaking` marker of the migrations accepts it. */
  readonly accepted: Acceptance | null;
}

/** What `gantry diff` (and `gantry migrate`) reports: the API changes and the lint of the migrations behind them. */
export interface ApiReport {
  readonly ref: string;
  /** What the changes are measured from: a git revision, or what `migrate` found before it ran. */
  readonly base: string;
  /** What they are measured to: `working tree`, or the database just migrated. */
  readonly head: string;
  /** The database the data counts were asked of; null when none was. */
  readonly database: string | null;
  readonly changes: readonly ReportedChange[];
  /** Markers that name nothing breaking, or lack a target or reason. */
  readonly warnings: readonly ReportWarning[];
  readonly lint: {
    /** The migration files linted: those new since the base. */
    readonly files: readonly string[];
    readonly findings: readonly LintFinding[];
  };
  /** `breaking` counts every breaking change, `accepted` those of them a marker accepts. */
  readonly summary: { readonly breaking: number; readonly accepted: number; readonly compatible: number; readonly lint: number };
}

export function apiReport(
  ref: string,
  base: string,
  head: string,
  changes: readonly ReportedChange[],
  lint: ApiReport['lint'],
  extra: { readonly database?: string | null; readonly warnings?: readonly ReportWarning[] } = {},
): ApiReport {
  const breaking = changes.filter((c) => c.severity === 'breaking').length;
  const accepted = changes.filter((c) => c.accepted !== null).length;
  return {
    ref,
    base,
    head,
    database: extra.database ?? null,
    changes,
    warnings: extra.warnings ?? [],
    lint,
    summary: { breaking, accepted, compatible: changes.length - breaking, lint: lint.findings.length },
  };
}

/** Breaking changes no marker accepts: what `--fail-on-breaking` fails on. */
export function unacceptedBreaking(report: ApiReport): number {
  return report.summary.breaking - report.summary.accepted;
}

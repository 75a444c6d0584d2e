import type { ApiChange } from './api-change.js';

/**
 * A breaking change the pull request means, said in its migration: a line
 *
 *   -- gantry:breaking <target> <reason>
 *
 * (at the start of a line, anywhere in a migration new since the base) accepts the breaking changes
 * whose target is `<target>`: `--fail-on-breaking` passes for them and the report shows them as accepted,
 * with the reason. `<target>` is named as the report names it, the schema optional for the default one:
 * `tickets.title` or `public.tickets.title` (a column: its rename, removal, type, nullability, default),
 * `tickets` (the relation: its removal or rename, keys, RLS, grants and every policy), `close_ticket`
 * (every overload of the function; `public.close_ticket(id bigint)` is not one word). The reason is the
 * rest of the line and must not be empty. A marker that names no breaking change of the report is
 * reported as a warning: a target misspelt, or a change that is no longer made.
 * Like `-- gantry:no-transaction` it is a plain SQL comment, so PostgreSQL and squawk ignore it.
 */
export const BREAKING_MARKER = '-- gantry:breaking';

export interface BreakingMarker {
  /** The migration file's name in the report. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly target: string;
  readonly reason: string;
}

export interface Acceptance {
  readonly reason: string;
  readonly file: string;
  readonly line: number;
}

export interface ReportWarning {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** The markers of one migration file, and a warning for each one without a target or a reason. */
export function readBreakingMarkers(file: string, sql: string): { markers: BreakingMarker[]; warnings: ReportWarning[] } {
  const markers: BreakingMarker[] = [];
  const warnings: ReportWarning[] = [];
  sql.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((text, index) => {
    const trimmed = text.trim();
    if (trimmed !== BREAKING_MARKER && !trimmed.startsWith(`${BREAKING_MARKER} `) && !trimmed.startsWith(`${BREAKING_MARKER}\t`)) return;
    const [, target = '', reason = ''] = /^(\S*)\s*(.*)$/.exec(trimmed.slice(BREAKING_MARKER.length).trim()) ?? [];
    if (target === '' || reason.trim() === '') {
      warnings.push({ file, line: index + 1, message: `${BREAKING_MARKER} needs a target and a reason: ${BREAKING_MARKER} <target> <reason>` });
      return;
    }
    markers.push({ file, line: index + 1, target, reason: reason.trim() });
  });
  return { markers, warnings };
}

/** Whether the marker's target names the change: its target itself, a relation's policies, a function's overloads. */
export function markerNames(target: string, change: ApiChange, defaultSchema: string): boolean {
  const candidates = [target, `${defaultSchema}.${target}`];
  return candidates.some((t) => change.target === t || change.target.startsWith(`${t} policy `) || change.target.startsWith(`${t}(`));
}

/** Each breaking change's acceptance (the first marker naming it), and a warning per marker naming none. */
export function acceptBreaking(
  changes: readonly ApiChange[],
  markers: readonly BreakingMarker[],
  defaultSchema: string,
): { accepted: (Acceptance | null)[]; warnings: ReportWarning[] } {
  const accepted = changes.map((change) => {
    if (change.severity !== 'breaking') return null;
    const marker = markers.find((m) => markerNames(m.target, change, defaultSchema));
    return marker ? { reason: marker.reason, file: marker.file, line: marker.line } : null;
  });
  const warnings = markers
    .filter((m) => !changes.some((change) => change.severity === 'breaking' && markerNames(m.target, change, defaultSchema)))
    .map((m) => ({ file: m.file, line: m.line, message: `${BREAKING_MARKER} ${m.target} names no breaking change of this report` }));
  return { accepted, warnings };
}

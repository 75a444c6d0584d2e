import type { ApiReport, ReportedChange } from './api-report.js';
import type { LintFinding } from './migration-lint.js';

/** The report for a terminal: breaking changes first, each with why, its definitions before (-) and after (+), and what a reviewer must check. */
export function renderText(report: ApiReport): string {
  const lines: string[] = [];
  const span = `from ${report.base} to ${report.head}`;
  lines.push(report.changes.length === 0 ? `${report.ref}: no API changes ${span}` : `${report.ref}: API changes ${span}: ${summaryText(report)}`);
  if (report.database !== null && report.changes.some((c) => c.data.length > 0)) lines.push(`rows counted in ${report.database}`);
  for (const change of orderedChanges(report)) lines.push(...changeLines(change));
  for (const warning of report.warnings) lines.push(`warning: ${warning.file}:${warning.line}: ${warning.message}`);
  const { lint } = report.summary;
  if (report.lint.files.length > 0) {
    lines.push('', `migration lint (squawk): ${lint} finding${lint === 1 ? '' : 's'} in ${report.lint.files.length} new file${report.lint.files.length === 1 ? '' : 's'}`);
    for (const finding of report.lint.findings) lines.push(...findingLines(finding));
  }
  return lines.join('\n');
}

/** `2 breaking (1 accepted), 3 compatible`. */
export function summaryText(report: ApiReport): string {
  const { breaking, accepted, compatible } = report.summary;
  return `${breaking} breaking${accepted > 0 ? ` (${accepted} accepted)` : ''}, ${compatible} compatible`;
}

/** Breaking changes no marker accepts, then accepted ones, then compatible ones. */
export function orderedChanges(report: ApiReport): ReportedChange[] {
  const rank = (c: ReportedChange): number => (c.severity === 'compatible' ? 2 : c.accepted === null ? 0 : 1);
  return [...report.changes].sort((a, b) => rank(a) - rank(b));
}

/** How a data finding reads: `3 rows with …`, or the question and why it was not counted. */
export function dataText(finding: ReportedChange['data'][number]): string {
  return finding.rows === null ? `${finding.description}: ${finding.note}` : `${finding.rows} ${finding.description}`;
}

/** How a reference reads after its `file:line:column`. */
export function referenceText(reference: ReportedChange['references'][number]): string {
  return `${reference.kind}${reference.in === null ? '' : ` in ${reference.in}`}${reference.endpoint === null ? '' : ` (${reference.endpoint})`}: ${reference.text}`;
}

function changeLines(change: ReportedChange): string[] {
  const label = change.severity === 'compatible' ? 'compatible' : change.accepted === null ? 'BREAKING' : 'BREAKING (accepted)';
  return [
    `${label} ${change.target}: ${change.message}`,
    `  ${change.reason}`,
    ...definitionLines(change.before, '-'),
    ...definitionLines(change.after, '+'),
    ...(change.endpoints.length === 0 ? [] : [`  endpoints: ${change.endpoints.join(', ')}`]),
    ...(change.types.length === 0 ? (change.kind === 'column_type_changed' ? ['  types: database.types.ts unchanged'] : []) : ['  types:', ...change.types.map((t) => `    ${t}`)]),
    ...(change.references.length === 0 ? [] : ['  used by:', ...change.references.map((r) => `    ${r.file}:${r.line}:${r.column} ${referenceText(r)}`)]),
    ...change.data.map((finding) => `  data: ${dataText(finding)}`),
    ...(change.expandContract === null ? [] : [`  expand/contract: ${change.expandContract}`]),
    ...(change.accepted === null ? [] : [`  accepted (${change.accepted.file}:${change.accepted.line}): ${change.accepted.reason}`]),
  ];
}

function definitionLines(text: string | null, mark: '-' | '+'): string[] {
  return text === null ? [] : text.split('\n').map((line) => `  ${mark} ${line}`.trimEnd());
}

function findingLines(finding: LintFinding): string[] {
  return [
    `${finding.file}:${finding.line}:${finding.column} ${finding.rule} (${finding.level}): ${finding.message}`,
    ...(finding.help === null ? [] : [`  help: ${finding.help}`]),
    `  accept it: -- squawk-ignore ${finding.rule}`,
  ];
}

import type { ApiChange } from './api-change.js';
import type { ApiReport } from './api-report.js';
import type { LintFinding } from './migration-lint.js';

/** The report for a terminal: breaking changes first, each with why and its definitions before (-) and after (+). */
export function renderText(report: ApiReport): string {
  const { breaking, compatible, lint } = report.summary;
  const lines: string[] = [];
  const span = `from ${report.base} to ${report.head}`;
  lines.push(
    report.changes.length === 0
      ? `${report.ref}: no API changes ${span}`
      : `${report.ref}: API changes ${span}: ${breaking} breaking, ${compatible} compatible`,
  );
  for (const severity of ['breaking', 'compatible'] as const) {
    for (const change of report.changes.filter((c) => c.severity === severity)) lines.push(...changeLines(change));
  }
  if (report.lint.files.length > 0) {
    lines.push('', `migration lint (squawk): ${lint} finding${lint === 1 ? '' : 's'} in ${report.lint.files.length} new file${report.lint.files.length === 1 ? '' : 's'}`);
    for (const finding of report.lint.findings) lines.push(...findingLines(finding));
  }
  return lines.join('\n');
}

function changeLines(change: ApiChange): string[] {
  return [
    `${change.severity === 'breaking' ? 'BREAKING' : 'compatible'} ${change.target}: ${change.message}`,
    `  ${change.reason}`,
    ...definitionLines(change.before, '-'),
    ...definitionLines(change.after, '+'),
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

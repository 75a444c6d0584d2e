import type { ApiReport, ReportedChange } from './api-report.js';
import { BREAKING_MARKER } from './breaking-marker.js';
import { dataText, orderedChanges, referenceText, summaryText } from './render-text.js';

/** The report as a pull-request comment (GitHub-flavoured Markdown). */
export function renderMarkdown(report: ApiReport): string {
  const lines = [`### API changes: \`${report.ref}\` (${report.base} → ${report.head})`, ''];
  if (report.changes.length === 0) lines.push('No API changes.');
  else lines.push(`**${report.summary.breaking} breaking**${summaryText(report).replace(/^\d+ breaking/, '')}`);
  if (report.database !== null && report.changes.some((c) => c.data.length > 0)) lines.push('', `Rows counted in ${code(report.database)}.`);
  const groups = [
    ['Breaking', (c: ReportedChange) => c.severity === 'breaking' && c.accepted === null],
    ['Breaking, accepted', (c: ReportedChange) => c.accepted !== null],
    ['Compatible', (c: ReportedChange) => c.severity === 'compatible'],
  ] as const;
  const ordered = orderedChanges(report);
  for (const [title, belongs] of groups) {
    const changes = ordered.filter(belongs);
    if (changes.length === 0) continue;
    lines.push('', `#### ${title}`, '');
    for (const change of changes) lines.push(...changeItem(change));
  }
  if (report.warnings.length > 0) {
    lines.push('', '#### Warnings', '');
    for (const warning of report.warnings) lines.push(`- ${code(`${warning.file}:${warning.line}`)}: ${warning.message}`);
  }
  const { lint } = report.summary;
  if (report.lint.files.length > 0) {
    lines.push('', '#### Migration lint (squawk)', '');
    if (lint === 0) {
      lines.push(`No findings in ${report.lint.files.map((f) => `\`${f}\``).join(', ')}.`);
    } else {
      lines.push('| File | Line | Rule | Finding |', '|---|---|---|---|');
      for (const f of report.lint.findings) {
        lines.push(`| \`${f.file}\` | ${f.line} | \`${f.rule}\` | ${cell(f.message)}${f.help === null ? '' : ` ${cell(f.help)}`} |`);
      }
      lines.push('', 'Accept a finding with `-- squawk-ignore <rule>` on the line before the statement.');
    }
  }
  if (report.changes.some((c) => c.severity === 'breaking' && c.accepted === null)) {
    lines.push('', `Accept a breaking change the pull request means with \`${BREAKING_MARKER} <target> <reason>\` in its migration.`);
  }
  return lines.join('\n');
}

function changeItem(change: ReportedChange): string[] {
  const item = [`- \`${change.target}\`: ${change.message}. ${change.reason}.`];
  const diff = [...prefixed(change.before, '-'), ...prefixed(change.after, '+')];
  if (diff.length > 0) {
    const fence = fenceFor(diff.join('\n'));
    item.push(`  ${fence}diff`, ...diff.map((line) => `  ${line}`), `  ${fence}`);
  }
  const detail = (label: string, text: string): string => `  - **${label}**: ${text}`;
  if (change.endpoints.length > 0) item.push(detail('Endpoints', change.endpoints.map(code).join(', ')));
  if (change.types.length > 0) item.push(detail('Types', change.types.map(code).join('; ')));
  else if (change.kind === 'column_type_changed') item.push(detail('Types', '`database.types.ts` unchanged'));
  for (const reference of change.references) item.push(detail('Used by', `${code(`${reference.file}:${reference.line}:${reference.column}`)} ${referenceText(reference).replace(/: [\s\S]*$/, '')}: ${code(reference.text)}`));
  for (const finding of change.data) item.push(detail('Data', dataText(finding)));
  if (change.expandContract !== null) item.push(detail('Expand/contract', change.expandContract));
  if (change.accepted !== null) item.push(detail('Accepted', `${change.accepted.reason} (${code(`${change.accepted.file}:${change.accepted.line}`)})`));
  return item;
}

function prefixed(text: string | null, mark: '-' | '+'): string[] {
  return text === null ? [] : text.split('\n').map((line) => `${mark} ${line}`.trimEnd());
}

/** A code span that holds any text: delimited by one backtick more than its longest run. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return longest === 0 ? `${ticks}${text}${ticks}` : `${ticks} ${text} ${ticks}`;
}

/** A code fence longer than any run of backticks inside the block. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

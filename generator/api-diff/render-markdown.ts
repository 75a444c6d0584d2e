import type { ApiChange } from './api-change.js';
import type { ApiReport } from './api-report.js';

/** The report as a pull-request comment (GitHub-flavoured Markdown). */
export function renderMarkdown(report: ApiReport): string {
  const { breaking, compatible, lint } = report.summary;
  const lines = [`### API changes: \`${report.ref}\` (${report.base} → ${report.head})`, ''];
  if (report.changes.length === 0) lines.push('No API changes.');
  else lines.push(`**${breaking} breaking**, ${compatible} compatible`);
  for (const [severity, title] of [['breaking', 'Breaking'], ['compatible', 'Compatible']] as const) {
    const changes = report.changes.filter((c) => c.severity === severity);
    if (changes.length === 0) continue;
    lines.push('', `#### ${title}`, '');
    for (const change of changes) lines.push(...changeItem(change));
  }
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
  return lines.join('\n');
}

function changeItem(change: ApiChange): string[] {
  const item = `- \`${change.target}\`: ${change.message}. ${change.reason}.`;
  const diff = [...prefixed(change.before, '-'), ...prefixed(change.after, '+')];
  if (diff.length === 0) return [item];
  const fence = fenceFor(diff.join('\n'));
  return [item, `  ${fence}diff`, ...diff.map((line) => `  ${line}`), `  ${fence}`];
}

function prefixed(text: string | null, mark: '-' | '+'): string[] {
  return text === null ? [] : text.split('\n').map((line) => `${mark} ${line}`.trimEnd());
}

/** A code fence longer than any run of backticks inside the block. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

import { lineDiff } from '../line-diff.js';
import type { FileDrift } from '../write.js';
import type { HistoryProblem } from '../migrations/history-check.js';
import type { ProjectCheck } from './gate.js';
import type { LocalState } from './local-state.js';

/** Changed lines shown per file: enough to see what moved, never a whole document. */
export const LINES_PER_FILE = 12;

/** One file of a project's drift as reported: what changed, and a few of its lines (none for an added or removed file). */
export interface ReportedFile {
  readonly path: string;
  readonly change: FileDrift['change'];
  readonly hunks: string;
}

/** The gate's answer for one project, as printed and as `--json` gives it. */
export interface ReportedProject {
  readonly ref: string;
  readonly status: ProjectCheck['status'];
  /** The one-line summary: `<ref>: up to date`, `<ref>: differs (N files)`, … */
  readonly summary: string;
  readonly migrations: number;
  readonly files: readonly ReportedFile[];
  readonly extensions: readonly string[];
  /** Uses of the extension's query API whose SQL is built at run time: warnings, the gate still passes. */
  readonly not_checkable: readonly string[];
  readonly error: string | null;
  /** What to run or do about it; null when the project passes. */
  readonly remedy: string | null;
  /** What is wrong with the schema history, each with its own remedy. */
  readonly history: readonly HistoryProblem[];
  /** The revision the history was checked against; null outside git. */
  readonly history_base: string | null;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function summary(check: ProjectCheck): string {
  switch (check.status) {
    case 'up_to_date':
      return `${check.ref}: up to date`;
    case 'differs':
      return `${check.ref}: differs (${plural(check.drift.length, 'file')})`;
    case 'no_generated_code':
      return `${check.ref}: no generated code for ${plural(check.migrations, 'migration')} (generated/${check.ref}/ lacks ${plural(check.drift.length, 'file')})`;
    case 'no_migrations':
      return `${check.ref}: generated code without migrations (migrations/${check.ref}/ holds none)`;
    case 'migrations_fail':
      return `${check.ref}: migrations fail on a fresh database`;
  }
}

/** What brings generated/<ref>/ in line with the migrations, given where the local database stands. */
function regenerate(ref: string, local: LocalState): string {
  switch (local) {
    case 'other_branch':
      return `run: npx gantry db reset ${ref} --yes   (the local database ran migrations this branch does not have: it is rebuilt from this branch's migrations and seed.sql, keys and settings kept, and the code regenerated)`;
    case 'pending':
      return `run: npx gantry migrate ${ref}   (the local database lacks migrations of this branch: it applies them and regenerates)`;
    case 'in_sync':
    case 'no_project':
      return `run: npx gantry gen ${ref} --from-migrations   (writes generated/${ref}/ as this check builds it, from migrations/${ref}/ alone)`;
  }
}

function remedy(check: ProjectCheck, local: LocalState): string | null {
  switch (check.status) {
    case 'up_to_date':
      return check.extensions.length > 0 ? `fix extensions/${check.ref}/ for the schema its migrations give` : null;
    case 'differs':
    case 'no_generated_code':
      return regenerate(check.ref, local);
    case 'no_migrations':
      return `commit the schema as migrations (npx gantry migration import ${check.ref} DIR, or npx gantry migration new ${check.ref} NAME), or delete generated/${check.ref}/ if the project is gone`;
    case 'migrations_fail':
      return `fix the migration named above; an applied migration must not change: add a new one`;
  }
}

/** The gate's answer for one project; `local` (local-state.ts) decides the remedy for code that differs. */
export function reportProject(check: ProjectCheck, local: LocalState = 'no_project'): ReportedProject {
  const files = check.drift.map((d) => ({
    path: d.path,
    change: d.change,
    hunks: d.change === 'modified' ? lineDiff(d.current ?? '', d.generated ?? '', LINES_PER_FILE) : '',
  }));
  return {
    ref: check.ref,
    status: check.status,
    summary: summary(check),
    migrations: check.migrations,
    files,
    extensions: check.extensions,
    not_checkable: check.notCheckable,
    error: check.error,
    remedy: remedy(check, local),
    history: check.history,
    history_base: check.historyBase,
  };
}

const marks: Readonly<Record<FileDrift['change'], string>> = { added: 'A', modified: 'M', removed: 'D' };

const indent = (text: string): string => text.replace(/^/gm, '  ');

/**
 * The text of the report: per project its summary line, then (when it fails) the changed files with short hunks, the
 * migration error, the extension problems (`extensions/<ref>/file.ts:LINE:COL message`) and the remedy.
 */
export function reportText(projects: readonly ReportedProject[]): string {
  const lines: string[] = [];
  for (const project of projects) {
    lines.push(project.summary);
    // An added file is listed only when a few are: for a project with no generated code at all, the count says it.
    if (project.status !== 'no_generated_code') {
      for (const file of project.files) {
        lines.push(`  ${marks[file.change]} ${file.path}`);
        if (file.hunks !== '') lines.push(indent(file.hunks));
      }
    }
    if (project.error !== null) lines.push(indent(project.error));
    if (project.extensions.length > 0) {
      lines.push(`${project.ref}: extensions do not typecheck`);
      lines.push(...project.extensions.map((problem) => `  ${problem}`));
    }
    if (project.not_checkable.length > 0) {
      lines.push(`${project.ref}: warning: ${project.not_checkable.length} query site(s) not checkable`);
      lines.push(...project.not_checkable.map((site) => `  ${site}`));
    }
    if (project.remedy !== null) lines.push(`  ${project.remedy}`);
    if (project.history.length > 0) {
      const against = project.history_base === null ? '' : ` (against ${project.history_base})`;
      lines.push(`${project.ref}: schema history: ${plural(project.history.length, 'problem')}${against}`);
      for (const problem of project.history) lines.push(`  ${problem.message}`, `    ${problem.remedy}`);
    }
  }
  return lines.join('\n');
}

/** Whether one project passes: its code up to date, its extensions typecheck, its history intact. */
export function projectPasses(project: ReportedProject): boolean {
  return project.status === 'up_to_date' && project.extensions.length === 0 && project.history.length === 0;
}

/** Whether the gate passes: every project passes. */
export function gatePasses(projects: readonly ReportedProject[]): boolean {
  return projects.length > 0 && projects.every(projectPasses);
}

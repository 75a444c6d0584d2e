import path from 'node:path';
import { migrationFileName, nextVersions, type LocalMigration } from './local-files.js';
import { parseSum, SUM_FILE, type SumEntry } from './sum-file.js';

/**
 * What the gate finds wrong with a project's schema history:
 * - `sum_missing`, `sum_unreadable` (a line that is not an entry: conflict markers), `sum_duplicate` (two lines for one version);
 * - `sum_stale`: gantry.sum and the folder disagree on a version the base does not hold;
 * - `edited`, `removed`, `renamed`: a migration the base's gantry.sum holds changed, went, or took another version;
 * - `out_of_order`: a migration new since the base, older than the base's newest (a parallel branch's).
 */
export type HistoryProblemKind = 'sum_missing' | 'sum_unreadable' | 'sum_duplicate' | 'sum_stale' | 'edited' | 'removed' | 'renamed' | 'out_of_order';

export interface HistoryProblem {
  readonly kind: HistoryProblemKind;
  readonly version: string | null;
  /** One line: what is wrong, naming the file. */
  readonly message: string;
  /** What fixes it. */
  readonly remedy: string;
}

/** The revision the branch is checked against and its gantry.sum (null when it has none). */
export interface HistoryBase {
  /** As the report names it (`main`, `main (merge-base 1a2b3c4)`). */
  readonly label: string;
  readonly commit: string;
  readonly sum: string | null;
}

export interface HistoryInput {
  readonly ref: string;
  /** migrations/<ref>/ as messages name it (relative to the project root). */
  readonly folder: string;
  readonly local: readonly LocalMigration[];
  /** The working tree's gantry.sum, null when there is none. */
  readonly sum: string | null;
  /** Null outside git, or when no base revision can be found. */
  readonly base: HistoryBase | null;
  /** For the version an out-of-order file is told to take. */
  readonly now: Date;
}

const regenerate = (ref: string): string => `npx gantry gen ${ref} --from-migrations`;

/** The problems of one project's history, in version order within each kind. */
export function checkHistory(input: HistoryInput): HistoryProblem[] {
  const { ref, folder, local } = input;
  const fileOf = (entry: Pick<SumEntry, 'version' | 'name'>): string => path.posix.join(folder, migrationFileName(entry.version, entry.name));
  const shown = (m: LocalMigration): string => path.posix.join(folder, path.basename(m.path));
  const byVersion = new Map(local.map((m) => [m.version, m]));
  const problems: HistoryProblem[] = [];

  const baseEntries = input.base?.sum ? parseSum(input.base.sum).entries : [];
  const inBase = new Map(baseEntries.map((e) => [e.version, e]));
  if (input.base && baseEntries.length > 0) {
    const { label, commit } = input.base;
    const restore = (file: string) => `restore it: git checkout ${commit.slice(0, 12)} -- ${file}; a change to a merged migration goes in a new one: npx gantry migration new ${ref} NAME`;
    const movedTo = new Set<string>();
    for (const entry of inBase.values()) {
      const file = byVersion.get(entry.version);
      if (file) {
        if (file.checksum !== entry.checksum) {
          problems.push({ kind: 'edited', version: entry.version, message: `${shown(file)}: edited since ${label} recorded it in ${SUM_FILE}`, remedy: restore(shown(file)) });
        }
        continue;
      }
      const moved = local.find((m) => !inBase.has(m.version) && m.checksum === entry.checksum);
      if (moved) {
        movedTo.add(moved.version);
        problems.push({
          kind: 'renamed',
          version: entry.version,
          message: `${shown(moved)}: ${migrationFileName(entry.version, entry.name)} on ${label}, moved to another version`,
          remedy: `give it back its version: git mv ${shown(moved)} ${fileOf(entry)}`,
        });
      } else {
        problems.push({ kind: 'removed', version: entry.version, message: `${fileOf(entry)}: on ${label}, removed here`, remedy: restore(fileOf(entry)) });
      }
    }
    const newest = [...inBase.values()].sort((a, b) => (a.version < b.version ? 1 : -1))[0]!;
    const late = local.filter((m) => !inBase.has(m.version) && !movedTo.has(m.version) && m.version < newest.version);
    const versions = nextVersions(input.now, local.map((m) => m.version), late.length);
    late.forEach((m, i) => {
      problems.push({
        kind: 'out_of_order',
        version: m.version,
        message: `${shown(m)}: older than ${migrationFileName(newest.version, newest.name)}, the newest migration on ${label}: a database that ran ${label}'s would run it after newer ones, a fresh one before them`,
        remedy: `give it a later version: git mv ${shown(m)} ${path.posix.join(folder, migrationFileName(versions[i]!, m.name))} && ${regenerate(ref)}`,
      });
    });
  }

  if (input.sum === null) {
    problems.push({ kind: 'sum_missing', version: null, message: `${path.posix.join(folder, SUM_FILE)}: missing`, remedy: `write it: ${regenerate(ref)}` });
    return problems;
  }
  const { entries, errors } = parseSum(input.sum);
  for (const error of errors) {
    problems.push({
      kind: 'sum_unreadable',
      version: null,
      message: `${path.posix.join(folder, SUM_FILE)}:${error.line}: not "<version> <name> <sha256>": ${error.text}`,
      remedy: `rewrite it from the folder: ${regenerate(ref)}`,
    });
  }
  const listed = new Map<string, SumEntry>();
  for (const entry of entries) {
    const other = listed.get(entry.version);
    if (other && (other.checksum !== entry.checksum || other.name !== entry.name)) {
      problems.push({
        kind: 'sum_duplicate',
        version: entry.version,
        message: `${path.posix.join(folder, SUM_FILE)}: two lines for version ${entry.version} (two branches changed it)`,
        remedy: `keep the file you mean, then: ${regenerate(ref)}`,
      });
    }
    listed.set(entry.version, entry);
  }
  // A version the base holds was reported against the base: the stale line would only repeat it.
  const stale = (version: string, message: string) => {
    if (inBase.has(version)) return;
    problems.push({
      kind: 'sum_stale',
      version,
      message,
      remedy: `if it is new on this branch, record it: ${regenerate(ref)}; a migration already merged must not change: restore it and add a new one`,
    });
  };
  for (const m of local) {
    const entry = listed.get(m.version);
    if (!entry) stale(m.version, `${shown(m)}: not in ${SUM_FILE}`);
    else if (entry.checksum !== m.checksum || entry.name !== m.name) stale(m.version, `${shown(m)}: differs from its line in ${SUM_FILE}`);
  }
  for (const entry of listed.values()) {
    if (!byVersion.has(entry.version)) stale(entry.version, `${fileOf(entry)}: in ${SUM_FILE}, no such file`);
  }
  return problems;
}

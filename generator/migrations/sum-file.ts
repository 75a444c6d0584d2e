import fs from 'node:fs/promises';
import path from 'node:path';
import { listLocalMigrations, projectMigrationsDir, type LocalMigration } from './local-files.js';

/**
 * `migrations/<ref>/gantry.sum`: the committed record of a project's schema history, one line per
 * migration file, `<version> <name> <sha256>` (the checksum `migrate` records), in version order,
 * after one comment line. It is a function of the folder, rewritten whole by every command that
 * writes migrations or builds from them; the gate compares it with the folder and with the base
 * branch's copy. Unlike Atlas's atlas.sum it has no whole-folder hash line: with
 * `migrations/*\/gantry.sum merge=union` in .gitattributes, two branches' added lines merge without
 * a conflict, and the gate still sees an edited line (a duplicate version) or an edited file.
 */
export const SUM_FILE = 'gantry.sum';

const HEADER = '# gantry.sum: <version> <name> <sha256> per migration of this folder, written by gantry; edit the .sql files, never this file';

/** One line of the file. */
export interface SumEntry {
  readonly version: string;
  readonly name: string;
  readonly checksum: string;
}

/** A line that is neither the header, a blank, nor `<14 digits> <name> <64 hex>`. */
export interface SumParseError {
  readonly line: number;
  readonly text: string;
}

const LINE = /^(\d{14}) (\S+) ([0-9a-f]{64})$/;

/** The text of the file for these migrations. */
export function formatSum(migrations: readonly Pick<LocalMigration, 'version' | 'name' | 'checksum'>[]): string {
  const sorted = [...migrations].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  return [HEADER, ...sorted.map((m) => `${m.version} ${m.name} ${m.checksum}`)].join('\n') + '\n';
}

/** The entries of a file's text in the order written (a union merge may leave them out of order), and its unreadable lines (conflict markers, say). */
export function parseSum(text: string): { readonly entries: SumEntry[]; readonly errors: SumParseError[] } {
  const entries: SumEntry[] = [];
  const errors: SumParseError[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = LINE.exec(line);
    if (match) entries.push({ version: match[1]!, name: match[2]!, checksum: match[3]! });
    else errors.push({ line: i + 1, text: raw });
  });
  return { entries, errors };
}

export function sumPath(migrationsDir: string, ref: string): string {
  return path.join(projectMigrationsDir(migrationsDir, ref), SUM_FILE);
}

/** The committed file's text, or null without one. */
export async function readSum(migrationsDir: string, ref: string): Promise<string | null> {
  return fs.readFile(sumPath(migrationsDir, ref), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Rewrites the file from the folder as it is now (nothing when the folder holds no migration); whether it changed. */
export async function writeSum(migrationsDir: string, ref: string): Promise<boolean> {
  const migrations = await listLocalMigrations(migrationsDir, ref);
  if (migrations.length === 0) return false;
  const text = formatSum(migrations);
  if ((await readSum(migrationsDir, ref)) === text) return false;
  await fs.writeFile(sumPath(migrationsDir, ref), text);
  return true;
}

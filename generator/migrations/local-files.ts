import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { MigrationError } from './errors.js';

/**
 * A project's schema history as committed: `migrations/<ref>/<version>_<name>.sql`, the version a
 * 14-digit UTC timestamp (YYYYMMDDHHMMSS) as the Supabase CLI names them, so a Supabase
 * `supabase/migrations/` folder is read as is. `seed.sql` beside them is data, not history.
 */
export interface LocalMigration {
  readonly version: string;
  readonly name: string;
  /** Absolute path of the file. */
  readonly path: string;
  readonly sql: string;
  /** migrationChecksum(sql): what the history table records, to notice an applied file edited later. */
  readonly checksum: string;
}

export const SEED_FILE = 'seed.sql';

/** `<14 digits>_<name>.sql`; a name as the Supabase CLI accepts it in practice (letters, digits, `_`, `-`, `.`). */
const FILE_PATTERN = /^(\d{14})_([A-Za-z0-9][A-Za-z0-9_.-]*)\.sql$/;

/** A name for `migration new` and for copied files: what FILE_PATTERN accepts after the version. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/**
 * Names are ASCII, so characters are bytes: with the version, "_" and ".sql" the file name stays
 * far inside the 255 bytes file systems allow (NAME_MAX), and a history row stays readable.
 */
export const MAX_MIGRATION_NAME_LENGTH = 200;

/** The version and name of a migration file name; null for any other name. */
export function parseMigrationFileName(file: string): { version: string; name: string } | null {
  const match = FILE_PATTERN.exec(file);
  return match ? { version: match[1]!, name: match[2]! } : null;
}

export function migrationFileName(version: string, name: string): string {
  return `${version}_${name}.sql`;
}

/** Throws unless `name` can follow a version in a file name. */
export function assertMigrationName(name: string): void {
  if (name.length > MAX_MIGRATION_NAME_LENGTH || !NAME_PATTERN.test(name)) {
    throw new MigrationError(
      'invalid_migration_name',
      `invalid migration name "${name}": at most ${MAX_MIGRATION_NAME_LENGTH} characters, letters, digits, "_", "-" or "." (starting with a letter or digit)`,
    );
  }
}

/** A migration name from any file name (`add stock.sql` -> `add_stock`), for files copied in from elsewhere. */
export function migrationNameFrom(file: string): string {
  const name = path.basename(file).replace(/\.sql$/i, '').toLowerCase().replace(/[^a-z0-9_.-]+/g, '_').replace(/^[^a-z0-9]+|_+$/g, '').slice(0, MAX_MIGRATION_NAME_LENGTH);
  return name === '' ? 'migration' : name;
}

/**
 * SHA-256 of the file's text with CRLF read as LF, hex: a checkout on Windows (core.autocrlf)
 * holds the same migration, any other edit, comments included, is a different one.
 */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/** The version of a moment: its UTC YYYYMMDDHHMMSS. */
export function versionOf(moment: Date): string {
  return moment.toISOString().replace(/\.\d{3}Z$/, '').replace(/[-T:]/g, '');
}

function dateOf(version: string): Date {
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((at, i) => Number(version.slice(at, i === 0 ? 4 : at + 2)));
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}

/**
 * `count` new versions, one second apart, from `now` or from just after the latest existing
 * version when that is not earlier (a clock behind, or several files in one second): new files
 * always sort after the history they extend.
 */
export function nextVersions(now: Date, existing: readonly string[], count: number): string[] {
  const latest = [...existing].sort().at(-1);
  let moment = Math.floor(now.getTime() / 1000) * 1000;
  if (latest !== undefined) moment = Math.max(moment, dateOf(latest).getTime() + 1000);
  return Array.from({ length: count }, (_, i) => versionOf(new Date(moment + i * 1000)));
}

/** The folder of one project's migrations. */
export function projectMigrationsDir(migrationsDir: string, ref: string): string {
  return path.join(migrationsDir, ref);
}

/**
 * The migrations of `migrations/<ref>/` in version order; none when the folder does not exist.
 * Every `.sql` file but seed.sql must be named `<version>_<name>.sql` (a misnamed file is an error,
 * not silently skipped), and no two may share a version. Other files (a README, .gitkeep) are left alone.
 */
export function listLocalMigrations(migrationsDir: string, ref: string): Promise<LocalMigration[]> {
  return listMigrationsIn(projectMigrationsDir(migrationsDir, ref));
}

/** The migrations of any folder named as migrations/<ref>/ is (a Supabase CLI `supabase/migrations/`). */
export async function listMigrationsIn(dir: string): Promise<LocalMigration[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    // No folder there (or a file, or a path too long to be one): nothing to list.
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'ENAMETOOLONG') return [];
    throw error;
  });
  const found = new Map<string, LocalMigration>();
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.sql') || entry.name === SEED_FILE) continue;
    const parsed = parseMigrationFileName(entry.name);
    if (!parsed) {
      throw new MigrationError('invalid_migration_name', `${path.join(dir, entry.name)}: a migration file is named <version>_<name>.sql, the version a 14-digit UTC timestamp`);
    }
    const other = found.get(parsed.version);
    if (other) {
      throw new MigrationError('duplicate_migration_version', `${other.path} and ${entry.name} share version ${parsed.version}`);
    }
    const file = path.join(dir, entry.name);
    const sql = await fs.readFile(file, 'utf8');
    found.set(parsed.version, { ...parsed, path: file, sql, checksum: migrationChecksum(sql) });
  }
  return [...found.values()].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

/** `migrations/<ref>/seed.sql` as text, or null without one. */
export async function readSeed(migrationsDir: string, ref: string): Promise<string | null> {
  return fs.readFile(path.join(projectMigrationsDir(migrationsDir, ref), SEED_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Writes a new migration file (never over an existing one) and returns it as listed. */
export async function writeMigration(migrationsDir: string, ref: string, version: string, name: string, sql: string): Promise<LocalMigration> {
  assertMigrationName(name);
  const dir = projectMigrationsDir(migrationsDir, ref);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, migrationFileName(version, name));
  await fs.writeFile(file, sql, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EEXIST' ? new MigrationError('migration_exists', `${file} already exists`) : error;
  });
  return { version, name, path: file, sql, checksum: migrationChecksum(sql) };
}

/**
 * Copies migrations into migrations/<ref>/ under their own file names: a file already there with
 * the same content is kept (two hosts seeding the demo at once, an import run twice), one with
 * other content or another name for the version is an error. Returns the ones written.
 */
export async function copyMigrations(migrationsDir: string, ref: string, migrations: readonly LocalMigration[]): Promise<LocalMigration[]> {
  const existing = new Map((await listLocalMigrations(migrationsDir, ref)).map((m) => [m.version, m]));
  const clashes = migrations.filter((m) => {
    const there = existing.get(m.version);
    return there !== undefined && (there.name !== m.name || there.checksum !== m.checksum);
  });
  if (clashes.length > 0) {
    const names = clashes.map((m) => existing.get(m.version)!.path).join(', ');
    throw new MigrationError('migration_exists', `${names}: already there with other content; nothing was copied`);
  }
  const written: LocalMigration[] = [];
  for (const m of migrations.filter((m) => !existing.has(m.version))) {
    written.push(await writeMigration(migrationsDir, ref, m.version, m.name, m.sql).catch(async (error: unknown) => {
      // Another process wrote the same file meanwhile: what counts is that it holds this content.
      const there = (await listLocalMigrations(migrationsDir, ref)).find((l) => l.version === m.version);
      if (there?.checksum === m.checksum && there.name === m.name) return there;
      throw error;
    }));
  }
  return written;
}

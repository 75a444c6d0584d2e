import path from 'node:path';
import type pg from 'pg';
import { runOutsideTransaction, runSchemaFiles } from '../../runtime/platform/bootstrap.js';
import { MigrationError } from './errors.js';
import { adoptChecksum, ensureHistoryTable, readHistory, recordMigration } from './history.js';
import type { LocalMigration } from './local-files.js';
import { assertMarkedFiles, runsOutsideTransaction } from './no-transaction.js';
import { migrationStatus, type MigrationStatus } from './status.js';

/** Serialises `migrate` runs on one database (advisory locks are per database): two deploy jobs apply each file once. */
const LOCK = 'gantry.user_migrations';

export interface ApplyOptions {
  /** The project, named in the remedies. */
  readonly ref: string;
  /** migrations/<ref>/, named in messages. */
  readonly folder: string;
  /** The database carries the production mark (production.ts): never told to reset, and recorded versions without a file are left alone (a deploy of an older commit). */
  readonly production: boolean;
  /**
   * Runs after each migration's SQL, before its history row is written, on the same connection: inside
   * its transaction, where throwing rolls the migration back (and stops the run) with that error; for a
   * file marked to run outside a transaction (`inTransaction` false) after it committed, where throwing
   * leaves it applied but not recorded.
   */
  readonly beforeRecord?: (client: pg.ClientBase, migration: LocalMigration, inTransaction: boolean) => Promise<void>;
}

export interface ApplyResult {
  /** The migrations applied by this run, in order. */
  readonly applied: readonly LocalMigration[];
  /** Recorded versions with no local file: on a production database left as they are, reported. */
  readonly missingLocally: readonly MigrationStatus[];
}

/** How a file is named in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * The history differs from the folder: files edited after they ran, or (on a development database)
 * versions recorded without a file, which is what a database migrated on another branch looks like.
 * A development database is rebuilt from the branch's files by `db reset`; a production one never is.
 */
function divergedError(options: ApplyOptions, modified: readonly MigrationStatus[], missing: readonly MigrationStatus[], local: readonly LocalMigration[]): MigrationError {
  const lines = [
    ...modified.map((m) => {
      const file = local.find((l) => l.version === m.version)!;
      return `${displayPath(file.path)}: applied with checksum ${m.appliedChecksum}, the file now has checksum ${m.localChecksum}`;
    }),
    ...missing.map((m) => `${m.version}${m.name === null ? '' : `_${m.name}`}: applied to the database, not in ${displayPath(options.folder)}`),
  ];
  const repair = `record the edit deliberately with \`gantry migration repair ${options.ref} <version> --status applied\``;
  const remedy = options.production
    ? `${options.ref}'s database is marked production, so it is never reset: an applied migration must not change; restore the file as it was applied and add a new migration, or ${repair}`
    : [
        `the local database was migrated from other files than this branch's (another branch's, or a file edited since it ran)`,
        `rebuild it from this branch's migrations and seed.sql, keeping keys and settings (its rows are lost): npx gantry db reset ${options.ref} --yes`,
        ...(missing.length === 0 ? [`or keep the database: restore the file and add a new migration, or ${repair}`] : []),
      ].join('\n');
  return new MigrationError(missing.length > 0 ? 'history_diverged' : 'migration_modified', `${lines.join('\n')}\n${remedy}`);
}

/**
 * Applies the migrations of `local` that the database has not recorded, in version order, each in
 * its own transaction together with its history row (a file marked `-- gantry:no-transaction`: on
 * its own, its row written once it succeeded), under an advisory lock held by `client` (a direct
 * session, not a transaction pooler). Refuses, before applying anything, when an applied migration's
 * file has changed, and on a development database when a recorded version has no file. A history
 * row the Supabase CLI wrote (no checksum) takes the file's.
 */
export async function applyMigrations(client: pg.ClientBase, local: readonly LocalMigration[], options: ApplyOptions): Promise<ApplyResult> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK]);
  try {
    // Read under the lock: a concurrent run that finished meanwhile has recorded its files.
    const status = migrationStatus(local, await readHistory(client));
    const modified = status.filter((m) => m.state === 'modified');
    const missing = status.filter((m) => m.state === 'missing-locally');
    if (modified.length > 0 || (missing.length > 0 && !options.production)) throw divergedError(options, modified, options.production ? [] : missing, local);
    const pending = new Set(status.filter((m) => m.state === 'pending').map((m) => m.version));
    assertMarkedFiles(local.filter((m) => pending.has(m.version)), displayPath);
    if (pending.size > 0 || status.some((m) => m.appliedChecksum === null && m.localChecksum !== null)) await ensureHistoryTable(client);
    for (const m of status) {
      if (m.state === 'applied' && m.appliedChecksum === null && m.localChecksum !== null) await adoptChecksum(client, m.version, m.localChecksum);
    }
    const applied: LocalMigration[] = [];
    for (const migration of local.filter((m) => pending.has(m.version))) {
      const file = { name: displayPath(migration.path), sql: migration.sql };
      if (runsOutsideTransaction(migration.sql)) {
        await runOutsideTransaction(client, file);
        await options.beforeRecord?.(client, migration, false);
        await recordMigration(client, migration);
        applied.push(migration);
        continue;
      }
      await client.query('BEGIN');
      try {
        await runSchemaFiles(client, [file]);
        await recordMigration(client, migration);
        await options.beforeRecord?.(client, migration, true);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      applied.push(migration);
    }
    return { applied, missingLocally: missing };
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK]);
  }
}

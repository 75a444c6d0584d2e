import path from 'node:path';
import type pg from 'pg';
import { runSchemaFiles } from '../../runtime/platform/bootstrap.js';
import { MigrationError } from './errors.js';
import { adoptChecksum, ensureHistoryTable, readHistory, recordMigration } from './history.js';
import type { LocalMigration } from './local-files.js';
import { migrationStatus, type MigrationStatus } from './status.js';

/** Serialises `migrate` runs on one database (advisory locks are per database): two deploy jobs apply each file once. */
const LOCK = 'gantry.user_migrations';

export interface ApplyOptions {
  /**
   * Runs inside each migration's transaction after its SQL, before COMMIT, on the same
   * connection; throwing rolls the migration back (and stops the run) with that error.
   */
  readonly beforeCommit?: (client: pg.ClientBase, migration: LocalMigration) => Promise<void>;
}

export interface ApplyResult {
  /** The migrations applied by this run, in order. */
  readonly applied: readonly LocalMigration[];
  /** Recorded versions with no local file: left as they are, reported. */
  readonly missingLocally: readonly MigrationStatus[];
}

/** How a file is named in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

function modifiedError(modified: readonly MigrationStatus[], local: readonly LocalMigration[]): MigrationError {
  const lines = modified.map((m) => {
    const file = local.find((l) => l.version === m.version)!;
    return `${displayPath(file.path)}: applied with checksum ${m.appliedChecksum}, the file now has checksum ${m.localChecksum}`;
  });
  return new MigrationError(
    'migration_modified',
    `${lines.join('\n')}\nan applied migration must not change: restore it and add a new migration, or record the change deliberately with \`gantry migration repair <ref> <version> --status applied\``,
  );
}

/**
 * Applies the migrations of `local` that the database has not recorded, in version order, each in
 * its own transaction together with its history row, under an advisory lock held by `client` (a
 * direct session, not a transaction pooler). Refuses, before applying anything, when an applied
 * migration's file has changed. A history row the Supabase CLI wrote (no checksum) takes the file's.
 */
export async function applyMigrations(client: pg.ClientBase, local: readonly LocalMigration[], options: ApplyOptions = {}): Promise<ApplyResult> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK]);
  try {
    // Read under the lock: a concurrent run that finished meanwhile has recorded its files.
    const status = migrationStatus(local, await readHistory(client));
    const modified = status.filter((m) => m.state === 'modified');
    if (modified.length > 0) throw modifiedError(modified, local);
    const pending = new Set(status.filter((m) => m.state === 'pending').map((m) => m.version));
    if (pending.size > 0 || status.some((m) => m.appliedChecksum === null && m.localChecksum !== null)) await ensureHistoryTable(client);
    for (const m of status) {
      if (m.state === 'applied' && m.appliedChecksum === null && m.localChecksum !== null) await adoptChecksum(client, m.version, m.localChecksum);
    }
    const applied: LocalMigration[] = [];
    for (const migration of local.filter((m) => pending.has(m.version))) {
      await client.query('BEGIN');
      try {
        await runSchemaFiles(client, [{ name: displayPath(migration.path), sql: migration.sql }]);
        await recordMigration(client, migration);
        await options.beforeCommit?.(client, migration);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      applied.push(migration);
    }
    return { applied, missingLocally: status.filter((m) => m.state === 'missing-locally') };
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK]);
  }
}

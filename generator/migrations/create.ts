import type pg from 'pg';
import { createProject, initialiseDatabase, recreateDatabase, type CreateProjectOptions, type DatabaseLocation, type SchemaFile } from '../../runtime/platform/bootstrap.js';
import type { Platform, ProjectRecord } from '../../runtime/platform/platform.js';
import { displayPath } from './apply.js';
import { ensureHistoryTable, recordMigration } from './history.js';
import { copyMigrations, listLocalMigrations, migrationChecksum, migrationNameFrom, nextVersions, type LocalMigration } from './local-files.js';
import { assertMarkedFiles, runsOutsideTransaction } from './no-transaction.js';
import { writeSum } from './sum-file.js';

/** Inside the transaction that ran them: the history table, holding every one of `migrations`. */
function recordAll(migrations: readonly LocalMigration[]): (client: pg.ClientBase) => Promise<void> {
  return async (client) => {
    await ensureHistoryTable(client);
    for (const migration of migrations) await recordMigration(client, migration);
  };
}

/** Migrations as the files a new database is built from, a marked file (no-transaction.ts) checked and run on its own. */
export function asSchemaFiles(migrations: readonly LocalMigration[]): SchemaFile[] {
  assertMarkedFiles(migrations, displayPath);
  return migrations.map((m) => ({ name: displayPath(m.path), sql: m.sql, outsideTransaction: runsOutsideTransaction(m.sql) }));
}

/**
 * `project create <ref> [--schema F.sql ...]`: the project's committed migrations (a fresh clone
 * holds them) and then the given files as new versions, all run and recorded in the one transaction
 * that creates the project; the new files are copied into migrations/<ref>/ once it exists, so
 * every project has its whole history from the start. Returns the record and the migrations run.
 */
export async function createProjectWithHistory(
  platform: Platform,
  options: Omit<CreateProjectOptions, 'finish'>,
): Promise<{ readonly record: ProjectRecord; readonly migrations: readonly LocalMigration[] }> {
  const { migrationsDir } = platform.config;
  const local = await listLocalMigrations(migrationsDir, options.ref);
  const versions = nextVersions(new Date(), local.map((m) => m.version), options.schemaFiles.length);
  const added = options.schemaFiles.map((file, i) => ({
    version: versions[i]!,
    name: migrationNameFrom(file.name),
    path: file.name,
    sql: file.sql,
    checksum: migrationChecksum(file.sql),
  }));
  const migrations = [...local, ...added];
  const record = await createProject(platform, {
    ...options,
    schemaFiles: asSchemaFiles(migrations),
    finish: recordAll(migrations),
  });
  const copied = await copyMigrations(migrationsDir, options.ref, added);
  await writeSum(migrationsDir, options.ref);
  return { record, migrations: [...local, ...copied] };
}

/**
 * `db reset`: the project database dropped and built again from migrations/<ref>/ (recorded as
 * applied) and then seed.sql, in one transaction after the new CREATE DATABASE; the registry
 * record (keys, settings) is not touched.
 */
export async function resetProjectDatabase(platform: Platform, record: ProjectRecord, seed: SchemaFile | null): Promise<readonly LocalMigration[]> {
  const migrations = await listLocalMigrations(platform.config.migrationsDir, record.ref);
  const files = [...asSchemaFiles(migrations), ...(seed ? [seed] : [])];
  await recreateDatabase(platform, record, files, recordAll(migrations));
  await writeSum(platform.config.migrationsDir, record.ref);
  return migrations;
}

/** A new, empty database (a move's target) built from migrations/<ref>/ as `db reset` builds one, without the seed. */
export async function buildFromHistory(platform: Platform, target: DatabaseLocation, ref: string): Promise<void> {
  const migrations = await listLocalMigrations(platform.config.migrationsDir, ref);
  await initialiseDatabase(platform, target, asSchemaFiles(migrations), recordAll(migrations));
}

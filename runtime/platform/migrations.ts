import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Queryable } from '../db/transaction.js';

/** A set of numbered migrations (`NNN_name.sql`) and where a database records the ones it has run. */
interface MigrationSet {
  readonly dir: string;
  /** Qualified name of the table that records applied versions. */
  readonly table: string;
  /** Advisory-lock key: concurrent processes never apply one twice. */
  readonly lock: string;
}

const PLATFORM: MigrationSet = {
  dir: path.join(import.meta.dirname, 'migrations'),
  table: 'public.schema_migrations',
  lock: 'gantry.migrations',
};

/**
 * Changes to what Gantry keeps in every project database (the auth schema) after it was
 * bootstrapped. A new project's bootstrap SQL is already current, so it records them as
 * applied (recordProjectMigrations); older databases get them when a host loads them.
 */
const PROJECT: MigrationSet = {
  dir: path.join(import.meta.dirname, 'project-migrations'),
  table: 'auth.schema_migrations',
  lock: 'gantry.project_migrations',
};

async function versions(set: MigrationSet): Promise<string[]> {
  return (await fs.readdir(set.dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort().map((f) => f.replace(/\.sql$/, ''));
}

/**
 * Applies the migrations of `set` that have not run yet, each in its own transaction,
 * under an advisory lock. Re-running is a no-op. Returns the versions applied.
 */
async function migrate(client: pg.ClientBase, set: MigrationSet): Promise<string[]> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [set.lock]);
  try {
    // Checked first: even a CREATE TABLE IF NOT EXISTS that does nothing fires the project's
    // DDL event trigger, and a host that regenerates on it would reload, migrate, and loop.
    const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [set.table]);
    if (!rows[0]?.present) {
      await client.query(`CREATE TABLE ${set.table} (
        version text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    }
    const done = new Set((await client.query<{ version: string }>(`SELECT version FROM ${set.table}`)).rows.map((r) => r.version));
    const applied: string[] = [];
    for (const version of await versions(set)) {
      if (done.has(version)) continue;
      const sql = await fs.readFile(path.join(set.dir, `${version}.sql`), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(`INSERT INTO ${set.table} (version) VALUES ($1)`, [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [set.lock]);
  }
}

/** The platform database's migrations. */
export function migratePlatform(client: pg.ClientBase): Promise<string[]> {
  return migrate(client, PLATFORM);
}

/** A project database's migrations (its auth schema). */
export function migrateProject(client: pg.ClientBase): Promise<string[]> {
  return migrate(client, PROJECT);
}

/**
 * Whether a project database lacks any project migration: one read, which a pooled
 * connection can do, whereas applying them holds a session advisory lock.
 */
export async function projectMigrationsPending(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [PROJECT.table]);
  if (!rows[0]?.present) return true;
  const done = new Set((await db.query<{ version: string }>(`SELECT version FROM ${PROJECT.table}`)).rows.map((r) => r.version));
  return (await versions(PROJECT)).some((version) => !done.has(version));
}

/** The project migrations' versions, oldest first: what a new project database records as applied. */
export function projectMigrationVersions(): Promise<string[]> {
  return versions(PROJECT);
}

/** Inside a new project's bootstrap transaction: its auth schema is current, so every project migration counts as applied. */
export async function recordProjectMigrations(client: pg.ClientBase): Promise<void> {
  await client.query(`INSERT INTO ${PROJECT.table} (version) SELECT unnest($1::text[])`, [await versions(PROJECT)]);
}

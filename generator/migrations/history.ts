import type pg from 'pg';
import { splitStatements } from '../../runtime/platform/sql-statements.js';
import type { LocalMigration } from './local-files.js';

/**
 * Where a project database records the migrations of `migrations/<ref>/` it has run: the Supabase
 * CLI's own table (version, statements, name), so a database migrated by the Supabase CLI keeps its
 * history, plus a checksum and the time of applying. Schema `supabase_migrations` is never exposed
 * (only `api.schemas` are, `public` by default), so neither the data API nor generated code sees it.
 */
export const HISTORY_TABLE = 'supabase_migrations.schema_migrations';

/** One row of the history. */
export interface AppliedMigration {
  readonly version: string;
  readonly name: string | null;
  /** Null for a row the Supabase CLI wrote: `migrate` takes the local file's checksum the first time it meets it. */
  readonly checksum: string | null;
  /** Null for a row the Supabase CLI wrote before Gantry added the column. */
  readonly appliedAt: Date | null;
}

type Db = Pick<pg.ClientBase, 'query'>;

const COLUMNS: Readonly<Record<string, string>> = {
  statements: 'text[]',
  name: 'text',
  checksum: 'text',
  applied_at: 'timestamptz',
};

/**
 * Creates the history table, or adds the columns a Supabase CLI table lacks. Each piece of DDL
 * runs only when missing: even a no-op `IF NOT EXISTS` fires the project's DDL event trigger and
 * sends every running host regenerating.
 */
export async function ensureHistoryTable(client: Db): Promise<void> {
  const { rows } = await client.query<{ column_name: string }>(
    `SELECT a.attname AS column_name FROM pg_attribute a
     WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
    [HISTORY_TABLE],
  );
  if (rows.length === 0) {
    await client.query(`CREATE SCHEMA IF NOT EXISTS supabase_migrations`);
    await client.query(`CREATE TABLE ${HISTORY_TABLE} (
      version text NOT NULL PRIMARY KEY,
      statements text[],
      name text,
      checksum text,
      applied_at timestamptz DEFAULT now()
    )`);
    return;
  }
  const present = new Set(rows.map((r) => r.column_name));
  for (const [column, type] of Object.entries(COLUMNS)) {
    if (present.has(column)) continue;
    // Rows already there keep a null applied_at: their time is unknown, not the time of this ALTER.
    await client.query(`ALTER TABLE ${HISTORY_TABLE} ADD COLUMN ${column} ${type}`);
    if (column === 'applied_at') await client.query(`ALTER TABLE ${HISTORY_TABLE} ALTER COLUMN applied_at SET DEFAULT now()`);
  }
}

/** The recorded migrations in version order; none when the database has no history table yet. */
export async function readHistory(db: Db): Promise<AppliedMigration[]> {
  const { rows: present } = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [HISTORY_TABLE]);
  if (!present[0]?.present) return [];
  // to_jsonb(row) reads the Supabase CLI's table as well, which may lack checksum and applied_at.
  const { rows } = await db.query<{ row: { version: string; name?: string | null; checksum?: string | null; applied_at?: string | null } }>(
    `SELECT to_jsonb(h) AS row FROM ${HISTORY_TABLE} h ORDER BY version`,
  );
  return rows.map(({ row }) => ({
    version: row.version,
    name: row.name ?? null,
    checksum: row.checksum ?? null,
    appliedAt: row.applied_at ? new Date(row.applied_at) : null,
  }));
}

/** Records a migration as applied (inside the transaction that ran it); a row already there is overwritten. */
export async function recordMigration(client: Db, migration: Pick<LocalMigration, 'version' | 'name' | 'sql' | 'checksum'>): Promise<void> {
  await client.query(
    `INSERT INTO ${HISTORY_TABLE} (version, statements, name, checksum, applied_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (version) DO UPDATE SET statements = EXCLUDED.statements, name = EXCLUDED.name, checksum = EXCLUDED.checksum, applied_at = now()`,
    [migration.version, splitStatements(migration.sql).map((s) => s.sql), migration.name, migration.checksum],
  );
}

/** Sets the checksum of a row the Supabase CLI recorded without one. */
export async function adoptChecksum(client: Db, version: string, checksum: string): Promise<void> {
  await client.query(`UPDATE ${HISTORY_TABLE} SET checksum = $2 WHERE version = $1 AND checksum IS NULL`, [version, checksum]);
}

/** Forgets a migration (`migration repair --status reverted`); whether there was a row. */
export async function forgetMigration(client: Db, version: string): Promise<boolean> {
  return ((await client.query(`DELETE FROM ${HISTORY_TABLE} WHERE version = $1`, [version])).rowCount ?? 0) > 0;
}

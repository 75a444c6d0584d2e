import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';

const migrationsDir = path.join(import.meta.dirname, 'migrations');

/**
 * Applies the platform database's numbered migrations (`NNN_name.sql`) that have
 * not run yet, each in its own transaction, under an advisory lock so concurrent
 * processes never apply one twice. Re-running is a no-op.
 */
export async function migratePlatform(client: pg.ClientBase): Promise<string[]> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', ['gantry.migrations']);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const files = (await fs.readdir(migrationsDir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
    const applied: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      const sql = await fs.readFile(path.join(migrationsDir, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['gantry.migrations']);
  }
}

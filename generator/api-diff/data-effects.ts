import type pg from 'pg';
import type { DataQuestion } from './data-checks.js';

/** A question about the rows, answered: `rows` null when it was not counted, `note` says why. */
export interface DataFinding {
  readonly description: string;
  readonly rows: number | null;
  readonly note: string | null;
}

/** Why nothing was counted, for every question of a report made without a database. */
export const noDatabase = 'not counted: no database (gantry diff --data counts them)';

/**
 * Each question counted on `client` in one read-only transaction, each count in a savepoint of its own, so
 * one that fails (a timeout, a missing privilege) is reported as not counted and the others still run.
 * A count is made only where the database holds the base's definition (the relation, the column with its
 * type and nullability): a database already migrated would answer about rows the change has rewritten.
 */
export async function answerQuestions(client: pg.ClientBase, questions: readonly DataQuestion[]): Promise<DataFinding[]> {
  const findings: DataFinding[] = [];
  await client.query("BEGIN READ ONLY; SET LOCAL statement_timeout = '15s'");
  try {
    for (const question of questions) {
      await client.query('SAVEPOINT question');
      try {
        const mismatch = await baseMismatch(client, question.requires);
        if (mismatch !== null) {
          findings.push({ description: question.description, rows: null, note: `not counted: ${mismatch}` });
          continue;
        }
        const { rows } = await client.query<{ n: string }>(question.sql);
        findings.push({ description: question.description, rows: Number(rows[0]?.n ?? 0), note: null });
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT question');
        findings.push({ description: question.description, rows: null, note: `not counted: ${(error as Error).message}` });
      }
    }
  } finally {
    await client.query('ROLLBACK');
  }
  return findings;
}

/** What keeps the database from answering for the base; null when it holds the base's definition. */
async function baseMismatch(client: pg.ClientBase, requires: DataQuestion['requires']): Promise<string | null> {
  const { rows } = await client.query<{ relation: string | null; type: string | null; notnull: boolean | null }>(
    `SELECT c.oid::regclass::text AS relation, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = $3 AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = $1 AND c.relname = $2`,
    [requires.schema, requires.table, requires.column?.name ?? null],
  );
  const found = rows[0];
  if (!found) return `the database has no table ${requires.schema}.${requires.table} (it is not at the base's schema)`;
  const column = requires.column;
  if (column === null) return null;
  if (found.type === null) return `the database's ${requires.table} has no column ${column.name} (it is not at the base's schema)`;
  // Types outside pg_catalog are schema-qualified in the model, as format_type does not qualify them on the search path.
  const typeDiffers = column.type.schema === 'pg_catalog' && found.type !== column.type.sql;
  if (typeDiffers || found.notnull === column.nullable) {
    return `the database's ${requires.table}.${column.name} is ${found.type}${found.notnull ? ' NOT NULL' : ''}, not the base's ${column.type.sql}${column.nullable ? '' : ' NOT NULL'} (already migrated?)`;
  }
  return null;
}

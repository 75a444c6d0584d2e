import type pg from 'pg';
import { CodedError } from '../coded-error.js';

export class DatabaseCopyError extends CodedError {
  readonly code = 'move_schema_differs';
}

/** A table holding rows: its quoted name and the columns an INSERT gives (not generated ones). */
interface CopiedTable {
  readonly name: string;
  readonly columns: readonly string[];
}

/** Rows per round trip: a few hundred kB of text for typical rows. */
const BATCH_ROWS = 2_000;

/** Objects of PostgreSQL's own schemas, and those an extension owns (it creates them itself), are never copied. */
const OWN_OBJECTS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')`;

/** Every table that stores rows (plain tables and partitions, not partitioned parents), sorted. */
export async function tablesOf(db: Pick<pg.ClientBase, 'query'>): Promise<CopiedTable[]> {
  const { rows } = await db.query<{ name: string; columns: string[] }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name,
            array(SELECT quote_ident(a.attname) FROM pg_attribute a
                   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
                   ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND ${OWN_OBJECTS}
      ORDER BY 1`,
  );
  return rows;
}

async function relationsOf(db: Pick<pg.ClientBase, 'query'>, relkind: 'S' | 'm'): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = $1 AND ${OWN_OBJECTS} ORDER BY 1`,
    [relkind],
  );
  return rows.map((row) => row.name);
}

/** The first difference between two databases' tables and columns, or null when they have the same. */
export function tableDifference(source: readonly CopiedTable[], target: readonly CopiedTable[]): string | null {
  const targets = new Map(target.map((t) => [t.name, t.columns.join(', ')]));
  for (const table of source) {
    const columns = targets.get(table.name);
    if (columns === undefined) return `table ${table.name} is missing`;
    if (columns !== table.columns.join(', ')) return `table ${table.name} has columns (${columns}), the source (${table.columns.join(', ')})`;
    targets.delete(table.name);
  }
  const extra = targets.keys().next();
  return extra.done ? null : `table ${extra.value} is not in the source`;
}

export interface CopyReport {
  readonly tables: number;
  readonly rows: number;
  readonly sequences: number;
}

/**
 * Copies every row and sequence position of `source` into `target`, a database with the same tables
 * (built from the same migrations): in one transaction on the target, whose rows (a migration's
 * inserts) are replaced, with triggers and foreign-key checks off (session_replication_role), as a
 * restore does. Rows travel as their record text, which every type reads back exactly. Nothing else
 * may write to the source meanwhile (the move makes it read-only).
 */
export async function copyDatabase(source: pg.ClientBase, target: pg.ClientBase): Promise<CopyReport> {
  const tables = await tablesOf(source);
  const difference = tableDifference(tables, await tablesOf(target));
  if (difference !== null) {
    throw new DatabaseCopyError(`the database built from the project's migrations differs from the live one (${difference}): bring migrations/ in line with the database first`);
  }
  let rows = 0;
  await target.query('BEGIN');
  try {
    await target.query('SET LOCAL session_replication_role = replica');
    if (tables.length > 0) await target.query(`TRUNCATE ${tables.map((t) => `ONLY ${t.name}`).join(', ')}`);
    for (const table of tables) {
      const columns = table.columns.map((column) => `(r).${column}`).join(', ');
      const insert = `INSERT INTO ${table.name} (${table.columns.join(', ')}) OVERRIDING SYSTEM VALUE
        SELECT ${columns} FROM (SELECT v::${table.name} AS r FROM unnest($1::text[]) AS v OFFSET 0) AS q`;
      for (let after = '(0,0)'; ;) {
        const batch = await source.query<{ at: string; v: string }>(
          `SELECT ctid::text AS at, t::text AS v FROM ONLY ${table.name} AS t WHERE ctid > $1::tid ORDER BY ctid LIMIT ${BATCH_ROWS}`,
          [after],
        );
        if (batch.rows.length === 0) break;
        if (table.columns.length > 0) await target.query(insert, [batch.rows.map((row) => row.v)]);
        rows += batch.rows.length;
        after = batch.rows[batch.rows.length - 1]!.at;
      }
    }
    const sequences = await relationsOf(source, 'S');
    for (const sequence of sequences) {
      const { rows: at } = await source.query<{ last_value: string; is_called: boolean }>(`SELECT last_value::text, is_called FROM ${sequence}`);
      await target.query('SELECT setval($1::regclass, $2::bigint, $3)', [sequence, at[0]!.last_value, at[0]!.is_called]);
    }
    for (const view of await relationsOf(target, 'm')) await target.query(`REFRESH MATERIALIZED VIEW ${view}`);
    await target.query('COMMIT');
    return { tables: tables.length, rows, sequences: sequences.length };
  } catch (error) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

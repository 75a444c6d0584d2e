import { tableNotFound } from '../errors.js';
import type { ProjectMeta, TableMeta } from '../metadata.js';
import { statementName, type SqlQuery } from './params.js';
import type { EmbedShape } from './read-tree.js';
import { closest } from './relations.js';

/** What the body column holds, so the HTTP layer picks status and checks. */
export type ResultKind =
  /** Rows of a table, view or table-valued function: an array (or one object with singular Accept). */
  | 'rows'
  /** A bare JSON value (scalar function, or SETOF scalar as an array). */
  | 'scalar'
  /** One object from a non-SETOF composite function. */
  | 'composite'
  /** No body: void function → 204. */
  | 'void';

/** The rows of a body (or of an embed): the relation they belong to (null: a function's own row type) and their embeds. */
export interface BodyShape {
  /** `schema.name`. */
  readonly relation: string | null;
  readonly embeds: readonly EmbedShape[];
}

export interface BuiltStatement extends SqlQuery {
  /** Stable prepared-statement name for `text` (see `statementName`). */
  readonly name: string;
  readonly result: ResultKind;
  /** Run in a READ ONLY transaction: reads, RPC over GET/HEAD, and non-volatile functions over POST. */
  readonly readOnly: boolean;
  /**
   * `EXPLAIN (FORMAT JSON)` of the unpaginated query, for `count=planned` and for
   * `count=estimated` when `total_count` exceeds `countThreshold`; read it with
   * `plannedRowsFromExplain`. Runs in the same transaction as the statement.
   */
  readonly plannedCount: SqlQuery | null;
  /** `count=estimated`: `total_count` is exact up to this many rows (it reads threshold+1 when above). */
  readonly countThreshold: number | null;
  /** What the body's rows are, for `rows` and `composite` results; null for scalars and void. */
  readonly shape: BodyShape | null;
  /** An insert with a conflict target (the key or `on_conflict`), so that `Prefer: resolution` applies; absent otherwise. */
  readonly upsert?: true;
  /**
   * Writes with a body: the index in `values` of the body's JSON, the one value taken from the body (the SQL text
   * depends on its keys only), so that the statement serves another body with the same keys (`withBody`).
   */
  readonly bodyParam?: number;
}

/** The statement for another body with the same keys (only the body's JSON differs: see `bodyParam`); null without one. */
export function withBody(built: BuiltStatement, json: string): BuiltStatement | null {
  if (built.bodyParam === undefined) return null;
  const values = [...built.values];
  values[built.bodyParam] = json;
  return { ...built, values };
}

export interface BuildOptions {
  /** Rows up to which `count=estimated` is exact; default `maxRows`, else 1000 (PostgREST uses db-max-rows). */
  readonly estimatedCountThreshold?: number;
  /** PostgREST's db-max-rows: caps the rows of every read level (not write RETURNING). Unset: no cap. */
  readonly maxRows?: number;
  /** PostgREST's db-aggregates-enabled (the project's `api.aggregates`). Unset: refused with PGRST123. */
  readonly aggregates?: boolean;
  /** Writes: also return every written row, whole, as JSON (`written`), for an extension's `afterWrite`. */
  readonly returnWritten?: boolean;
}

export const DEFAULT_ESTIMATE_THRESHOLD = 1000;

export function finish(text: string, values: readonly unknown[], rest: Omit<BuiltStatement, 'text' | 'values' | 'name'>): BuiltStatement {
  return { text, values, name: statementName(text), ...rest };
}

/** The table or view a request names; unknown → 404 42P01 with a "Perhaps you meant" hint. */
export function findTable(meta: ProjectMeta, schema: string, name: string): TableMeta {
  const table = meta.tables[`${schema}.${name}`];
  if (table) return table;
  const inSchema = Object.values(meta.tables).filter((t) => t.schema === schema).map((t) => t.name);
  // PostgREST's table hint asks a fuzzy score of 0.75 (its partition car_model_sales_202101 is hinted nothing).
  const suggestion = closest(name, inSchema, 0.75);
  throw tableNotFound(schema, name, suggestion === null ? null : `Perhaps you meant the table '${schema}.${suggestion}'`);
}

/** The planner's row estimate from `EXPLAIN (FORMAT JSON)` output (the top plan node's "Plan Rows"). */
export function plannedRowsFromExplain(explain: unknown): number | null {
  const doc = typeof explain === 'string' ? safeJson(explain) : explain;
  const first = Array.isArray(doc) ? doc[0] : null;
  const plan = typeof first === 'object' && first !== null ? (first as { Plan?: unknown }).Plan : null;
  const rows = typeof plan === 'object' && plan !== null ? (plan as { 'Plan Rows'?: unknown })['Plan Rows'] : null;
  return typeof rows === 'number' ? rows : null;
}

function safeJson(text: string): unknown {
  try { return JSON.parse(text); } catch { return null; }
}

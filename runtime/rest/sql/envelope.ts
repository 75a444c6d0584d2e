import type { MediaHandlerMeta } from '../metadata.js';
import type { MediaType } from '../parse/ast.js';
import { qualifiedName } from '../../db/identifiers.js';

/**
 * Every statement built here returns exactly one row with these columns:
 * - `total_count` bigint|null: reads: the requested count (exact, or the capped exact count of
 *   `estimated`), else null; writes: the number of affected rows.
 * - `page_count` bigint: rows in the body.
 * - `body` text|null: the response body, produced by PostgreSQL (null for HEAD, void RPC,
 *   `return=minimal` and `return=headers-only`).
 * - `inserted_count` bigint|null: upserts with `resolution=merge-duplicates`: rows inserted
 *   rather than updated (201 vs 200); else null.
 * - `location` text|null: `return=headers-only` inserts into a table with a primary key: the
 *   first row's key columns as a JSON object (for the `Location` header); else null.
 * - `response_headers`, `response_status` text|null: the `response.headers` and `response.status`
 *   settings as the statement leaves them (set by a function, a trigger or the pre-request function);
 *   read after the rows, so whatever ran for them has set them.
 */
export interface ResultRow {
  readonly total_count: string | number | null;
  readonly page_count: string | number;
  readonly body: string | null;
  readonly inserted_count: string | number | null;
  readonly location: string | null;
  readonly response_headers: string | null;
  readonly response_status: string | null;
  /** Only with BuildOptions.returnWritten: the written rows, whole, as a JSON array. */
  readonly written?: string;
}

export const SOURCE = 'pgrst_source';
const ROW = '_postgrest_t';

/**
 * The body of a media type handler as text: a bytea domain's bytes in base64 (the HTTP layer decodes them, see
 * `BuiltStatement.base64Body`), anything else as its type's output function prints it (`concat`, not a cast to
 * text: xml's output drops the newline after an omitted declaration, as PostgREST's answer does); no value (no
 * row, a null) is an empty body.
 */
export function handlerValueSql(handler: MediaHandlerMeta, value: string): string {
  return handler.binary ? `coalesce(pg_catalog.encode(${value}, 'base64'), '')` : `pg_catalog.concat(${value})`;
}

/**
 * The body expression over the rows of `${ROW}` (a CTE named `source`). A handler aggregate takes the rows as
 * `rowType` (the relation they are rows of) unless it takes `anyelement`; a function's own handler value is the
 * column `pgrst_scalar` of its one row.
 */
export function bodySql(media: MediaType, source: string, rowType: { readonly schema: string; readonly name: string } | null = null): string {
  const agg = `json_agg(${ROW})`;
  switch (media.kind) {
    case 'handler': {
      const aggregate = media.handler.aggregate;
      // A function that returns the handler's type: its one value is the body.
      if (aggregate === null) return handlerValueSql(media.handler, `(pg_catalog.array_agg(${ROW}."pgrst_scalar"))[1]`);
      const row = aggregate.anyElement || rowType === null ? ROW : `${ROW}::${qualifiedName(rowType.schema, rowType.name)}`;
      return handlerValueSql(media.handler, `${qualifiedName(aggregate.schema, aggregate.name)}(${row})`);
    }
    case 'json':
      return media.stripNulls ? `coalesce(json_strip_nulls(${agg}), '[]')::text` : `coalesce(${agg}, '[]')::text`;
    case 'object':
      return media.stripNulls ? `coalesce(json_strip_nulls(${agg}->0)::text, 'null')` : `coalesce((${agg}->0)::text, 'null')`;
    case 'csv':
      // PostgREST's CSV: header = keys of the first row; rows = record text without the parentheses.
      return `(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k FROM (SELECT row_to_json(hh) AS r FROM ${source} AS hh LIMIT 1) AS s) AS a)`
        + ` || E'\\n' || coalesce(string_agg(substring(${ROW}::text, 2, length(${ROW}::text) - 2), E'\\n'), '')`;
  }
}

export interface EnvelopeParts {
  /** CTE definitions, `name AS (...)`, the last one being the rows of the body. */
  readonly ctes: readonly string[];
  /** The CTE the body is aggregated from. */
  readonly rows: string;
  readonly total: string;
  /** null: no body. */
  readonly body: string | null;
  readonly inserted?: string;
  readonly location?: string;
  readonly written?: string;
}

const RESPONSE_GUCS = "pg_catalog.current_setting('response.headers', true) AS response_headers, "
  + "pg_catalog.current_setting('response.status', true) AS response_status";

export function envelopeSql(parts: EnvelopeParts): string {
  return `WITH ${parts.ctes.join(', ')} SELECT ${parts.total} AS total_count, pg_catalog.count(*) AS page_count, `
    + `${parts.body ?? 'NULL::text'} AS body, ${parts.inserted ?? 'NULL::bigint'} AS inserted_count, `
    + `${parts.location ?? 'NULL::text'} AS location, ${RESPONSE_GUCS}${parts.written ? `, ${parts.written} AS written` : ''} FROM ${parts.rows} AS ${ROW}`;
}

import { pgrstError, relationNotWritable, unknownPayloadColumn, undefinedColumn } from '../errors.js';
import type { ColumnMeta, ProjectMeta, TableMeta } from '../metadata.js';
import type { ApiRequest, RowsPayload } from '../parse/ast.js';
import { bodySql, envelopeSql, SOURCE } from './envelope.js';
import { conditionSql, type Scope } from './expressions.js';
import { columnRef, qualifiedName, quoteIdent } from '../../db/identifiers.js';
import { arrayLiteral, Params } from './params.js';
import { selectSql, TreeBuilder } from './read-tree.js';
import { finish, findTable, type BuildOptions, type BuiltStatement } from './statement.js';

const BODY = 'pgrst_body';

interface WriteContext {
  readonly req: ApiRequest;
  readonly meta: ProjectMeta;
  readonly table: TableMeta;
  readonly params: Params;
  readonly tree: TreeBuilder;
  /** Alias of the mutated table inside the INSERT/UPDATE/DELETE. */
  readonly alias: string;
  readonly returnWritten: boolean;
}

function context(req: ApiRequest, meta: ProjectMeta, action: 'insert' | 'update' | 'delete', options: BuildOptions): WriteContext {
  const table = findTable(meta, req.schema, req.target);
  // A view PostgreSQL cannot write (aggregates, DISTINCT, no INSTEAD OF trigger) is the client's
  // mistake, answered like OPTIONS describes it, not a 55000 from inside the statement.
  if (!table.updatable[action]) throw relationNotWritable(req.method, table.schema, table.name);
  const params = new Params();
  const tree = new TreeBuilder(meta, params, req, null, options.aggregates ?? false);
  return { req, meta, table, params, tree, alias: tree.alias('t'), returnWritten: options.returnWritten ?? false };
}

function payloadOf(req: ApiRequest): RowsPayload {
  if (req.payload?.kind !== 'rows') throw pgrstError('PGRST102', 'Empty or invalid json');
  return req.payload;
}

function represented(column: ColumnMeta): boolean {
  return column.representation?.fromJson !== undefined;
}

/** A body value: through its domain's cast from json when there is one (PostgREST's domain representations). */
function bodyValueSql(params: Params, column: ColumnMeta, element: string): string {
  const fromJson = column.representation?.fromJson;
  if (fromJson === undefined) return `"pgrst_r".${quoteIdent(column.name)}`;
  return `${qualifiedName(fromJson.schema, fromJson.name)}(${element} -> ${params.typed(column.name, 'text')})`;
}

/** The body element without the keys read through casts, which the base type could not parse. */
function populatedSql(params: Params, columns: readonly ColumnMeta[], element: string): string {
  const keys = columns.filter(represented).map((c) => c.name);
  return keys.length === 0 ? element : `((${element})::jsonb - ${params.typed(arrayLiteral(keys), 'text[]')})::json`;
}

/** Payload keys must be columns of the table (PGRST204, as PostgREST). */
function payloadColumns(table: TableMeta, keys: readonly string[]): ColumnMeta[] {
  return keys.map((key) => {
    const column = table.columns.find((c) => c.name === key);
    if (!column) throw unknownPayloadColumn(table.name, key);
    return column;
  });
}

/** Root filters choose the rows of UPDATE/DELETE; embedded filters only shape the returned rows. */
function mutationWhere(ctx: WriteContext): string {
  const scope: Scope = { table: ctx.table, alias: ctx.alias, embeds: new Map() };
  const where = ctx.req.conditions.filter((c) => c.path.length === 0).map((c) => conditionSql(ctx.params, scope, c.value));
  return where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
}

function wantsRepresentation(req: ApiRequest): boolean {
  return (req.preferences.return ?? 'representation') === 'representation';
}

/**
 * The columns of the written rows that `sql` reads through `alias` (`"t1"."email"`), in table order; null when it reads
 * whole rows (a computed field's `"t1"::table`) or every column. A role with column-level SELECT privileges may then
 * write and see the columns it selects, as PostgREST returns only those (`DELETE …&select=id,email`).
 */
export function columnsRead(sql: string, alias: string, table: TableMeta): readonly string[] | null {
  const quoted = quoteIdent(alias);
  const columns = table.columns.map((c) => c.name).filter((name) => sql.includes(columnRef(alias, name)));
  const wholeRow = sql.split(quoted).slice(1).some((after) => !after.startsWith('."'));
  return wholeRow || columns.length === table.columns.length ? null : columns;
}

/** What the mutation returns: the columns the response reads (see columnsRead), whole rows, or a constant for none. */
function returnedSql(ctx: WriteContext, read: readonly string[] | null): string {
  if (read === null) return `${quoteIdent(ctx.alias)}.*`;
  return read.length === 0 ? '1' : read.map((name) => columnRef(ctx.alias, name)).join(', ');
}

/**
 * `WITH pgrst_source AS (<mutation>)`, then the representation built by PostgreSQL over the
 * returned rows (select, embeds, embedded filters, order), the affected count and, for
 * headers-only inserts, the first row's primary key.
 */
function writeStatement(ctx: WriteContext, mutation: (returned: string) => string, insert?: { inserted?: string; upsert: boolean }): BuiltStatement {
  const { req, table, params, tree } = ctx;
  const source = (read: readonly string[] | null): string => `${SOURCE} AS (${mutation(returnedSql(ctx, read))})`;
  const total = `(SELECT pg_catalog.count(*) FROM ${SOURCE})`;
  const inserted = insert?.inserted;
  const marks = { ...(insert?.upsert ? { upsert: true as const } : {}), ...(params.bodyIndex === undefined ? {} : { bodyParam: params.bodyIndex }) };
  const written = ctx.returnWritten ? `(SELECT coalesce(json_agg(pgrst_w), '[]')::text FROM ${SOURCE} AS pgrst_w)` : undefined;
  let location: string | undefined;
  const locationKeys = insert && req.preferences.return === 'headers-only' ? table.primaryKey : [];
  if (locationKeys.length > 0) {
    const keys = locationKeys.map((k) => quoteIdent(k)).join(', ');
    location = `(SELECT row_to_json(pgrst_l)::text FROM (SELECT ${keys} FROM ${SOURCE} LIMIT 1) AS pgrst_l)`;
  }
  if (!wantsRepresentation(req)) {
    const ctes = [source(ctx.returnWritten ? null : locationKeys)];
    const text = envelopeSql({ ctes, rows: SOURCE, total, body: null, inserted, location, written });
    return finish(text, params.values, { result: 'rows', readOnly: false, plannedCount: null, countThreshold: null, shape: null, ...marks });
  }
  const alias = tree.alias('t');
  const level = tree.level(table, alias, [], req.select, false);
  tree.validate();
  const from = `${SOURCE} AS ${quoteIdent(alias)}`;
  const rows = selectSql(params, {
    outputs: level.outputs,
    from: [from, ...level.joins].join(' '),
    where: level.where,
    order: level.order,
    range: null,
  });
  const read = ctx.returnWritten ? null : columnsRead(rows.replace(from, ''), alias, table);
  const ctes = [source(read)];
  ctes.push(`${BODY} AS (${rows})`);
  const text = envelopeSql({ ctes, rows: BODY, total, body: bodySql(req.media, BODY), inserted, location, written });
  const shape = { relation: `${table.schema}.${table.name}`, embeds: level.embeds };
  return finish(text, params.values, { result: 'rows', readOnly: false, plannedCount: null, countThreshold: null, shape, ...marks });
}

/** The value of a column missing from a row under `Prefer: missing=default`. */
function defaultSql(ctx: WriteContext, column: ColumnMeta): string {
  if (column.default !== null) return `(${column.default})`;
  if (column.domainDefault !== undefined) return `(${column.domainDefault})`;
  if (column.identity !== null) {
    const seq = `pg_catalog.pg_get_serial_sequence(${ctx.params.typed(qualifiedName(ctx.table.schema, ctx.table.name), 'text')}, ${ctx.params.typed(column.name, 'text')})`;
    return `nextval(${seq})`;
  }
  return 'NULL';
}

/**
 * Upserts count inserted rows as PostgREST does, in a transaction-local setting: one up per row
 * offered, one down per conflicting row updated (`xmax` would tell too, but PostgreSQL does not
 * return system columns of a partitioned table).
 */
const INSERTED_SETTING = `'pgrst.inserted'`;
const countInserted = (delta: '+' | '-'): string =>
  `pg_catalog.set_config(${INSERTED_SETTING}, (coalesce(nullif(pg_catalog.current_setting(${INSERTED_SETTING}, true), '')::int, 0) ${delta} 1)::text, true) IS NOT NULL`;
const insertedCount = `coalesce(nullif(pg_catalog.current_setting(${INSERTED_SETTING}, true), '')::bigint, 0)`;

function conflictSql(ctx: WriteContext, columns: readonly ColumnMeta[], counting: boolean): string {
  const { req, table } = ctx;
  if (req.preferences.resolution === null) return '';
  const target = req.onConflict ?? table.primaryKey;
  if (target.length === 0) return '';
  for (const name of target) if (!table.columns.some((c) => c.name === name)) throw undefinedColumn(table.name, name);
  const targetSql = `(${target.map((c) => quoteIdent(c)).join(', ')})`;
  if (req.preferences.resolution === 'ignore-duplicates' || columns.length === 0) return ` ON CONFLICT ${targetSql} DO NOTHING`;
  const set = columns.map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`).join(', ');
  return ` ON CONFLICT ${targetSql} DO UPDATE SET ${set}${counting ? ` WHERE ${countInserted('-')}` : ''}`;
}

/**
 * POST: one INSERT … SELECT from the JSON body (`json_populate_recordset` with the table's row
 * type, so PostgreSQL converts every value); upsert via ON CONFLICT.
 */
export function buildInsert(req: ApiRequest, meta: ProjectMeta, options: BuildOptions = {}): BuiltStatement {
  const ctx = context(req, meta, 'insert', options);
  const payload = payloadOf(req);
  const { table, params } = ctx;
  const rowType = `NULL::${qualifiedName(table.schema, table.name)}`;
  const target = `${qualifiedName(table.schema, table.name)} AS ${quoteIdent(ctx.alias)}`;
  const body = params.body(payload.json);
  const missingDefault = req.preferences.missing === 'default';
  // Generated and identity-always columns no row gives take their own value when defaults are asked for; one a row
  // gives stays, so PostgreSQL refuses it (428C9), as in PostgREST.
  const absent = payload.absent ?? [];
  const columns = payloadColumns(table, payload.keys)
    .filter((c) => !(missingDefault && (c.generated || c.identity === 'always') && absent.includes(c.name)));
  const list = columns.map((c) => quoteIdent(c.name)).join(', ');

  const merge = req.preferences.resolution === 'merge-duplicates' && table.kind === 'table' && (req.onConflict ?? table.primaryKey).length > 0;
  // Rows without columns meet a conflict with DO NOTHING: every returned row was inserted.
  const counting = merge && columns.length > 0;
  const offered = counting ? ` WHERE ${countInserted('+')}` : '';
  let insert: string;
  if (columns.length === 0) {
    // Rows without columns: every column takes its default, once per element.
    insert = `INSERT INTO ${target} SELECT FROM json_array_elements(${body})`;
  } else if (missingDefault || columns.some(represented)) {
    const values = columns.map((c) => {
      const value = bodyValueSql(params, c, '"pgrst_e"."j"');
      return missingDefault ? `CASE WHEN "pgrst_e"."j" -> ${params.typed(c.name, 'text')} IS NULL THEN ${defaultSql(ctx, c)} ELSE ${value} END` : value;
    });
    insert = `INSERT INTO ${target} (${list}) SELECT ${values.join(', ')} FROM json_array_elements(${body}) AS "pgrst_e"("j")`
      + ` CROSS JOIN LATERAL json_populate_record(${rowType}, ${populatedSql(params, columns, '"pgrst_e"."j"')}) AS "pgrst_r"${offered}`;
  } else {
    insert = `INSERT INTO ${target} (${list}) SELECT ${columns.map((c) => `"pgrst_r".${quoteIdent(c.name)}`).join(', ')}`
      + ` FROM json_populate_recordset(${rowType}, ${body}) AS "pgrst_r"${offered}`;
  }
  const mutation = (returned: string): string => `${insert}${conflictSql(ctx, columns, counting)} RETURNING ${returned}`;
  // Read after the rows are aggregated, so once the INSERT has run to its end.
  const inserted = counting ? insertedCount : merge ? `(SELECT pg_catalog.count(*) FROM ${SOURCE})` : undefined;
  const upsert = req.preferences.resolution !== null && (req.onConflict ?? table.primaryKey).length > 0;
  return writeStatement(ctx, mutation, { inserted, upsert });
}

/** PATCH (and PUT, which the service document defines as PATCH): the body's columns set on the filtered rows. */
export function buildUpdate(req: ApiRequest, meta: ProjectMeta, options: BuildOptions = {}): BuiltStatement {
  const ctx = context(req, meta, 'update', options);
  const payload = payloadOf(req);
  const { table, params } = ctx;
  const columns = payloadColumns(table, payload.keys);
  const qualified = qualifiedName(table.schema, table.name);
  let mutation: (returned: string) => string;
  if (columns.length === 0 || payload.rowCount === 0) {
    // An empty body updates nothing (PostgREST): no rows, no error.
    mutation = (returned) => `SELECT ${returned} FROM ${qualified} AS ${quoteIdent(ctx.alias)} WHERE false`;
  } else {
    const row = `(${params.body(payload.json)})->0`;
    // With `columns=` and missing=default, a listed key absent from the body sets the column's default.
    const missingDefault = req.preferences.missing === 'default' && req.columns !== null;
    const set = columns
      .filter((c) => !(missingDefault && (c.generated || c.identity === 'always')))
      .map((c) => {
        const value = bodyValueSql(params, c, row);
        const expr = missingDefault ? `CASE WHEN ${row} -> ${params.typed(c.name, 'text')} IS NULL THEN ${defaultSql(ctx, c)} ELSE ${value} END` : value;
        return `${quoteIdent(c.name)} = ${expr}`;
      }).join(', ');
    const from = `json_populate_record(NULL::${qualified}, ${populatedSql(params, columns, row)}) AS "pgrst_r"`;
    const where = mutationWhere(ctx);
    mutation = (returned) => `UPDATE ${qualified} AS ${quoteIdent(ctx.alias)} SET ${set} FROM ${from}${where} RETURNING ${returned}`;
  }
  return writeStatement(ctx, mutation);
}

/** DELETE: the filtered rows (every row without a filter, as the service document says). */
export function buildDelete(req: ApiRequest, meta: ProjectMeta, options: BuildOptions = {}): BuiltStatement {
  const ctx = context(req, meta, 'delete', options);
  const qualified = qualifiedName(ctx.table.schema, ctx.table.name);
  const where = mutationWhere(ctx);
  return writeStatement(ctx, (returned) => `DELETE FROM ${qualified} AS ${quoteIdent(ctx.alias)}${where} RETURNING ${returned}`);
}

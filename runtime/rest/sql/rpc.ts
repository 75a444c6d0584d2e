import { pgrstError, type ApiError } from '../errors.js';
import type { FunctionArgMeta, FunctionMeta, ProjectMeta, TableMeta } from '../metadata.js';
import type { ApiRequest, ArgsPayload, MediaType } from '../parse/ast.js';
import { functionHandlers } from '../media-handlers.js';
import { notAcceptable } from '../parse/headers.js';
import { byteaHex } from '../parse/payload.js';
import { bodySql, envelopeSql, SOURCE } from './envelope.js';
import { qualifiedName, quoteIdent } from '../../db/identifiers.js';
import { Params } from './params.js';
import { readStatement, refuseHandlerSelect } from './read.js';
import { capRange, rangeSql, TreeBuilder } from './read-tree.js';
import { closest } from './relations.js';
import { finish, type BuildOptions, type BuiltStatement } from './statement.js';

export interface ResolvedCall {
  readonly fn: FunctionMeta;
  /**
   * The function's one parameter is unnamed: as PostgREST, it takes the whole body (the query
   * arguments as a JSON object on GET), whether it was chosen by the key "" or as the fallback.
   */
  readonly wholeBody: boolean;
}

const CALL = 'pgrst_call';

function isJsonType(type: string): boolean {
  return type === 'json' || type === 'jsonb';
}

function singleUnnamed(fn: FunctionMeta): boolean {
  return fn.args.length === 1 && fn.args[0]?.name === '';
}

/** The fallback for a POST body no overload takes by name: a single unnamed parameter of the body's type. */
function takesWholeBody(fn: FunctionMeta, raw: ArgsPayload['raw']): boolean {
  const type = fn.args[0]?.pgType ?? '';
  return singleUnnamed(fn) && (raw === null ? isJsonType(type) : type === raw);
}

/**
 * Named match as PostgREST: required parameters ⊆ sent keys ⊆ parameter names, where "" names an
 * unnamed parameter. A raw body sends no key, yet never calls a function without parameters.
 */
function matchesNamed(fn: FunctionMeta, keys: readonly string[], rawBody: boolean): boolean {
  if (fn.args.length === 0) return keys.length === 0 && !rawBody;
  const names = new Set(fn.args.map((a) => a.name));
  return keys.every((k) => names.has(k)) && fn.args.every((a) => a.hasDefault || keys.includes(a.name));
}

function signature(fn: FunctionMeta): string {
  return `${fn.schema}.${fn.name}(${fn.args.map((a) => `${a.name} => ${a.pgType}`).join(', ')})`;
}

function notFound(meta: ProjectMeta, schema: string, name: string, payload: ArgsPayload, overloads: readonly FunctionMeta[]) {
  const func = `${schema}.${name}`;
  if (payload.raw !== null) {
    return pgrstError('PGRST202', `Could not find the function ${func} in the schema cache`,
      `Searched for the function ${func} with a single unnamed ${payload.raw} parameter, but no matches were found in the schema cache.`);
  }
  const sorted = [...(payload.keys ?? [])].sort();
  const fromBody = payload.fromBody;
  const inMessage = sorted.length === 0 ? ' without parameters' : `(${sorted.join(', ')})`;
  const inDetails = sorted.length === 0 ? ' without parameters' : ` with parameter${sorted.length > 1 ? 's' : ''} ${sorted.join(', ')}`;
  let hint: string | null = null;
  if (overloads.length === 0) {
    const names = Object.values(meta.functions).flat().filter((f) => f.schema === schema).map((f) => f.name);
    const suggestion = closest(name, names, 0.75);
    if (suggestion !== null) hint = `Perhaps you meant to call the function ${schema}.${suggestion}`;
  } else {
    const lists = overloads.map((f) => `(${f.args.map((a) => a.name).sort().join(', ')})`);
    const suggestion = closest(`(${sorted.join(', ')})`, lists, 0.33);
    if (suggestion !== null) hint = `Perhaps you meant to call the function ${func}${suggestion}`;
  }
  return pgrstError('PGRST202', `Could not find the function ${func}${inMessage} in the schema cache`,
    `Searched for the function ${func}${inDetails}${fromBody ? ' or with a single unnamed json/jsonb parameter' : ''}, but no matches were found in the schema cache.`,
    hint);
}

/** 404 PGRST202 for a function name with no overload at all (e.g. OPTIONS on an unknown function). */
export function functionNotFound(meta: ProjectMeta, schema: string, name: string): ApiError {
  return notFound(meta, schema, name, { kind: 'args', json: '{}', keys: [], fromBody: false, raw: null }, []);
}

/**
 * Overload resolution as PostgREST: by argument names ("" for an unnamed parameter); when no
 * overload fits by name, a POST body goes whole to a single unnamed parameter of its type
 * (json/jsonb for JSON, text, xml or bytea for `text/plain`, `text/xml`, `application/octet-stream`).
 * None → 404 PGRST202; several → 300 PGRST203.
 */
export function resolveFunction(req: ApiRequest, meta: ProjectMeta): ResolvedCall {
  const payload = argsOf(req);
  const overloads = meta.functions[`${req.schema}.${req.target}`] ?? [];
  const keys = payload.keys;
  const named = keys === null ? [] : overloads.filter((fn) => matchesNamed(fn, keys, payload.raw !== null));
  const candidates: ResolvedCall[] = named.length > 0
    ? named.map((fn) => ({ fn, wholeBody: singleUnnamed(fn) }))
    : payload.fromBody ? overloads.filter((fn) => takesWholeBody(fn, payload.raw)).map((fn) => ({ fn, wholeBody: true })) : [];
  if (candidates.length === 1) return candidates[0] as ResolvedCall;
  if (candidates.length === 0) throw notFound(meta, req.schema, req.target, payload, overloads);
  // PostgREST lists them in catalog (creation) order, which the generated metadata does not keep; fewer
  // parameters first, then by their types, is that order for the usual case of overloads added one by one.
  const listed = candidates.map((c) => c.fn).sort((a, b) => a.args.length - b.args.length).map(signature);
  throw pgrstError('PGRST203', `Could not choose the best candidate function between: ${listed.join(', ')}`,
    null, 'Try renaming the parameters or the function itself in the database so function overloading can be resolved');
}

function argsOf(req: ApiRequest): ArgsPayload {
  if (req.payload?.kind !== 'args') return { kind: 'args', json: '{}', keys: [], fromBody: false, raw: null };
  return req.payload;
}

/**
 * PostgREST reads `character` and `bit` arguments as `character varying` and `bit varying`: a parameter's type
 * has no length, so `character` would be `character(1)`; the function's own body (storing into a
 * `character(5)` column) judges the length instead.
 */
const WIDENED: Readonly<Record<string, string>> = { bpchar: 'character varying', character: 'character varying', bit: 'bit varying' };

function argType(arg: FunctionArgMeta): string {
  const array = arg.pgType.endsWith('[]');
  const widened = WIDENED[array ? arg.pgType.slice(0, -2) : arg.pgType];
  if (widened === undefined) return arg.pgType;
  return array ? `${widened}[]` : widened;
}

function arrayType(arg: FunctionArgMeta): string {
  const type = argType(arg);
  return type.endsWith('[]') ? type : `${type}[]`;
}

/**
 * The call expression and the FROM items that feed it. Arguments come from one JSON parameter
 * through `json_to_record` with the parameter types from metadata, so PostgreSQL converts every
 * value (JSON arrays to arrays, strings through the type's input function) and the statement
 * text depends only on which arguments were sent.
 */
function callSql(params: Params, call: ResolvedCall, payload: ArgsPayload): { expr: string; from: string | null } {
  const { fn } = call;
  const name = qualifiedName(fn.schema, fn.name);
  if (call.wholeBody) {
    const type = fn.args[0]?.pgType ?? 'json';
    const json = payload.whole ?? payload.json;
    // A JSON body or query arguments going to a bytea parameter: their UTF-8 bytes.
    const value = type === 'bytea' && payload.raw !== 'bytea' ? byteaHex(json) : json;
    return { expr: `${name}(${params.typed(value, type)})`, from: null };
  }
  const keys = payload.keys ?? [];
  const sent = fn.args.filter((a) => keys.includes(a.name));
  if (sent.length === 0) return { expr: `${name}()`, from: null };
  const columns = sent.map((a) => `${quoteIdent(a.name)} ${a.variadic ? 'json' : argType(a)}`).join(', ');
  const from = `json_to_record(${params.typed(lastOfRepeated(payload, sent), 'json')}) AS "pgrst_args"(${columns})`;
  const args = sent.map((a) => {
    const ref = `"pgrst_args".${quoteIdent(a.name)}`;
    if (!a.variadic) return `${quoteIdent(a.name)} := ${ref}`;
    // One GET value or a JSON array: both become the variadic array.
    const elements = `json_array_elements_text(CASE WHEN json_typeof(${ref}) = 'array' THEN ${ref} ELSE json_build_array(${ref}) END)`;
    return `VARIADIC ${quoteIdent(a.name)} := ARRAY(SELECT ${elements})::${arrayType(a)}`;
  });
  return { expr: `${name}(${args.join(', ')})`, from };
}

/**
 * Query and form arguments: a repeated name is an array, which a variadic parameter takes whole and any
 * other parameter takes the last value of (PostgREST).
 */
function lastOfRepeated(payload: ArgsPayload, sent: readonly FunctionArgMeta[]): string {
  if (payload.fromBody) return payload.json;
  const args = JSON.parse(payload.json) as Record<string, unknown>;
  let changed = false;
  for (const arg of sent) {
    const value = args[arg.name];
    if (!arg.variadic && Array.isArray(value)) {
      // Defined, not assigned: a parameter may be named __proto__.
      Object.defineProperty(args, arg.name, { value: value[value.length - 1], enumerable: true, writable: true, configurable: true });
      changed = true;
    }
  }
  return changed ? JSON.stringify(args) : payload.json;
}

/** A row type without a table (OUT/TABLE parameters, composite types) as read metadata. */
function resultTable(fn: FunctionMeta): TableMeta {
  const none = { select: false, insert: false, update: false, delete: false };
  return {
    schema: fn.schema,
    name: fn.name,
    kind: 'view',
    comment: null,
    columns: fn.returnColumns.map((c) => ({
      name: c.name, pgType: c.pgType, elementType: null, baseType: c.pgType, nullable: true, default: null,
      identity: null, generated: false, enumValues: null, comment: null,
    })),
    primaryKey: [],
    uniqueKeys: [],
    relations: [],
    computedFields: [],
    computedRelations: [],
    updatable: none,
    grants: { anon: none, authenticated: none, service_role: none },
    rls: { enabled: false, forced: false, policies: [] },
  };
}

function scalarBody(set: boolean): string {
  const agg = `json_agg(_postgrest_t."pgrst_scalar")`;
  return set ? `coalesce(${agg}, '[]')::text` : `coalesce((${agg}->0)::text, 'null')`;
}

/**
 * POST/GET/HEAD `/rpc/<fn>`. Table-like results (SETOF table, RETURNS TABLE, composites) get
 * select, filters, order, limit and counts like a table read; scalars and void are one value.
 */
export function buildRpc(req: ApiRequest, meta: ProjectMeta, options: BuildOptions = {}): BuiltStatement {
  const call = resolveFunction(req, meta);
  const { fn } = call;
  // As PostgREST (Plan.hs): only a set's rows can be counted against max-affected, so a function returning one value refuses it.
  if (!fn.returnsSet && req.preferences.maxAffected !== null && req.preferences.handling === 'strict') {
    throw pgrstError('PGRST128', 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict');
  }
  if (req.media.kind === 'handler' && !functionHandlers(meta, fn).includes(req.media.handler)) throw notAcceptable([req.media.handler.mediaType]);
  const params = new Params();
  const { expr, from } = callSql(params, call, argsOf(req));
  // As PostgREST: GET and HEAD run any function, VOLATILE ones too (most functions are, by default),
  // read-only, so one that writes fails with 25006 (405); POST writes only for VOLATILE ones.
  const readOnly = req.method !== 'POST' || fn.volatility !== 'volatile';
  const head = req.method === 'HEAD';

  if (fn.returnKind === 'composite') {
    const named = fn.returnRelation ? meta.tables[`${fn.returnRelation.schema}.${fn.returnRelation.name}`] : undefined;
    const table = named ?? resultTable(fn);
    // A function's own row type (RETURNS TABLE, a record) is no relation, whatever it is named.
    const relation = named ? `${named.schema}.${named.name}` : null;
    const source = from === null ? `${expr} AS "pgrst_f"` : `${from} CROSS JOIN LATERAL ${expr} AS "pgrst_f"`;
    refuseHandlerSelect(req);
    const tree = new TreeBuilder(meta, params, req, options.maxRows ?? null, options.aggregates ?? false);
    const alias = tree.alias('t');
    const root = tree.level(table, alias, [], req.select);
    tree.validate();
    const media: MediaType = !fn.returnsSet && req.media.kind === 'json' ? { kind: 'object', stripNulls: req.media.stripNulls } : req.media;
    return readStatement(params, root, {
      ctes: [`${CALL} AS (SELECT "pgrst_f".* FROM ${source})`],
      from: `${CALL} AS ${quoteIdent(alias)}`,
      rowType: named ?? null,
    }, { ...req, media }, options, fn.returnsSet ? 'rows' : 'composite', relation, readOnly);
  }

  const fromClause = from === null ? '' : ` FROM ${from}`;
  // MATERIALIZED: the call runs even when nothing reads its value (void, HEAD).
  if (fn.returnKind === 'void') {
    const text = envelopeSql({ ctes: [`${SOURCE} AS MATERIALIZED (SELECT ${expr}${fromClause})`], rows: SOURCE, total: 'NULL::bigint', body: null });
    return finish(text, params.values, { result: 'void', readOnly, plannedCount: null, countThreshold: null, shape: null });
  }
  let ctes: string[];
  let total: string;
  if (fn.returnsSet) {
    const setFrom = from === null ? `${expr} AS "pgrst_f"("pgrst_scalar")` : `${from} CROSS JOIN LATERAL ${expr} AS "pgrst_f"("pgrst_scalar")`;
    // SETOF record cannot be read in FROM without a column definition list; in the select list
    // each row is one record value.
    const rows = fn.returnType === 'record'
      ? `SELECT ${expr} AS "pgrst_scalar"${fromClause}`
      : `SELECT "pgrst_f"."pgrst_scalar" FROM ${setFrom}`;
    ctes = [
      `${CALL} AS MATERIALIZED (${rows})`,
      `${SOURCE} AS (SELECT "pgrst_scalar" FROM ${CALL}${rangeSql(params, capRange(req.range, options.maxRows ?? null))})`,
    ];
    total = req.count === null ? 'NULL::bigint' : `(SELECT pg_catalog.count(*) FROM ${CALL})`;
  } else {
    ctes = [`${SOURCE} AS MATERIALIZED (SELECT ${expr} AS "pgrst_scalar"${fromClause})`];
    total = req.count === null ? 'NULL::bigint' : 'pg_catalog.count(*)';
  }
  const body = head ? null
    : req.media.kind === 'handler' || (req.media.kind === 'csv' && fn.returnsSet) ? bodySql(req.media, SOURCE) : scalarBody(fn.returnsSet);
  const text = envelopeSql({ ctes, rows: SOURCE, total, body });
  return finish(text, params.values, { result: 'scalar', readOnly, plannedCount: null, countThreshold: null, shape: null });
}

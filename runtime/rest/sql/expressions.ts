import { pgrstError, undefinedColumn } from '../errors.js';
import type { ColumnMeta, ComputedFieldMeta, TableMeta } from '../metadata.js';
import type { Condition, Field, FilterCondition, Operation, OrderTerm } from '../parse/ast.js';
import { columnRef, qualifiedName, quoteIdent } from '../../db/identifiers.js';
import { arrayLiteral, type Params } from './params.js';

/** What a filter or order at one level of the embed tree can refer to. */
export interface Scope {
  readonly table: TableMeta;
  /** SQL alias of the level's table. */
  readonly alias: string;
  /** Embeds of the level by output key: for `rel=is.null` filters and `rel(col)` orders. */
  readonly embeds: ReadonlyMap<string, ScopeEmbed>;
}

export interface ScopeEmbed {
  readonly toOne: boolean;
  /** SQL alias of the lateral subquery. */
  readonly lateral: string;
  /** SQL that is true when the embed found rows. */
  readonly exists: string;
  /** Output keys the lateral exposes (to-one embeds only can be ordered by). */
  readonly keys: readonly string[];
}

/** A column, else a computed field of that name (a column shadows a function, as in PostgreSQL). */
export function findColumn(table: TableMeta, name: string): ColumnMeta | ComputedFieldMeta {
  const column = table.columns.find((c) => c.name === name) ?? table.computedFields.find((c) => c.name === name);
  if (!column) throw undefinedColumn(table.name, name);
  return column;
}

/** `f(row)` with the row cast to its relation's type, so a CTE's row (RPC results, writes) calls the same function. */
export function rowCallSql(fn: { readonly schema: string; readonly name: string }, alias: string, table: TableMeta): string {
  return `${qualifiedName(fn.schema, fn.name)}(${quoteIdent(alias)}::${qualifiedName(table.schema, table.name)})`;
}

function columnSql(scope: Scope, column: ColumnMeta | ComputedFieldMeta): string {
  return 'function' in column ? rowCallSql(column.function, scope.alias, scope.table) : columnRef(scope.alias, column.name);
}

/** How the JSON path is applied: select keeps `json` as is; filters and orders need `jsonb` (json has no operators). */
type Purpose = 'select' | 'compare';

function jsonBase(ref: string, column: ColumnMeta, purpose: Purpose): string {
  if (column.baseType === 'jsonb') return ref;
  if (column.baseType === 'json') return purpose === 'select' ? ref : `${ref}::jsonb`;
  return `to_jsonb(${ref})`;
}

export function jsonPathSql(params: Params, base: string, field: Field): string {
  let sql = base;
  for (const step of field.jsonPath) {
    // A key is an unknown-typed value, as PostgREST's literal: the operator chooses `-> text`, and one that takes
    // none (`->>` then `->` on the text) fails as PostgREST's, `operator does not exist: text -> unknown`.
    sql += `${step.arrow}${step.index ? params.typed(step.key, 'integer') : params.add(step.key)}`;
  }
  return sql;
}

/** `"t0"."col"` or `"t0"."col"->$1::text->>$2::text`. */
export function fieldSql(params: Params, scope: Scope, field: Field, purpose: Purpose): string {
  const column = findColumn(scope.table, field.name);
  const ref = columnSql(scope, column);
  if (field.jsonPath.length === 0) return ref;
  return jsonPathSql(params, jsonBase(ref, column, purpose), field);
}

/** A column's output value: through its domain's cast to `json` when there is one (PostgREST's domain representations). */
export function representedSql(column: ColumnMeta, ref: string): string {
  const toJson = column.representation?.toJson;
  return toJson === undefined ? ref : `${qualifiedName(toJson.schema, toJson.name)}(${ref})`;
}

/** A selected field: a whole column goes through its domain's representation, a JSON path reads the stored value. */
export function selectFieldSql(params: Params, scope: Scope, field: Field): string {
  const sql = fieldSql(params, scope, field, 'select');
  return field.jsonPath.length === 0 ? representedSql(findColumn(scope.table, field.name), sql) : sql;
}

/** The output key of a selected field: the alias, else the last JSON key, else the column name. */
export function fieldKey(field: Field, alias: string | null): string {
  if (alias !== null) return alias;
  for (let i = field.jsonPath.length - 1; i >= 0; i -= 1) {
    const step = field.jsonPath[i];
    if (step && !step.index) return step.key;
  }
  return field.name;
}

const SIMPLE_SQL: Readonly<Record<string, string>> = {
  neq: '<>', cs: '@>', cd: '<@', ov: '&&', sl: '<<', sr: '>>', nxr: '&<', nxl: '&>', adj: '-|-',
};
const QUANT_SQL: Readonly<Record<string, string>> = {
  eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=', like: 'LIKE', ilike: 'ILIKE', match: '~', imatch: '~*',
};
const FTS_SQL: Readonly<Record<string, string>> = {
  fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery',
};
const IS_SQL: Readonly<Record<string, string>> = {
  null: 'NULL', not_null: 'NOT NULL', true: 'TRUE', false: 'FALSE', unknown: 'UNKNOWN',
};

/** `*` stands for `%` in like/ilike patterns (there is no escape for a literal `*`). */
function starToPercent(value: string): string {
  return value.replace(/\*/g, '%');
}

/** A function of a domain's cast from `text`, applied to filter values. */
type TextCast = { readonly schema: string; readonly name: string } | undefined;

function castValue(fromText: TextCast, param: string): string {
  return fromText === undefined ? param : `${qualifiedName(fromText.schema, fromText.name)}(${param}::text)`;
}

/** Each element of a `text[]` through the domain's cast from text (`in`, and `eq(any)`-style quantifiers). */
function castList(fromText: NonNullable<TextCast>, textArray: string): string {
  return `ARRAY(SELECT ${castValue(fromText, '"pgrst_v"')} FROM pg_catalog.unnest(${textArray}) AS "pgrst_v")`;
}

function operationSql(params: Params, lhs: string, operation: Operation, isTsvector: boolean, fromText: TextCast): string {
  switch (operation.kind) {
    case 'simple':
      return `${lhs} ${SIMPLE_SQL[operation.op]} ${castValue(fromText, params.add(operation.value))}`;
    case 'quant': {
      // A like/ilike pattern is not a value of the domain: it meets the stored value as it is, as in PostgREST.
      const pattern = operation.op === 'like' || operation.op === 'ilike';
      const value = pattern ? starToPercent(operation.value) : operation.value;
      const cast = pattern ? undefined : fromText;
      if (operation.quantifier === null) return `${lhs} ${QUANT_SQL[operation.op]} ${castValue(cast, params.add(value))}`;
      const list = cast === undefined ? params.add(value) : castList(cast, params.typed(value, 'text[]'));
      return `${lhs} ${QUANT_SQL[operation.op]} ${operation.quantifier.toUpperCase()}(${list})`;
    }
    // `= ANY($n)` keeps one statement text for any list length (and `in.()` matches nothing).
    case 'in':
      if (fromText !== undefined) return `${lhs} = ANY(${castList(fromText, params.typed(arrayLiteral(operation.values), 'text[]'))})`;
      return `${lhs} = ANY(${params.add(arrayLiteral(operation.values))})`;
    case 'is':
      return `${lhs} IS ${IS_SQL[operation.value]}`;
    case 'isdistinct':
      return `${lhs} IS DISTINCT FROM ${castValue(fromText, params.add(operation.value))}`;
    case 'fts': {
      const lang = operation.language === null ? null : params.typed(operation.language, 'regconfig');
      const vector = isTsvector ? lhs : `to_tsvector(${lang === null ? '' : `${lang}, `}${lhs})`;
      return `${vector} @@ ${FTS_SQL[operation.op]}(${lang === null ? '' : `${lang}, `}${params.add(operation.value)})`;
    }
  }
}

function embedFilterSql(scope: Scope, filter: FilterCondition): string | null {
  if (filter.field.jsonPath.length > 0) return null;
  const embed = scope.embeds.get(filter.field.name);
  if (!embed || scope.table.columns.some((c) => c.name === filter.field.name)) return null;
  const op = filter.expr.operation;
  if (op.kind !== 'is' || (op.value !== 'null' && op.value !== 'not_null')) {
    throw pgrstError('PGRST120', `Bad operator on the '${filter.field.name}' embedded resource`,
      'Only is null or not is null filters are allowed on embedded resources');
  }
  const wantsRows = (op.value === 'not_null') !== filter.expr.negated;
  return wantsRows ? embed.exists : `NOT (${embed.exists})`;
}

function filterSql(params: Params, scope: Scope, filter: FilterCondition): string {
  const onEmbed = embedFilterSql(scope, filter);
  if (onEmbed !== null) return onEmbed;
  const column = findColumn(scope.table, filter.field.name);
  const lhs = fieldSql(params, scope, filter.field, 'compare');
  const isTsvector = filter.field.jsonPath.length === 0 && column.baseType === 'tsvector';
  const fromText = filter.field.jsonPath.length === 0 ? column.representation?.fromText : undefined;
  const sql = operationSql(params, lhs, filter.expr.operation, isTsvector, fromText);
  return filter.expr.negated ? `NOT (${sql})` : sql;
}

export function conditionSql(params: Params, scope: Scope, condition: Condition): string {
  if (condition.type === 'filter') return filterSql(params, scope, condition);
  const parts = condition.children.map((child) => conditionSql(params, scope, child));
  const joined = `(${parts.join(condition.op === 'and' ? ' AND ' : ' OR ')})`;
  return condition.negated ? `NOT ${joined}` : joined;
}

export function orderSql(params: Params, scope: Scope, term: OrderTerm): string {
  let expr: string;
  if (term.relation === null) {
    expr = fieldSql(params, scope, term.field, 'compare');
  } else {
    const embed = scope.embeds.get(term.relation);
    if (!embed) {
      throw pgrstError('PGRST108', `'${term.relation}' is not an embedded resource in this request`, null,
        `Verify that '${term.relation}' is included in the 'select' query parameter.`);
    }
    if (!embed.toOne) {
      throw pgrstError('PGRST118', `A related order on '${term.relation}' is not possible`,
        `'${scope.table.name}' and '${term.relation}' do not form a many-to-one or one-to-one relationship`);
    }
    if (!embed.keys.includes(term.field.name)) throw undefinedColumn(term.relation, term.field.name);
    const ref = `${quoteIdent(embed.lateral)}.${quoteIdent(term.field.name)}`;
    expr = term.field.jsonPath.length === 0 ? ref : jsonPathSql(params, `to_jsonb(${ref})`, term.field);
  }
  const dir = term.direction === null ? '' : ` ${term.direction.toUpperCase()}`;
  const nulls = term.nulls === null ? '' : ` NULLS ${term.nulls.toUpperCase()}`;
  return `${expr}${dir}${nulls}`;
}

import { duplicateAlias, pgrstError } from '../errors.js';
import type { ProjectMeta, TableMeta } from '../metadata.js';
import type { Aggregate, ApiRequest, ColumnSelect, Condition, EmbedSelect, OrderTerm, Range, SelectItem } from '../parse/ast.js';
import { validateOutputName } from '../parse/names.js';
import { conditionSql, fieldKey, fieldSql, orderSql, representedSql, rowCallSql, selectFieldSql, type Scope, type ScopeEmbed } from './expressions.js';
import { columnRef, qualifiedName, quoteIdent } from '../../db/identifiers.js';
import type { Params } from './params.js';
import { findRelation, type EmbedSource } from './relations.js';

export interface Output {
  readonly key: string;
  /** The value; for an aggregate, the argument of its function (`*` for `count()`). */
  readonly sql: string;
  readonly aggregate?: Aggregate;
  /** A json value (embeds): grouped as jsonb, since json has no equality operator. */
  readonly json?: boolean;
}

function usesAggregates(items: readonly SelectItem[]): boolean {
  return items.some((item) => (item.type === 'column' && item.aggregate !== undefined) || (item.type === 'embed' && usesAggregates(item.select)));
}

/**
 * An output of a to-one spread as its own level selects it: aggregates are hoisted to the
 * level the spread is part of (PostgREST's rule), so here the argument goes out bare.
 */
function hoistable(output: Output): Output {
  if (output.aggregate === undefined) return output;
  // `count()` counts the spread's rows: a value that is NULL exactly when the lateral found none.
  return { key: output.key, sql: output.sql === '*' ? 'TRUE' : output.sql };
}

/**
 * An embed as it appears in the response body: under `key` of each row of its level (an object
 * or null when `toOne`, else an array), or merged into the row (`spread`). What an extension's
 * `afterRead` hooks need to find the embedded rows of their table.
 */
export interface EmbedShape {
  readonly key: string;
  /** The embedded relation, `schema.name`. */
  readonly relation: string;
  readonly toOne: boolean;
  readonly spread: boolean;
  readonly embeds: readonly EmbedShape[];
}

/** One level of the read tree, ready to be rendered as a SELECT over its table. */
export interface Level {
  readonly scope: Scope;
  readonly outputs: readonly Output[];
  /** LATERAL joins of the embeds, in select order. */
  readonly joins: readonly string[];
  /** Joins that change which rows this level has (`!inner`, or used by `rel=is.null` filters). */
  readonly rowJoins: readonly string[];
  readonly where: readonly string[];
  readonly order: readonly string[];
  /** The embeds of this level whose rows the body shows, in select order. */
  readonly embeds: readonly EmbedShape[];
}

type ScopedRequest = Pick<ApiRequest, 'conditions' | 'orders' | 'embedRanges' | 'media'>;

/** State of one tree build: bind parameters, alias numbering and the scoped parameters by path. */
export class TreeBuilder {
  private aliasCount = 0;
  private readonly conditions = new Map<string, Condition[]>();
  private readonly orders = new Map<string, readonly OrderTerm[]>();
  private readonly ranges = new Map<string, Range>();
  private readonly built = new Set<string>();
  /** `path+name` of an aliased embed → its alias, to explain PGRST108 when the name is used. */
  private readonly aliasedNames = new Map<string, string>();
  /** PostgREST's join alias of the first embed whose name repeats at its level. */
  private repeatedEmbed: string | null = null;

  constructor(
    readonly meta: ProjectMeta,
    readonly params: Params,
    readonly request: ScopedRequest,
    /** db-max-rows: caps every to-many embed (the root is capped by the caller). */
    readonly maxRows: number | null = null,
    /** PostgREST's db-aggregates-enabled: off, any `col.sum()` or `count()` is a 400 PGRST123. */
    readonly aggregates = false,
  ) {
    for (const c of request.conditions) {
      const key = JSON.stringify(c.path);
      const list = this.conditions.get(key) ?? [];
      list.push(c.value);
      this.conditions.set(key, list);
    }
    for (const o of request.orders) this.orders.set(JSON.stringify(o.path), o.value);
    for (const r of request.embedRanges) this.ranges.set(JSON.stringify(r.path), r.value);
  }

  alias(prefix: string): string {
    const name = `${prefix}${this.aliasCount}`;
    this.aliasCount += 1;
    return name;
  }

  /**
   * A level over `table` (aliased `alias`). Root conditions are left out with `rootConditions: false`
   * (writes apply them to the mutation itself).
   */
  level(table: TableMeta, alias: string, path: readonly string[], items: readonly SelectItem[], rootConditions = true): Level {
    const pathKey = JSON.stringify(path);
    if (path.length === 0 && !this.aggregates && usesAggregates(items)) {
      throw pgrstError('PGRST123', 'Use of aggregate functions is not allowed');
    }
    if (path.length === 0) this.resolveEmbeds(table, items);
    this.built.add(pathKey);
    const embeds = new Map<string, ScopeEmbed>();
    const scope: Scope = { table, alias, embeds };
    const outputs: Output[] = [];
    const joins: string[] = [];
    const joinByLateral = new Map<string, { sql: string; inner: boolean }>();
    const embedNames = new Set<string>();
    const shapes: EmbedShape[] = [];

    for (const item of items) {
      if (item.type === 'star') {
        for (const column of table.columns) outputs.push({ key: column.name, sql: representedSql(column, columnRef(alias, column.name)) });
      } else if (item.type === 'column') {
        outputs.push(this.column(scope, item));
      } else {
        const embed = this.embed(scope, path, item);
        // PostgREST names an embed's join `<table>_<alias or name>_<depth>`, so a repeated name is a duplicate alias.
        const name = item.alias ?? item.name;
        if (embedNames.has(name)) this.repeatedEmbed ??= `${table.name}_${name}_${path.length + 1}`;
        embedNames.add(name);
        embeds.set(embed.key, embed.scopeEmbed);
        outputs.push(...embed.outputs);
        joins.push(embed.join);
        joinByLateral.set(embed.scopeEmbed.lateral, { sql: embed.join, inner: embed.inner });
        if (embed.outputs.length > 0) shapes.push(embed.shape);
      }
    }

    const conditions = path.length === 0 && !rootConditions ? [] : this.conditions.get(pathKey) ?? [];
    const where = conditions.map((c) => conditionSql(this.params, scope, c));
    const order = (this.orders.get(pathKey) ?? []).map((t) => orderSql(this.params, scope, t));
    // A lateral changes which rows this level has when it is !inner or a filter reads it.
    const rowJoins = [...joinByLateral.entries()]
      .filter(([lateral, j]) => j.inner || where.some((w) => w.includes(quoteIdent(lateral))))
      .map(([, j]) => j.sql);
    return { scope, outputs, joins, rowJoins, where, order, embeds: shapes };
  }

  /**
   * Every embed's relationship, before any column is looked up: PostgREST finds the relationships when it plans
   * the request and leaves columns to PostgreSQL, so a missing relationship (PGRST200) is the error a request
   * with both gets.
   */
  private resolveEmbeds(table: TableMeta, items: readonly SelectItem[]): void {
    for (const item of items) {
      if (item.type === 'embed') this.resolveEmbeds(findRelation(this.meta, table, item.name, item.hint).target, item.select);
    }
  }

  private column(scope: Scope, item: ColumnSelect): Output {
    const { aggregate } = item;
    const key = aggregate === undefined ? fieldKey(item.field, item.alias) : item.alias ?? aggregate.fn;
    validateOutputName(key, 'select parameter', key);
    if (aggregate?.fn === 'count' && item.field.name === '*') return { key, sql: '*', aggregate };
    // An aggregate reads the stored value; an explicit cast applies to the representation, as PostgREST's.
    const represented = aggregate === undefined;
    const sql = isLegacyCount(scope, item) ? 'pg_catalog.count(*)'
      : represented ? selectFieldSql(this.params, scope, item.field) : fieldSql(this.params, scope, item.field, 'select');
    const value = item.cast === null ? sql : `CAST(${sql} AS ${item.cast})`;
    return aggregate === undefined ? { key, sql: value } : { key, sql: value, aggregate };
  }

  private embed(parent: Scope, path: readonly string[], item: EmbedSelect): {
    key: string; outputs: Output[]; join: string; inner: boolean; scopeEmbed: ScopeEmbed; shape: EmbedShape;
  } {
    const { source, target, toOne } = findRelation(this.meta, parent.table, item.name, item.hint);
    const key = item.alias ?? item.name;
    if (item.alias !== null) this.aliasedNames.set(JSON.stringify([...path, item.name]), item.alias);
    const childPath = [...path, key];
    const childAlias = this.alias('t');
    const child = this.level(target, childAlias, childPath, item.select);
    const { from, joinConds } = this.embedFrom(source, target, childAlias, parent);
    const hoisting = item.spread && toOne;
    if (item.spread && !toOne && child.outputs.some((o) => o.aggregate !== undefined)) {
      throw pgrstError('PGRST127', 'Feature not implemented', 'Aggregates are not implemented for one-to-many or many-to-many spreads.');
    }
    const inner = selectSql(this.params, {
      outputs: hoisting ? child.outputs.map(hoistable) : child.outputs,
      from: [from, ...child.joins].join(' '),
      where: [...joinConds, ...child.where],
      order: child.order,
      range: toOne ? this.ranges.get(JSON.stringify(childPath)) ?? null : capRange(this.ranges.get(JSON.stringify(childPath)) ?? null, this.maxRows),
    });

    const lateral = this.alias('j');
    const lat = quoteIdent(lateral);
    const isInner = item.joinType === 'inner';
    const keys = child.outputs.map((o) => o.key);
    let body: string;
    let exists: string;
    let outputs: Output[];
    if (toOne) {
      body = inner;
      exists = `${lat} IS DISTINCT FROM NULL`;
      outputs = item.spread
        ? child.outputs.map((o) => ({ ...o, sql: `${lat}.${quoteIdent(o.key)}` }))
        : keys.length === 0 ? [] : [{ key, sql: this.toOneSql(lat), json: true }];
    } else {
      const agg = quoteIdent(this.alias('a'));
      if (item.spread && keys.length > 0) {
        body = `SELECT ${keys.map((k) => `json_agg(${agg}.${quoteIdent(k)}) AS ${quoteIdent(k)}`).join(', ')} FROM (${inner}) AS ${agg}`;
        exists = `${lat}.${quoteIdent(keys[0] ?? '')} IS NOT NULL`;
        outputs = keys.map((k) => ({ key: k, sql: `coalesce(${lat}.${quoteIdent(k)}, '[]')`, json: true }));
      } else {
        body = `SELECT json_agg(${agg}) AS "body" FROM (${inner}) AS ${agg}`;
        exists = `${lat}."body" IS NOT NULL`;
        outputs = item.spread || keys.length === 0 ? [] : [{ key, sql: `coalesce(${lat}."body", '[]')`, json: true }];
      }
    }
    const on = isInner && !toOne ? exists : 'TRUE';
    const join = `${isInner ? 'INNER' : 'LEFT'} JOIN LATERAL (${body}) AS ${lat} ON ${on}`;
    const shape = { key, relation: `${target.schema}.${target.name}`, toOne, spread: item.spread, embeds: child.embeds };
    return { key, outputs, join, inner: isInner, scopeEmbed: { toOne, lateral, exists, keys }, shape };
  }

  /**
   * A to-one embed's object. A media type handler sees it as PostgREST gives it, `jsonb` (an `anyelement`
   * aggregate printing the row shows `{"id": 1}`); the JSON body keeps the cheaper `json`.
   */
  private toOneSql(lateral: string): string {
    return this.request.media.kind === 'handler' ? `row_to_json(${lateral}.*)::jsonb` : `row_to_json(${lateral}.*)`;
  }

  /** The embed's FROM item and the conditions tying its rows to the parent row. */
  private embedFrom(source: EmbedSource, target: TableMeta, childAlias: string, parent: Scope): { from: string; joinConds: string[] } {
    if (source.kind === 'computed') {
      return { from: `${rowCallSql(source.computed.function, parent.alias, parent.table)} AS ${quoteIdent(childAlias)}`, joinConds: [] };
    }
    const { relation } = source;
    let from = `${qualifiedName(target.schema, target.name)} AS ${quoteIdent(childAlias)}`;
    const joinConds: string[] = [];
    if (relation.junction) {
      const j = relation.junction;
      const jAlias = this.alias('t');
      const on = j.target.from.map((c, i) => `${columnRef(jAlias, c)} = ${columnRef(childAlias, j.target.to[i] ?? '')}`);
      from += ` INNER JOIN ${qualifiedName(j.schema, j.name)} AS ${quoteIdent(jAlias)} ON ${on.join(' AND ')}`;
      joinConds.push(...j.source.to.map((c, i) => `${columnRef(jAlias, c)} = ${columnRef(parent.alias, j.source.from[i] ?? '')}`));
    } else if (relation.join) {
      const join = relation.join;
      joinConds.push(...join.to.map((c, i) => `${columnRef(childAlias, c)} = ${columnRef(parent.alias, join.from[i] ?? '')}`));
    }
    return { from, joinConds };
  }

  /**
   * After the whole tree is built: PGRST108 for filters, orders or limits on embeds that are not in
   * the select, then 42712 for an embed name used twice at one level (PostgreSQL refuses PostgREST's
   * query for it, so it comes after every error PostgREST finds while planning).
   */
  validate(): void {
    this.checkScopedPaths();
    if (this.repeatedEmbed !== null) throw duplicateAlias(this.repeatedEmbed);
  }

  private checkScopedPaths(): void {
    const paths = [
      ...this.request.conditions.map((c) => c.path),
      ...this.request.orders.map((o) => o.path),
      ...this.request.embedRanges.map((r) => r.path),
    ];
    for (const path of paths) {
      for (let i = 1; i <= path.length; i += 1) {
        const prefix = path.slice(0, i);
        if (this.built.has(JSON.stringify(prefix))) continue;
        const name = prefix[prefix.length - 1] ?? '';
        const alias = this.aliasedNames.get(JSON.stringify(prefix));
        if (alias !== undefined) {
          throw pgrstError('PGRST108', `'${name}' is not an embedded resource in this request`,
            'Target names are not allowed in filters if they have an alias', `Change '${name}' to '${alias}' in filters, orders or limits.`);
        }
        throw pgrstError('PGRST108', `'${name}' is not an embedded resource in this request`, null,
          `Verify that '${name}' is included in the 'select' query parameter.`);
      }
    }
  }
}

export interface SelectParts {
  readonly outputs: readonly Output[];
  /** FROM clause content, joins included. */
  readonly from: string;
  readonly where: readonly string[];
  readonly order: readonly string[];
  readonly range: Range | null;
}

/** The range with its limit lowered to `maxRows` (PostgREST's db-max-rows). */
export function capRange(range: Range | null, maxRows: number | null): Range | null {
  if (maxRows === null) return range;
  const r = range ?? { offset: 0, limit: null };
  return { offset: r.offset, limit: r.limit === null ? maxRows : Math.min(r.limit, maxRows) };
}

/** `LIMIT $a OFFSET $b` whenever there is a limit, so pages of one query share one statement text. */
export function rangeSql(params: Params, range: Range | null): string {
  if (range === null) return '';
  if (range.limit !== null) return ` LIMIT ${params.add(range.limit)} OFFSET ${params.add(range.offset)}`;
  return range.offset > 0 ? ` OFFSET ${params.add(range.offset)}` : '';
}

/** `count` selected bare where the table has no such column: PostgreSQL reads `t.count` as `count(t)` (PostgREST's legacy count). */
function isLegacyCount(scope: Scope, item: ColumnSelect): boolean {
  return item.aggregate === undefined && item.field.name === 'count' && item.field.jsonPath.length === 0
    && !scope.table.columns.some((c) => c.name === 'count');
}

function outputSql(output: Output, grouped: boolean): string {
  const { aggregate } = output;
  if (aggregate !== undefined) {
    const call = `pg_catalog.${aggregate.fn}(${output.sql})`;
    return aggregate.cast === null ? call : `CAST(${call} AS ${aggregate.cast})`;
  }
  return grouped && output.json ? `(${output.sql})::jsonb` : output.sql;
}

/**
 * With an aggregate in the list, every other output is a grouping key (PostgREST's automatic
 * GROUP BY), named by position so that any expression, embeds included, groups as selected.
 */
function groupSql(outputs: readonly Output[]): string {
  if (!outputs.some((o) => o.aggregate !== undefined)) return '';
  const keys = outputs.flatMap((o, i) => (o.aggregate === undefined ? [String(i + 1)] : []));
  return keys.length === 0 ? '' : ` GROUP BY ${keys.join(', ')}`;
}

export function selectSql(params: Params, parts: SelectParts): string {
  const grouped = parts.outputs.some((o) => o.aggregate !== undefined);
  const list = parts.outputs.map((o) => `${outputSql(o, grouped)} AS ${quoteIdent(o.key)}`).join(', ');
  let sql = `SELECT ${list} FROM ${parts.from}`;
  if (parts.where.length > 0) sql += ` WHERE ${parts.where.join(' AND ')}`;
  sql += groupSql(parts.outputs);
  if (parts.order.length > 0) sql += ` ORDER BY ${parts.order.join(', ')}`;
  return sql + rangeSql(params, parts.range);
}

import type { ProjectMeta } from '../metadata.js';
import type { ApiRequest } from '../parse/ast.js';
import { notAcceptable } from '../parse/headers.js';
import { bodySql, envelopeSql, SOURCE } from './envelope.js';
import { qualifiedName, quoteIdent } from '../../db/identifiers.js';
import { Params } from './params.js';
import { capRange, selectSql, TreeBuilder, type Level } from './read-tree.js';
import {
  DEFAULT_ESTIMATE_THRESHOLD, finish, findTable, type BuildOptions, type BuiltStatement, type ResultKind,
} from './statement.js';

type ReadRequest = Pick<ApiRequest, 'method' | 'range' | 'count' | 'media'>;

export interface ReadSource {
  /** CTEs the FROM depends on (RPC calls), `name AS (...)`. */
  readonly ctes: readonly string[];
  /** FROM item with its alias, e.g. `"public"."todos" AS "t0"`. */
  readonly from: string;
  /** The relation the rows are of, for a media type handler aggregate that takes them; null for a function's own row type. */
  readonly rowType?: { readonly schema: string; readonly name: string } | null;
}

/**
 * The statement of a read over `root` (a level built on `source.from`, rows of `relation`): the
 * page in CTE `pgrst_source`, the body aggregated by PostgreSQL, the count in the same statement.
 */
export function readStatement(
  params: Params, root: Level, source: ReadSource, req: ReadRequest, options: BuildOptions,
  result: ResultKind, relation: string | null, readOnly = true,
): BuiltStatement {
  const unpaged = { outputs: root.outputs, from: [source.from, ...root.joins].join(' '), where: root.where, order: root.order };
  const withPrefix = source.ctes.length > 0 ? `WITH ${source.ctes.join(', ')} ` : '';
  // Rendered before LIMIT/OFFSET get their parameters, so its values are a prefix of the statement's.
  const plannedCount = req.count === 'planned' || req.count === 'estimated'
    ? { text: `EXPLAIN (FORMAT JSON) ${withPrefix}${selectSql(params, { ...unpaged, range: null })}`, values: [...params.values] }
    : null;
  const page = selectSql(params, { ...unpaged, range: capRange(req.range, options.maxRows ?? null) });

  const countFrom = [source.from, ...root.rowJoins].join(' ');
  const countWhere = root.where.length > 0 ? ` WHERE ${root.where.join(' AND ')}` : '';
  const threshold = options.estimatedCountThreshold ?? options.maxRows ?? DEFAULT_ESTIMATE_THRESHOLD;
  let total = 'NULL::bigint';
  if (req.count === 'exact') {
    total = `(SELECT pg_catalog.count(*) FROM ${countFrom}${countWhere})`;
  } else if (req.count === 'estimated') {
    total = `(SELECT pg_catalog.count(*) FROM (SELECT 1 FROM ${countFrom}${countWhere} LIMIT ${params.add(threshold + 1)}) AS ${quoteIdent('pgrst_capped')})`;
  }
  const text = envelopeSql({
    ctes: [...source.ctes, `${SOURCE} AS (${page})`],
    rows: SOURCE,
    total,
    body: req.method === 'HEAD' ? null : bodySql(req.media, SOURCE, source.rowType ?? null),
  });
  return finish(text, params.values, {
    result, readOnly, plannedCount, countThreshold: req.count === 'estimated' ? threshold : null, shape: { relation, embeds: root.embeds },
  });
}

/**
 * An aggregate over a relation's rows takes them whole: with `select=` (even naming every column in order) the
 * rows are not the relation's, so 406 as PostgREST.
 */
export function refuseHandlerSelect(req: Pick<ApiRequest, 'media' | 'select'>): void {
  if (req.media.kind !== 'handler' || req.media.handler.aggregate?.anyElement !== false) return;
  if (req.select.length === 1 && req.select[0]?.type === 'star') return;
  throw notAcceptable([req.media.handler.mediaType]);
}

/** GET/HEAD on a table or view. */
export function buildRead(req: ApiRequest, meta: ProjectMeta, options: BuildOptions = {}): BuiltStatement {
  const table = findTable(meta, req.schema, req.target);
  refuseHandlerSelect(req);
  const params = new Params();
  const tree = new TreeBuilder(meta, params, req, options.maxRows ?? null, options.aggregates ?? false);
  const alias = tree.alias('t');
  const root = tree.level(table, alias, [], req.select);
  tree.validate();
  const from = `${qualifiedName(table.schema, table.name)} AS ${quoteIdent(alias)}`;
  return readStatement(params, root, { ctes: [], from, rowType: table }, req, options, 'rows', `${table.schema}.${table.name}`);
}

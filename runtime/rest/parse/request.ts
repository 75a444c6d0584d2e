import { pgrstError, rangeError, unsupportedMethod } from '../errors.js';
import type {
  Action, ApiRequest, Condition, CountMode, HttpMethod, OrderTerm, Payload, Range, Scoped,
} from './ast.js';
import { isOpExpr, parseFilterKey, parseFilterValue, parseLogicParam } from './filter.js';
import {
  firstHeader, intersectRanges, parseAccept, parsePrefer, parseProfile, parseRangeHeader, type RequestHeaders,
} from './headers.js';
import type { MediaHandlerMeta } from '../metadata.js';
import { Cursor } from './cursor.js';
import { parseTreePath } from './field.js';
import { parseOrder } from './order.js';
import { argsFromQuery, bodyFormat, parseArgsPayload, parseRowsPayload, type RequestBody } from './payload.js';
import { canonicalQuery, decodeComponent, parseQueryString } from './query-string.js';
import { parseColumnList, parseSelect } from './select.js';

export interface RawRequest {
  readonly method: string;
  /** What the path names: `/rest/v1/<name>` is a table, `/rest/v1/rpc/<name>` a function (percent-decoded). */
  readonly resource: { readonly kind: 'table' | 'rpc'; readonly name: string };
  /** The raw query string (with or without the leading `?`), still percent-encoded. */
  readonly query: string;
  readonly headers: RequestHeaders;
  /** The body as read (bytes, or text); null when there is none. */
  readonly body: RequestBody;
  /** The project's exposed schemas; the first is the default profile. */
  readonly schemas: readonly string[];
  /** Query parameters the HTTP layer consumes itself (e.g. `apikey`); never filters. */
  readonly ignoredParams?: readonly string[];
  /** Whether `Accept: application/vnd.pgrst.plan…` is offered (the project's `api.plan`). */
  readonly plans?: boolean;
  /** The media type handlers of the target in a schema (reads and calls choose among them by `Accept`). */
  readonly mediaHandlers?: (schema: string) => readonly MediaHandlerMeta[];
}

const RESERVED = new Set(['select', 'columns', 'on_conflict']);
const EMBEDDABLE_RESERVED = new Set(['order', 'limit', 'offset', 'and', 'or']);
const COUNT_MODES: readonly CountMode[] = ['exact', 'planned', 'estimated'];
const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'];

function actionFor(method: string, kind: 'table' | 'rpc'): { method: HttpMethod; action: Action } {
  const m = method.toUpperCase();
  if (kind === 'rpc') {
    if (m === 'GET' || m === 'HEAD' || m === 'POST') return { method: m, action: 'call' };
    if ((HTTP_METHODS as readonly string[]).includes(m)) throw pgrstError('PGRST101', `Cannot use the ${m} method on RPC`);
    throw unsupportedMethod(m);
  }
  switch (m) {
    case 'GET': case 'HEAD': return { method: m, action: 'read' };
    case 'POST': return { method: m, action: 'insert' };
    // The service document defines PUT as PATCH.
    case 'PATCH': case 'PUT': return { method: m, action: 'update' };
    case 'DELETE': return { method: m, action: 'delete' };
    default: throw unsupportedMethod(m);
  }
}

function lastSegment(key: string): string {
  const dot = key.lastIndexOf('.');
  return dot < 0 ? key : key.slice(dot + 1);
}

/** The embed path of an `a.b.order` / `a.b.limit` key. */
function pathOfReservedKey(key: string): string[] {
  const dot = key.lastIndexOf('.');
  if (dot < 0) return [];
  const c = new Cursor(key.slice(0, dot), 'tree path');
  const { path, field } = parseTreePath(c);
  if (!c.eof || field.jsonPath.length > 0) c.fail('"." or end of input');
  return [...path, field.name];
}

/** PostgREST reads limit/offset leniently: a non-integer is as if absent. */
function readInteger(value: string): number | null {
  return /^\s*-?\d+\s*$/.test(value) ? Number(value) : null;
}

function toRange(limit: number | null, offset: number | null): Range {
  if (limit !== null && limit < 0) throw rangeError({ kind: 'negative-limit' });
  return { offset: offset !== null && offset > 0 ? offset : 0, limit };
}

/**
 * Query string + headers + body → ApiRequest. Pure; throws ApiError (PGRST1xx, 4xx) for
 * anything malformed, so no malformed input ever reaches SQL generation.
 */
export function parseRequest(input: RawRequest): ApiRequest {
  const { method, action } = actionFor(input.method, input.resource.kind);
  const ignored = new Set(input.ignoredParams ?? []);
  const isRpcRead = action === 'call' && (method === 'GET' || method === 'HEAD');

  let select: string | null = null;
  let columnsText: string | null = null;
  let onConflictText: string | null = null;
  let countParam: CountMode | null = null;
  const conditions: Scoped<Condition>[] = [];
  const orders: Scoped<readonly OrderTerm[]>[] = [];
  const limits = new Map<string, { path: string[]; limit: number | null; offset: number | null }>();
  const rpcArgs: Array<readonly [string, string]> = [];

  const rangeEntry = (key: string): { path: string[]; limit: number | null; offset: number | null } => {
    const path = pathOfReservedKey(key);
    const id = JSON.stringify(path);
    let entry = limits.get(id);
    if (!entry) { entry = { path, limit: null, offset: null }; limits.set(id, entry); }
    return entry;
  };

  const pairs = parseQueryString(input.query);
  for (const [key, value] of pairs) {
    if (value === null || ignored.has(key)) continue;
    if (RESERVED.has(key)) {
      if (key === 'select' && select === null) select = value;
      if (key === 'columns' && columnsText === null) columnsText = value;
      if (key === 'on_conflict' && onConflictText === null) onConflictText = value;
      continue;
    }
    // `?count=exact` is the service document's count parameter; `count=eq.1` stays a filter.
    if (key === 'count' && (COUNT_MODES as readonly string[]).includes(value)) {
      countParam ??= value as CountMode;
      continue;
    }
    const last = lastSegment(key);
    if (EMBEDDABLE_RESERVED.has(last)) {
      if (last === 'order') orders.push({ path: pathOfReservedKey(key), value: parseOrder(value) });
      else if (last === 'limit') rangeEntry(key).limit = readInteger(value);
      else if (last === 'offset') rangeEntry(key).offset = readInteger(value);
      else {
        const { path, condition } = parseLogicParam(key, value);
        conditions.push({ path, value: condition });
      }
      continue;
    }
    if (isRpcRead && !isOpExpr(value)) {
      rpcArgs.push([key, value]);
      continue;
    }
    const { path, field } = parseFilterKey(key);
    conditions.push({ path, value: { type: 'filter', field, expr: parseFilterValue(value) } });
  }

  const rootLimits = limits.get('[]');
  let range = toRange(rootLimits?.limit ?? null, rootLimits?.offset ?? null);
  if (method === 'GET') {
    const header = parseRangeHeader(input.headers);
    if (header) range = intersectRanges(range, header);
  }
  const embedRanges: Scoped<Range>[] = [...limits.values()]
    .filter((e) => e.path.length > 0)
    .map((e) => ({ path: e.path, value: toRange(e.limit, e.offset) }));

  const preferences = parsePrefer(input.headers);
  const columns = columnsText === null ? null : parseColumnList(columnsText, 'columns parameter');
  const onConflict = onConflictText === null ? null : parseColumnList(onConflictText, 'on_conflict parameter');

  let payload: Payload | null = null;
  if (action === 'insert' || action === 'update') {
    payload = parseRowsPayload(input.body, bodyFormat(firstHeader(input.headers, 'content-type')), columns);
  } else if (action === 'call') {
    payload = isRpcRead
      ? argsFromQuery(rpcArgs)
      : parseArgsPayload(input.body, bodyFormat(firstHeader(input.headers, 'content-type')), columns);
  }

  const schema = parseProfile(input.headers, method, input.schemas);
  const handlers = (action === 'read' || action === 'call') && input.mediaHandlers ? input.mediaHandlers(schema) : [];
  return {
    action,
    method,
    schema,
    target: input.resource.name,
    select: parseSelect(select ?? '*'),
    conditions,
    orders,
    embedRanges,
    range,
    count: countParam ?? preferences.count,
    preferences,
    ...parseAccept(input.headers, input.plans ?? false, handlers),
    payload,
    columns,
    onConflict,
    ...(action === 'read' ? { contentLocation: contentLocation(input.resource.name, pairs.filter(([key]) => !ignored.has(key))) } : {}),
  };
}

/**
 * A read's `Content-Location` as PostgREST's: `/<name>` and the canonical query. Header values are bytes: the
 * name's UTF-8 goes out as it is (as PostgREST), a control character percent-encoded.
 */
function contentLocation(name: string, pairs: ReadonlyArray<readonly [string, string | null]>): string {
  const path = Buffer.from(`/${name}`, 'utf8').toString('latin1')
    .replace(/[\u0000-\u001f\u007f]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const query = canonicalQuery(pairs);
  return query === '' ? path : `${path}?${query}`;
}

/** Percent-decoding of a path segment (table or function name) by the same rules as the query. */
export function decodePathSegment(segment: string): string {
  return decodeComponent(segment.replace(/\+/g, '%2B'));
}

import type { OutgoingHttpHeader, ServerResponse } from 'node:http';
import { ApiError, rangeError, singularityError } from './errors.js';
import type { ApiRequest, MediaType, PlanRequest } from './parse/ast.js';
import type { BuiltStatement } from './sql/statement.js';
import type { ResultRow } from './sql/envelope.js';

/** A response ready to write: PostgreSQL produced the body text; it is passed through unparsed. */
export interface RestResponse {
  readonly status: number;
  /** A header set twice by `response.headers` (e.g. Set-Cookie) has each value. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** Bytes for a media type handler over bytea. */
  readonly body: string | Buffer | null;
}

function toCount(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

function contentType(req: ApiRequest, built: BuiltStatement): string {
  if (req.media.kind === 'handler') return req.media.contentType;
  // `nulls=stripped` is part of the type PostgREST names (MediaType.hs), as for a plan's `for`.
  if (req.media.kind === 'object' && built.result === 'scalar') return 'application/json; charset=utf-8';
  return `${mediaName(req.media)}; charset=utf-8`;
}

/** The media type a plan was asked `for`, as PostgREST names it in the plan's Content-Type. */
function mediaName(media: MediaType): string {
  const stripped = media.stripNulls ? ';nulls=stripped' : '';
  switch (media.kind) {
    case 'json': return media.stripNulls ? `application/vnd.pgrst.array+json${stripped}` : 'application/json';
    case 'object': return `application/vnd.pgrst.object+json${stripped}`;
    case 'csv': return 'text/csv';
    case 'handler': return media.contentType;
  }
}

/** 200 with the EXPLAIN output; `Content-Type: application/vnd.pgrst.plan+json; for="application/json"; options=analyze; charset=utf-8`. */
export function planResponse(media: MediaType, plan: PlanRequest, body: string): RestResponse {
  const options = plan.options.length > 0 ? `; options=${plan.options.join('|')}` : '';
  const type = `application/vnd.pgrst.plan+${plan.format}; for="${mediaName(media)}"${options}; charset=utf-8`;
  return { status: 200, headers: { 'Content-Type': type }, body };
}

/** `START-END/TOTAL`, `*` for an unknown total, `*\/TOTAL` for an empty page (PostgREST's rules). */
export function contentRange(offset: number, pageCount: number, total: number | null): string {
  const totalText = total === null ? '*' : String(total);
  return pageCount === 0 ? `*/${totalText}` : `${offset}-${offset + pageCount - 1}/${totalText}`;
}

/**
 * `Preference-Applied` in PostgREST's order, naming only what the action applies: `resolution` on inserts with a
 * conflict target (a primary key or `on_conflict`),
 * `missing` on inserts and updates, `return` on writes, `max-affected` (strict) on updates, deletes and calls;
 * `handling` is echoed whichever it is.
 */
function preferenceApplied(req: ApiRequest, built: BuiltStatement): string | null {
  const applied: string[] = [];
  const p = req.preferences;
  const action = req.action;
  if (p.resolution && built.upsert) applied.push(`resolution=${p.resolution}`);
  if (p.missing && (action === 'insert' || action === 'update')) applied.push(`missing=${p.missing}`);
  if (p.return && (action === 'insert' || action === 'update' || action === 'delete')) applied.push(`return=${p.return}`);
  if (req.count) applied.push(`count=${req.count}`);
  if (p.tx) applied.push(`tx=${p.tx}`);
  if (p.handling) applied.push(`handling=${p.handling}`);
  if (p.timezone !== null) applied.push(`timezone=${p.timezone}`);
  if (p.handling === 'strict' && p.maxAffected !== null && action !== 'read' && action !== 'insert') applied.push(`max-affected=${p.maxAffected}`);
  return applied.length ? applied.join(', ') : null;
}

/**
 * Whether the transaction may commit, judged from the statement's result before
 * COMMIT: a singular response that is not exactly one row, `tx=rollback`, or more
 * affected rows than `max-affected` allows must change nothing.
 */
export function mayCommit(req: ApiRequest, built: BuiltStatement, row: ResultRow | undefined): boolean {
  if (req.preferences.tx === 'rollback') return false;
  const pageCount = Number(row?.page_count ?? 0);
  if (req.media.kind === 'object' && built.result === 'rows' && pageCount !== 1) return false;
  if (req.preferences.maxAffected !== null && req.preferences.handling === 'strict' && pageCount > req.preferences.maxAffected) return false;
  return true;
}

/** Whether this request's commit depends on its result (see mayCommit). */
export function needsCommitDecision(req: ApiRequest, built: BuiltStatement): boolean {
  if (built.readOnly) return false;
  return req.preferences.tx === 'rollback' || req.media.kind === 'object' || (req.preferences.maxAffected !== null && req.preferences.handling === 'strict');
}

const BAD_HEADERS_GUC = 'response.headers guc must be a JSON array composed of objects with a single key and a string value';

/** `response.headers` as PostgREST reads it: `[{"Name": "value"}, …]`, a name may come twice; 500 PGRST111 otherwise. */
function gucHeaders(text: string): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(500, 'PGRST111', BAD_HEADERS_GUC);
  }
  if (!Array.isArray(parsed)) throw new ApiError(500, 'PGRST111', BAD_HEADERS_GUC);
  return parsed.map((item: unknown) => {
    const entries = typeof item === 'object' && item !== null && !Array.isArray(item) ? Object.entries(item) : [];
    const [entry] = entries;
    if (entries.length !== 1 || typeof entry![1] !== 'string') throw new ApiError(500, 'PGRST111', BAD_HEADERS_GUC);
    return entry as [string, string];
  });
}

/**
 * The response with what the statement's SQL asked for through `response.status` and `response.headers`
 * (a function, a trigger, the pre-request function): the status replaces ours, a header replaces ours of the
 * same name (so a trigger may rewrite `Location`, a pre-request function `Content-Type`).
 */
function withResponseGucs(response: RestResponse, row: ResultRow): RestResponse {
  const headersText = row.response_headers ?? '';
  const statusText = row.response_status ?? '';
  if (headersText === '' && statusText === '') return response;
  let status = response.status;
  if (statusText !== '') {
    status = Number(statusText);
    if (!/^\d{3}$/.test(statusText) || status < 100 || status > 599) throw new ApiError(500, 'PGRST112', 'response.status guc must be a valid status code');
  }
  if (headersText === '') return { ...response, status };
  const added = new Map<string, [string, string[]]>();
  for (const [name, value] of gucHeaders(headersText)) {
    const key = name.toLowerCase();
    const entry = added.get(key) ?? [name, []];
    entry[1].push(value);
    added.set(key, entry);
  }
  const headers: Record<string, string | readonly string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) if (!added.has(name.toLowerCase())) headers[name] = value;
  for (const [name, values] of added.values()) headers[name] = values.length === 1 ? values[0]! : values;
  return { ...response, status, headers };
}

/** A bytea handler's body comes base64-encoded (see `handlerValueSql`): its bytes. */
function bodyOf(req: ApiRequest, body: string | null): string | Buffer | null {
  return body !== null && req.media.kind === 'handler' && req.media.handler.binary ? Buffer.from(body, 'base64') : body;
}

/** Status, headers and body of a successful statement, per PostgREST and the service document. */
export function respond(req: ApiRequest, built: BuiltStatement, row: ResultRow, planned: number | null, location: (pk: string) => string | null): RestResponse {
  return withResponseGucs(respondTo(req, built, row, planned, location), row);
}

function respondTo(req: ApiRequest, built: BuiltStatement, row: ResultRow, planned: number | null, location: (pk: string) => string | null): RestResponse {
  const pageCount = Number(row.page_count);
  const headers: Record<string, string> = { 'Content-Type': contentType(req, built) };
  const applied = preferenceApplied(req, built);
  if (applied) headers['Preference-Applied'] = applied;

  if (req.media.kind === 'object' && built.result === 'rows' && pageCount !== 1) throw singularityError(pageCount);
  if (req.preferences.maxAffected !== null && req.preferences.handling === 'strict' && !built.readOnly && pageCount > req.preferences.maxAffected) {
    throw new ApiError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${pageCount} rows`);
  }

  const body = req.method === 'HEAD' ? null : bodyOf(req, row.body);

  if (req.action === 'call' && built.result === 'void') return { status: 204, headers: {}, body: null };
  // Function results count like rows: a scalar is one row (`0-0/1`), SETOF scalars one row each.
  if (req.action === 'read' || req.action === 'call') {
    let total = toCount(row.total_count);
    if (req.count === 'planned') total = planned;
    else if (req.count === 'estimated' && built.countThreshold !== null && total !== null && total > built.countThreshold) {
      total = planned === null ? total : Math.max(planned, built.countThreshold + 1);
    }
    const offset = req.range.offset;
    if (total !== null && offset > total) throw rangeError({ kind: 'out-of-bounds', offset, total });
    headers['Content-Range'] = contentRange(offset, pageCount, total);
    if (req.contentLocation !== undefined) headers['Content-Location'] = req.contentLocation;
    const partial = total !== null && pageCount < total;
    return { status: partial ? 206 : 200, headers, body };
  }

  const ret = req.preferences.return ?? 'representation';
  // Writes report the affected rows in the total only when a count was asked for.
  const affected = req.count === null ? '*' : String(toCount(row.total_count) ?? pageCount);
  if (req.action === 'insert') {
    const inserted = toCount(row.inserted_count);
    // An upsert that inserted nothing (all updates, or an empty array) is 200, as PostgREST's UpsertSpec.
    const status = req.preferences.resolution === 'merge-duplicates' && inserted === 0 ? 200 : 201;
    if (row.location) {
      const where = location(row.location);
      if (where) headers.Location = where;
    }
    headers['Content-Range'] = `*/${affected}`;
    if (ret === 'representation') return { status, headers, body };
    delete headers['Content-Type'];
    return { status, headers, body: null };
  }

  headers['Content-Range'] = req.action === 'delete' || pageCount === 0 ? `*/${affected}` : `0-${pageCount - 1}/${affected}`;
  if (ret === 'representation') return { status: 200, headers, body };
  delete headers['Content-Type'];
  return { status: 204, headers, body: null };
}

/** Names respondTo gives headers, always in this case: a response naming no other cannot repeat a caller's header in another case. */
const OWN_HEADERS = new Set(['Content-Type', 'Preference-Applied', 'Content-Range', 'Content-Location', 'Location', 'Content-Profile', 'Allow']);

const NO_HEADERS: Readonly<Record<string, string>> = {};

/** `common`, the response's headers and Content-Length as writeHead's flat list; null when a header is not one of ours. */
function headList(common: Readonly<Record<string, string>>, response: RestResponse, length: number): OutgoingHttpHeader[] | null {
  const list: OutgoingHttpHeader[] = [];
  for (const name in common) list.push(name, common[name]!);
  for (const name in response.headers) {
    if (!OWN_HEADERS.has(name)) return null;
    list.push(name, response.headers[name] as string | string[]);
  }
  list.push('Content-Length', length);
  return list;
}

/**
 * Writes `response` with `common` (headers every answer of the caller carries) before its own. A body
 * with only headers of ours goes out in one writeHead of a flat list: setting them one by one cost
 * about 2.5 times as much (the 20-row read's headers; an object cost more still). Others
 * (`response.headers` may name ours in another case) and body-less answers (Node picks their
 * Content-Length) are set one by one, a later name replacing an earlier one.
 */
export function writeResponse(res: ServerResponse, response: RestResponse, common: Readonly<Record<string, string>> = NO_HEADERS): void {
  const head = response.body === null ? null : headList(common, response, Buffer.byteLength(response.body));
  if (head !== null) {
    res.writeHead(response.status, head);
    res.end(response.body);
    return;
  }
  res.statusCode = response.status;
  for (const name in common) res.setHeader(name, common[name]!);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value as string | string[]);
  if (response.body === null) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', Buffer.byteLength(response.body));
  res.end(response.body);
}

/** Writes `error`'s answer with `common` (headers every answer of the caller carries) before its own. */
export function writeError(res: ServerResponse, error: ApiError, head: boolean, common: Readonly<Record<string, string>> = NO_HEADERS): void {
  const body = JSON.stringify(error.toJSON());
  res.statusCode = error.status;
  // A reason phrase Node would refuse (a control character) leaves the standard one.
  if (error.statusText !== null && /^[\t\x20-\x7e\x80-\xff]*$/.test(error.statusText)) res.statusMessage = error.statusText;
  for (const name in common) res.setHeader(name, common[name]!);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}

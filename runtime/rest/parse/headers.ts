import { pgrstError, rangeError, type ApiError } from '../errors.js';
import type { MediaHandlerMeta } from '../metadata.js';
import type { BuiltInMedia, CountMode, HttpMethod, MediaType, PlanOption, PlanRequest, Preferences, Range } from './ast.js';

export type HeaderValue = string | readonly string[] | undefined;
/** Request headers with lower-case names (node's `IncomingHttpHeaders` fits). */
export type RequestHeaders = Readonly<Record<string, HeaderValue>>;

function values(headers: RequestHeaders, name: string): string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return typeof v === 'string' ? [v] : [...v];
}

export function firstHeader(headers: RequestHeaders, name: string): string | undefined {
  return values(headers, name)[0];
}

const PREFERENCE_VALUES: Readonly<Record<string, readonly string[] | null>> = {
  return: ['minimal', 'headers-only', 'representation'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  handling: ['strict', 'lenient'],
  tx: ['commit', 'rollback'],
  timezone: null,
  'max-affected': null,
};

/**
 * `Prefer` (RFC 7240), possibly split over several headers; the first occurrence of each
 * preference wins; unknown ones are ignored unless `handling=strict` (then PGRST122).
 */
export function parsePrefer(headers: RequestHeaders): Preferences {
  const found = new Map<string, string>();
  const invalid: string[] = [];
  for (const header of values(headers, 'prefer')) {
    for (const raw of header.split(',')) {
      const token = raw.trim();
      if (token === '') continue;
      const eq = token.indexOf('=');
      const key = eq < 0 ? token : token.slice(0, eq).trim();
      const value = eq < 0 ? '' : token.slice(eq + 1).trim();
      const allowed = PREFERENCE_VALUES[key];
      const valid = allowed === undefined ? false
        : allowed === null ? (key === 'max-affected' ? /^\d+$/.test(value) : value !== '')
          : allowed.includes(value);
      if (!valid) { invalid.push(token); continue; }
      if (!found.has(key)) found.set(key, value);
    }
  }
  const handling = (found.get('handling') ?? null) as Preferences['handling'];
  if (handling === 'strict' && invalid.length > 0) {
    throw pgrstError('PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${invalid.join(', ')}`);
  }
  const maxAffected = found.get('max-affected');
  return {
    return: (found.get('return') ?? null) as Preferences['return'],
    count: (found.get('count') ?? null) as CountMode | null,
    resolution: (found.get('resolution') ?? null) as Preferences['resolution'],
    missing: (found.get('missing') ?? null) as Preferences['missing'],
    handling,
    tx: (found.get('tx') ?? null) as Preferences['tx'],
    timezone: found.get('timezone') ?? null,
    maxAffected: maxAffected === undefined ? null : Number(maxAffected),
  };
}

interface AcceptEntry { readonly type: string; readonly params: Readonly<Record<string, string>>; readonly q: number }

function parseAcceptEntries(header: string): AcceptEntry[] {
  const entries: AcceptEntry[] = [];
  for (const part of header.split(',')) {
    const [typeRaw = '', ...paramParts] = part.split(';');
    const type = typeRaw.trim().toLowerCase();
    if (type === '') continue;
    const params: Record<string, string> = {};
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    entries.push({ type, params, q: Number.isFinite(q) ? q : 0 });
  }
  // Stable sort: equal q keeps the client's order.
  return entries.filter((e) => e.q > 0).sort((a, b) => b.q - a.q);
}

function mediaFor(entry: AcceptEntry): BuiltInMedia | null {
  const stripNulls = entry.params.nulls === 'stripped';
  switch (entry.type) {
    case '*/*': case 'application/*': case 'application/json':
      return { kind: 'json', stripNulls: false };
    case 'application/vnd.pgrst.array+json': case 'application/vnd.pgrst.array':
      return { kind: 'json', stripNulls };
    case 'application/vnd.pgrst.object+json': case 'application/vnd.pgrst.object':
      return { kind: 'object', stripNulls };
    case 'text/csv':
      return { kind: 'csv', stripNulls: false };
    default:
      return null;
  }
}

const PLAN_OPTIONS: readonly PlanOption[] = ['analyze', 'verbose', 'settings', 'buffers', 'wal'];
const PLAN_FORMATS: Readonly<Record<string, PlanRequest['format']>> = {
  'application/vnd.pgrst.plan': 'text', 'application/vnd.pgrst.plan+text': 'text', 'application/vnd.pgrst.plan+json': 'json',
};

/** `vnd.pgrst.plan[+json|+text]; for="<media type>"; options=a|b`: the plan of the `for` representation (default JSON). */
function planFor(entry: AcceptEntry): { media: MediaType; plan: PlanRequest } | null {
  const format = PLAN_FORMATS[entry.type];
  if (format === undefined) return null;
  const media = mediaFor(parseAcceptEntries(entry.params.for ?? 'application/json')[0] ?? entry);
  if (media === null) return null;
  const asked = (entry.params.options ?? '').split('|');
  return { media, plan: { format, options: PLAN_OPTIONS.filter((o) => asked.includes(o)) } };
}

export interface Negotiated {
  readonly media: MediaType;
  readonly plan: PlanRequest | null;
}

/** PostgREST writes a charset after the media types it knows (MediaType.hs), not after others. */
const WITH_CHARSET = new Set([
  'application/json', 'application/geo+json', 'text/csv', 'text/plain', 'text/xml', 'application/openapi+json', 'application/x-www-form-urlencoded',
]);

function handlerMedia(handler: MediaHandlerMeta, type: string): MediaType {
  const contentType = handler.mediaType === '*/*' ? 'application/octet-stream'
    : WITH_CHARSET.has(type) ? `${type}; charset=utf-8` : type;
  return { kind: 'handler', stripNulls: false, handler, contentType };
}

/**
 * One Accept entry against the handlers and the built-in types, as PostgREST: a handler of exactly
 * that type first (so a user's `text/csv` or `application/json` overrides the built-in one, never the
 * `vnd.pgrst` ones), then `*\/*` to an any-type handler, then the built-in types, then any-type handler.
 */
function choose(entry: AcceptEntry, handlers: readonly MediaHandlerMeta[], plans: boolean): Negotiated | null {
  const vendored = entry.type.startsWith('application/vnd.pgrst.');
  const exact = vendored ? undefined : handlers.find((h) => h.mediaType === entry.type && h.mediaType !== '*/*');
  if (exact) return { media: handlerMedia(exact, entry.type), plan: null };
  const any = handlers.find((h) => h.mediaType === '*/*');
  if (any && entry.type === '*/*') return { media: handlerMedia(any, entry.type), plan: null };
  const media = mediaFor(entry);
  if (media) return { media, plan: null };
  const planned = plans ? planFor(entry) : null;
  if (planned) return planned;
  if (any && !vendored) return { media: handlerMedia(any, entry.type), plan: null };
  return null;
}

/**
 * The first acceptable media type in q-order among the built-in ones and `handlers` (the media type
 * handlers of the target); none → 406 PGRST107. Plan media types count only when `plans` is on
 * (PostgREST's db-plan-enabled); otherwise they are unknown types.
 */
export function parseAccept(headers: RequestHeaders, plans = false, handlers: readonly MediaHandlerMeta[] = []): Negotiated {
  const header = values(headers, 'accept').join(',');
  if (header.trim() === '') return { media: { kind: 'json', stripNulls: false }, plan: null };
  for (const entry of parseAcceptEntries(header)) {
    const chosen = choose(entry, handlers, plans);
    if (chosen) return chosen;
  }
  const listed = header.split(',').map((t) => t.split(';')[0]?.trim() ?? '').filter((t) => t !== '');
  throw notAcceptable(listed);
}

/** 406 PGRST107, naming the types asked for as PostgREST does. */
export function notAcceptable(types: readonly string[]): ApiError {
  return pgrstError('PGRST107', `None of these media types are available: ${types.join(', ')}`);
}

/**
 * The schema of the request: `Accept-Profile` for GET/HEAD, `Content-Profile` otherwise;
 * default the first exposed schema; an unexposed one → 406 PGRST106.
 */
export function parseProfile(headers: RequestHeaders, method: HttpMethod, schemas: readonly string[]): string {
  const header = firstHeader(headers, method === 'GET' || method === 'HEAD' ? 'accept-profile' : 'content-profile');
  const fallback = schemas[0];
  if (fallback === undefined) throw pgrstError('PGRST106', 'Invalid schema: (none)', null, 'Only the following schemas are exposed: ');
  if (header === undefined || header.trim() === '') return fallback;
  const schema = header.trim();
  if (!schemas.includes(schema)) {
    throw pgrstError('PGRST106', `Invalid schema: ${schema}`, null, `Only the following schemas are exposed: ${schemas.join(', ')}`);
  }
  return schema;
}

/** The `Range` request header (`0-24`, `10-`); anything not matching is ignored. */
export function parseRangeHeader(headers: RequestHeaders): Range | null {
  const header = firstHeader(headers, 'range');
  if (header === undefined) return null;
  const m = /^\s*(?:items=)?(\d+)-(\d*)\s*$/.exec(header);
  if (!m) return null;
  const lower = Number(m[1]);
  if (m[2] === '') return { offset: lower, limit: null };
  const upper = Number(m[2]);
  if (lower > upper) throw rangeError({ kind: 'lower-gt-upper' });
  return { offset: lower, limit: upper - lower + 1 };
}

/** Intersection of two ranges (limit/offset parameters and the Range header). */
export function intersectRanges(a: Range, b: Range): Range {
  const offset = Math.max(a.offset, b.offset);
  const endA = a.limit === null ? Infinity : a.offset + a.limit;
  const endB = b.limit === null ? Infinity : b.offset + b.limit;
  const end = Math.min(endA, endB);
  return { offset, limit: end === Infinity ? null : Math.max(0, end - offset) };
}

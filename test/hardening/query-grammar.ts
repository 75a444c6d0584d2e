/**
 * A grammar of PostgREST requests for fuzzing: query strings (select with embeds, aliases,
 * casts and JSON paths; filters with every operator; not/or/and trees; order, limit/offset,
 * count, on_conflict, columns), headers and methods, then mangled the way clients and
 * attackers mangle them (percent-encoded names, invalid UTF-8, stray `%`, raw bytes,
 * overlong values, duplicated parameters).
 */
import type { Prng } from './prng.js';
import type { FuzzTable, FuzzTarget } from './fuzz-schema.js';

export interface FuzzRequest {
  readonly method: string;
  /** The path after `/rest/v1`, query string included, exactly as sent. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

export interface FuzzKeys {
  readonly anon: string;
  readonly service: string;
}

const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'];
const OPERATORS = [
  'eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct',
  'fts', 'plfts', 'phfts', 'wfts', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj', 'nope',
];
const CASTS = ['text', 'int', 'integer', 'numeric', 'json', 'jsonb', 'double precision', 'bogus_type', 'int[]', 'select', 'text)'];
const AGGREGATES = ['sum', 'avg', 'count', 'max', 'min'];
const VALUES = [
  '', '0', '1', '-1', '2', '42', '3.14', '2147483648', '-9223372036854775809', '1e400', 'NaN', 'Infinity',
  'abc', 'Ada', 'ada@example.com', 'null', 'NULL', 'true', 'false', 'unknown', 'not_null',
  '{1,2}', '{a,"b c"}', '{', '}', '{{1}}', '[1,10)', '(,)', '[5,', '"quoted"', '"', '\\', '\\"',
  '2024-01-01', '2024-13-45', 'ＡＢＣ', 'naïve', '💥', "'; DROP TABLE customers;--", '$1', '%', '%%',
  '*', 'a*b', '^a.*$', '(', ')', ',', '.', '..', ':', '::', '->', '->>', '!', 'gold', 'london',
];
const JSON_KEYS = ['tier', 'address', 'city', 'theme', '0', '-1', 'a b', 'ü', '"x"'];
const PREFER_TOKENS = [
  'return=minimal', 'return=representation', 'return=headers-only', 'return=bogus',
  'count=exact', 'count=planned', 'count=estimated', 'count=nope',
  'resolution=merge-duplicates', 'resolution=ignore-duplicates', 'missing=default', 'missing=null',
  'handling=strict', 'handling=lenient', 'tx=commit', 'tx=rollback', 'timezone=UTC', 'timezone=Mars/Olympus',
  'max-affected=0', 'max-affected=1', 'max-affected=-1', 'max-affected=99999999999999999999', 'params=single-object',
  'wat', '=', ',,', 'return', 'count=exact;q=1',
];
const ACCEPTS = [
  'application/json', '*/*', 'application/*', 'text/csv', 'application/vnd.pgrst.object+json',
  'application/vnd.pgrst.object+json;nulls=stripped', 'application/vnd.pgrst.array+json;nulls=stripped',
  'application/vnd.pgrst.object', 'application/vnd.pgrst.plan+json', 'application/vnd.pgrst.plan+text',
  'application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose|buffers',
  'application/vnd.pgrst.plan', 'application/geo+json', 'text/plain', 'application/octet-stream',
  'text/html;q=0', 'application/json;q=abc', 'application/json;q=0.5, text/csv;q=0.9', '', ';', ',,', 'garbage',
];
const PROFILES = ['public', 'private', 'auth', 'pg_catalog', '', ' ', 'Public', 'public,private', 'no such schema'];
const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'text/csv', 'application/x-www-form-urlencoded',
  'application/vnd.pgrst.object+json', 'text/plain', 'application/octet-stream', 'multipart/form-data', '', 'garbage/',
];
const RANGES = ['0-9', '0-0', '1-', '5-2', 'items=0-1', '0-', '-5', 'bytes=0-1', '99999999999999999999-', '0-99999999999999999999', 'x', ''];
const RANGE_UNITS = ['rows', 'items', 'bytes', '', 'x'];

function word(rng: Prng): string {
  if (rng.chance(0.04)) return rng.chance(0.5) ? 'a'.repeat(rng.between(64, 5000)) : '9'.repeat(rng.between(20, 400));
  return rng.pick(VALUES);
}

function columnOf(rng: Prng, table: FuzzTable): string {
  if (rng.chance(0.1)) return rng.pick(['nope', '*', '"quoted col"', 'id id', '$x', '__proto__', 'constructor', '']);
  const column = rng.pick(table.columns);
  // Names with delimiters must be quoted; unquoted they are malformed, which is also worth sending.
  return /[,.:()"]/.test(column) && rng.chance(0.7) ? `"${column.replace(/"/g, '\\"')}"` : column;
}

function jsonPath(rng: Prng): string {
  let out = '';
  for (let i = rng.int(3); i > 0; i -= 1) out += `${rng.pick(['->', '->>', '->', '>', '-'])}${rng.pick(JSON_KEYS)}`;
  return out;
}

function field(rng: Prng, table: FuzzTable): string {
  return `${columnOf(rng, table)}${rng.chance(0.25) ? jsonPath(rng) : ''}`;
}

function selectItem(rng: Prng, table: FuzzTable, depth: number): string {
  const roll = rng.int(10);
  if (roll === 0) return '*';
  if (roll <= 2 && depth < 3 && table.embeds.length > 0) {
    const spread = rng.chance(0.15) ? '...' : '';
    const alias = !spread && rng.chance(0.3) ? `${rng.pick(['e', 'x y', '"q"', 'alias'])}:` : '';
    const hint = rng.chance(0.3) ? `!${rng.pick(['inner', 'left', 'billing', 'shipping', 'customer_id', 'nope'])}` : '';
    return `${alias}${spread}${rng.pick(table.embeds)}${hint}(${selectList(rng, table, depth + 1)})`;
  }
  if (roll === 3) return rng.pick(['count()', `${columnOf(rng, table)}.${rng.pick(AGGREGATES)}()`, `${columnOf(rng, table)}::${rng.pick(CASTS)}.sum()`]);
  const alias = rng.chance(0.25) ? `${rng.pick(['a', 'b c', '"al:ias"', 'x'.repeat(70), '__proto__'])}:` : '';
  const cast = rng.chance(0.2) ? `::${rng.pick(CASTS)}` : '';
  return `${alias}${field(rng, table)}${cast}`;
}

function selectList(rng: Prng, table: FuzzTable, depth: number): string {
  const list = rng.repeat(rng.between(depth === 0 ? 1 : 0, 4), () => selectItem(rng, table, depth), rng.chance(0.9) ? ',' : ', ');
  return rng.chance(0.05) ? `${list}${rng.pick([')', '(', ',', '!', '::'])}` : list;
}

function operand(rng: Prng, op: string): string {
  switch (op) {
    case 'in': return `(${rng.repeat(rng.int(4), () => word(rng), ',')}${rng.chance(0.1) ? '' : ')'}`;
    case 'is': return rng.pick(['null', 'not_null', 'true', 'false', 'unknown', 'NULL', 'maybe']);
    default: return word(rng);
  }
}

function opExpr(rng: Prng): string {
  const op = rng.pick(OPERATORS);
  const not = rng.chance(0.15) ? 'not.' : '';
  let modifier = '';
  if (['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'].includes(op) && rng.chance(0.15)) {
    modifier = rng.pick(['(any)', '(all)', '(some)']);
  } else if (op.endsWith('fts') && rng.chance(0.3)) {
    modifier = `(${rng.pick(['english', 'simple', 'klingon', "eng'lish", ''])})`;
  }
  const value = modifier === '(any)' || modifier === '(all)' ? `{${rng.repeat(rng.int(3), () => word(rng), ',')}}` : operand(rng, op);
  return `${not}${op}${modifier}${rng.chance(0.97) ? '.' : ''}${value}`;
}

function logicTree(rng: Prng, table: FuzzTable, depth: number): string {
  const children = rng.repeat(rng.between(0, 3), () => {
    if (depth < 4 && rng.chance(0.2)) return `${rng.chance(0.2) ? 'not.' : ''}${rng.pick(['and', 'or'])}${logicTree(rng, table, depth + 1)}`;
    return `${field(rng, table)}.${opExpr(rng)}`;
  }, ',');
  return `(${children}${rng.chance(0.05) ? '' : ')'}`;
}

function orderTerm(rng: Prng, table: FuzzTable): string {
  const dir = rng.chance(0.5) ? `.${rng.pick(['asc', 'desc', 'up'])}` : '';
  const nulls = rng.chance(0.3) ? `.${rng.pick(['nullsfirst', 'nullslast', 'nullsmiddle'])}` : '';
  return `${field(rng, table)}${dir}${nulls}`;
}

function embedPrefix(rng: Prng, table: FuzzTable): string {
  return table.embeds.length > 0 && rng.chance(0.3) ? `${rng.pick(table.embeds)}.` : '';
}

function number(rng: Prng): string {
  return rng.pick(['0', '1', '2', '10', '-1', '-5', '1.5', 'abc', '', ' 3 ', '99999999999999999999', '1e3', '0x10']);
}

type Param = readonly [string, string];

function param(rng: Prng, table: FuzzTable, args: readonly string[]): Param {
  switch (rng.int(14)) {
    case 0: case 1: return ['select', selectList(rng, table, 0)];
    case 2: case 3: case 4: return [`${embedPrefix(rng, table)}${field(rng, table)}`, opExpr(rng)];
    case 5: return [`${embedPrefix(rng, table)}${rng.chance(0.2) ? 'not.' : ''}${rng.pick(['or', 'and'])}`, logicTree(rng, table, 0)];
    case 6: return [`${embedPrefix(rng, table)}order`, rng.repeat(rng.between(1, 3), () => orderTerm(rng, table), ',')];
    case 7: return [`${embedPrefix(rng, table)}${rng.pick(['limit', 'offset'])}`, number(rng)];
    case 8: return ['count', rng.pick(['exact', 'planned', 'estimated', 'eq.1', 'nope'])];
    case 9: return [rng.pick(['on_conflict', 'columns']), rng.repeat(rng.between(1, 3), () => columnOf(rng, table), ',')];
    case 10: return [args.length > 0 && rng.chance(0.8) ? rng.pick(args) : rng.pick(['nope', 'apikey', 'select']), word(rng)];
    case 11: return [word(rng), word(rng)];
    case 12: return ['apikey', rng.pick(['', 'x', '%zz'])];
    default: return [rng.pick(['select', 'order', 'limit', 'or', 'and', 'not', 'not.or', 'count', '.', '..', 'a..b', 'a.', '.a']), word(rng)];
  }
}

const HEX = '0123456789ABCDEF';

/** Encodes what a URL must encode; keeps the PostgREST syntax characters readable. */
function encodeLight(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte > 0x20 && byte < 0x7f && !'%&#+'.includes(ch) ? ch : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** Every byte percent-encoded, as in the issue's `%6F%72%64%65%72` for `order`; sometimes lower-case hex. */
function encodeAll(rng: Prng, text: string): string {
  const lower = rng.chance(0.3);
  return [...Buffer.from(text, 'utf8')].map((b) => {
    const hex = `${HEX[b >> 4]}${HEX[b & 15]}`;
    return `%${lower ? hex.toLowerCase() : hex}`;
  }).join('');
}

/** Damage the way broken clients do: invalid UTF-8, truncated or bogus escapes, NUL, raw bytes. */
function mangle(rng: Prng, text: string): string {
  const at = rng.int(text.length + 1);
  const junk = rng.pick([
    '%C3%28', '%E2%82', '%FF', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%00', '%', '%%', '%zz', '%4', '%2',
    '+', '%2B', '%26', '%3D', '%23', '\u00e9', '\u00ff', '\u0080', '%E2%80%AE', '%EF%BB%BF',
  ]);
  return `${text.slice(0, at)}${junk}${text.slice(at)}`;
}

function encodePart(rng: Prng, text: string): string {
  const roll = rng.int(10);
  const encoded = roll === 0 ? encodeAll(rng, text) : encodeLight(text);
  return rng.chance(0.08) ? mangle(rng, encoded) : encoded;
}

function queryString(rng: Prng, table: FuzzTable, args: readonly string[]): string {
  const params: Param[] = [];
  for (let i = rng.int(6); i > 0; i -= 1) params.push(param(rng, table, args));
  // Duplicated parameters: PostgREST takes the first of some, all of others.
  if (params.length > 0 && rng.chance(0.15)) params.push(rng.pick(params));
  const parts = params.map(([k, v]) => (rng.chance(0.03) ? encodePart(rng, k) : `${encodePart(rng, k)}=${encodePart(rng, v)}`));
  if (rng.chance(0.05)) parts.push(rng.pick(['', '=', '&', '==', '=x', 'x=', '%3D%3D']));
  return parts.join('&');
}

function resourcePath(rng: Prng, target: FuzzTarget): { path: string; table: FuzzTable; args: readonly string[] } {
  const table = rng.pick(target.tables);
  const roll = rng.int(20);
  if (roll < 7) {
    const fn = rng.pick(target.functions);
    return { path: `/rpc/${encodePart(rng, fn.name)}`, table, args: fn.args };
  }
  if (roll === 7) {
    const odd = rng.pick(['/', '//', '/rpc', '/rpc/', '/rpc/a/b', '/a/b', '/%2F', '/..', '/%2E%2E', '/rpc/%C3%28', '/%C3%28', '/%E2%82', '/%zz', '/%', '/%00', '/\u00e9']);
    return { path: odd, table, args: [] };
  }
  return { path: `/${encodePart(rng, table.name)}`, table, args: [] };
}

function pickSome(rng: Prng, items: readonly string[], max: number): string {
  return rng.repeat(rng.between(1, max), () => rng.pick(items), rng.pick([',', ', ', ' , ']));
}

function headers(rng: Prng, keys: FuzzKeys): Record<string, string> {
  const out: Record<string, string> = {};
  const auth = rng.int(10);
  if (auth < 6) out.apikey = keys.anon;
  else if (auth < 8) { out.apikey = keys.anon; out.authorization = `Bearer ${keys.service}`; }
  else if (auth === 8) out.authorization = rng.pick(['Bearer ', 'Bearer x.y.z', 'Basic YTpi', `Bearer ${keys.anon}x`, 'bearer']);
  if (rng.chance(0.3)) out.prefer = pickSome(rng, PREFER_TOKENS, 4);
  if (rng.chance(0.15)) out.range = rng.pick(RANGES);
  if (rng.chance(0.15)) out['range-unit'] = rng.pick(RANGE_UNITS);
  if (rng.chance(0.3)) out.accept = rng.chance(0.7) ? rng.pick(ACCEPTS) : pickSome(rng, ACCEPTS, 3);
  if (rng.chance(0.1)) out['accept-profile'] = rng.pick(PROFILES);
  if (rng.chance(0.1)) out['content-profile'] = rng.pick(PROFILES);
  if (rng.chance(0.3)) out['content-type'] = rng.pick(CONTENT_TYPES);
  return out;
}

function jsonValue(rng: Prng, depth: number): unknown {
  const roll = rng.int(depth > 2 ? 5 : 8);
  switch (roll) {
    case 0: return null;
    case 1: return rng.between(-3, 3);
    case 2: return word(rng);
    case 3: return rng.chance(0.5);
    case 4: return 1e308 * (rng.chance(0.5) ? 10 : 1);
    case 5: return Array.from({ length: rng.int(3) }, () => jsonValue(rng, depth + 1));
    default: return jsonObject(rng, depth + 1, null);
  }
}

function jsonObject(rng: Prng, depth: number, table: FuzzTable | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = rng.int(4); i > 0; i -= 1) out[table && rng.chance(0.8) ? rng.pick(table.columns) : rng.pick(JSON_KEYS)] = jsonValue(rng, depth);
  return out;
}

function body(rng: Prng, table: FuzzTable, args: readonly string[]): string | null {
  const roll = rng.int(10);
  if (roll === 0) return null;
  if (roll === 1) return rng.pick(['', '{', '[', 'null', '1', '"x"', '[1,2]', '{"a":}', 'a,b\n1,2', 'a=1&b=2', '\u00ff\u00fe', '[[]]', '[{}, 1]']);
  if (roll === 2) return `${rng.pick(table.columns)},${rng.pick(table.columns)}\n${word(rng)},${word(rng)}`;
  if (roll === 3) return JSON.stringify(Array.from({ length: rng.int(4) }, () => jsonObject(rng, 0, table)));
  if (roll === 4 && args.length > 0) return JSON.stringify(Object.fromEntries(args.map((a) => [a, jsonValue(rng, 0)])));
  return JSON.stringify(jsonObject(rng, 0, table));
}

/** One request of the grammar. */
export function generateRequest(rng: Prng, target: FuzzTarget, keys: FuzzKeys): FuzzRequest {
  const method = rng.pick(METHODS);
  const { path, table, args } = resourcePath(rng, target);
  const query = queryString(rng, table, args);
  const hasBody = method === 'POST' || method === 'PATCH' || method === 'PUT' || (method === 'DELETE' && rng.chance(0.1));
  return {
    method,
    path: query === '' && rng.chance(0.7) ? path : `${path}?${query}`,
    headers: headers(rng, keys),
    body: hasBody ? body(rng, table, args) : null,
  };
}

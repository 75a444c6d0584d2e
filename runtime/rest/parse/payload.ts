import { JsonTextError, parseJsonText } from '../../http/json.js';
import { invalidBody } from '../errors.js';
import type { ArgsPayload, RawBodyType, RowsPayload } from './ast.js';

export type BodyFormat = 'json' | 'form' | 'csv' | 'text' | 'xml' | 'octet';

/** A request body as read: bytes from the network, text in tests and callers that have it. */
export type RequestBody = string | Buffer | null;

/** Formats that are a single unnamed parameter's raw value, with their type and media type. */
const RAW_FORMATS: Readonly<Partial<Record<BodyFormat, { readonly type: RawBodyType; readonly media: string }>>> = {
  text: { type: 'text', media: 'text/plain' },
  xml: { type: 'xml', media: 'text/xml' },
  octet: { type: 'bytea', media: 'application/octet-stream' },
};

/** The body format from `Content-Type`; absent means JSON. Unsupported → PGRST102. */
export function bodyFormat(contentType: string | undefined): BodyFormat {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === '' || type === 'application/json' || type === 'application/vnd.pgrst.object+json' || type === 'application/vnd.pgrst.object') return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'text/csv') return 'csv';
  if (type === 'text/plain') return 'text';
  if (type === 'text/xml') return 'xml';
  if (type === 'application/octet-stream') return 'octet';
  throw invalidBody(`Content-Type not acceptable: ${type}`);
}

function textOf(body: RequestBody): string {
  return typeof body === 'string' ? body : body?.toString('utf8') ?? '';
}

/** bytea's hex input form of the body's bytes. */
export function byteaHex(body: RequestBody): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body ?? Buffer.alloc(0);
  return `\\x${bytes.toString('hex')}`;
}

/** PGRST102 as PostgREST words it; a body nested too deep says why in `details`. */
function parseJson(text: string): unknown {
  try {
    return parseJsonText(text);
  } catch (error) {
    throw invalidBody('Empty or invalid json', error instanceof JsonTextError && error.problem === 'depth' ? error.message : null);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((k) => set.has(k));
}

/**
 * An object whose keys come from the request: without a prototype, so a key `__proto__` is a name like
 * any other (a column, an argument PostgreSQL then judges) rather than an assignment that drops it.
 */
function keyedByInput<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** CSV body → JSON rows: first line names the columns, `NULL` is null, an empty field is ''. */
function csvToRows(text: string): Record<string, string | null>[] {
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  const endField = (): void => {
    record.push(!wasQuoted && field === 'NULL' ? null : field);
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '"' && text.charAt(i + 1) === '"') { field += '"'; i += 1; }
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') { quoted = true; wasQuoted = true; }
    else if (ch === ',') endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text.charAt(i + 1) === '\n') i += 1;
      endField();
      records.push(record);
      record = [];
    } else field += ch;
  }
  if (field !== '' || wasQuoted || record.length > 0) { endField(); records.push(record); }
  const [header, ...rows] = records;
  if (!header) return [];
  return rows.map((row) => {
    if (row.length !== header.length) throw invalidBody('All lines must have same number of fields');
    const obj = keyedByInput<string | null>();
    header.forEach((name, i) => { obj[name ?? ''] = row[i] ?? null; });
    return obj;
  });
}

function formToObject(text: string): Record<string, string> {
  const obj = keyedByInput<string>();
  for (const [k, v] of new URLSearchParams(text)) obj[k] = v;
  return obj;
}

/**
 * Rows to insert or the values to set. Column list = the `columns=` parameter or the keys
 * of the first object; without `columns=` every object must have the same keys. A JSON
 * object is one row; a JSON scalar inserts nothing (as PostgREST).
 */
export function parseRowsPayload(body: RequestBody, format: BodyFormat, columns: readonly string[] | null): RowsPayload {
  const raw = RAW_FORMATS[format];
  if (raw) throw invalidBody(`Content-Type not acceptable: ${raw.media}`);
  if (format === 'csv') {
    const rows = csvToRows(textOf(body));
    const keys = columns ?? Object.keys(rows[0] ?? {});
    return { kind: 'rows', json: JSON.stringify(rows), keys, rowCount: rows.length };
  }
  if (format === 'form') {
    const row = formToObject(textOf(body));
    return { kind: 'rows', json: JSON.stringify([row]), keys: columns ?? Object.keys(row), rowCount: 1 };
  }
  const text = textOf(body);
  const value = parseJson(text);
  if (isObject(value)) {
    return withAbsent({ kind: 'rows', json: `[${text}]`, keys: columns ?? Object.keys(value), rowCount: 1 }, columns, [value]);
  }
  if (!Array.isArray(value)) return { kind: 'rows', json: '[]', keys: columns ?? [], rowCount: 0 };
  if (!value.every(isObject)) throw invalidBody('All object keys must match');
  const first = value[0] as Record<string, unknown> | undefined;
  const keys = first ? Object.keys(first) : [];
  if (columns === null && !value.every((row) => sameKeys(keys, Object.keys(row as Record<string, unknown>)))) {
    throw invalidBody('All object keys must match');
  }
  return withAbsent({ kind: 'rows', json: text, keys: columns ?? keys, rowCount: value.length }, columns, value as Record<string, unknown>[]);
}

/** Notes the `columns=` keys that no row gives (only then: a row without `columns=` gives all its keys). */
function withAbsent(payload: RowsPayload, columns: readonly string[] | null, rows: readonly Record<string, unknown>[]): RowsPayload {
  if (columns === null) return payload;
  const absent = columns.filter((column) => !rows.some((row) => Object.hasOwn(row, column)));
  return absent.length > 0 ? { ...payload, absent } : payload;
}

/** Query or form arguments as a JSON object of strings; a repeated key becomes an array (a variadic parameter's, or the last value wins). */
function argsObject(args: Iterable<readonly [string, string]>): Record<string, string | string[]> {
  const obj = keyedByInput<string | string[]>();
  for (const [k, v] of args) {
    const prev = obj[k];
    if (prev === undefined) obj[k] = v;
    else obj[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return obj;
}

/** `?columns=` on a call: only those keys are arguments, the rest of the object is ignored (PostgREST). */
function onlyColumns(obj: Record<string, unknown>, columns: readonly string[] | null): Record<string, unknown> {
  if (columns === null) return obj;
  const kept = keyedByInput<unknown>();
  for (const name of columns) if (Object.hasOwn(obj, name)) kept[name] = obj[name];
  return kept;
}

/**
 * RPC POST body: named arguments (an object, where the key "" names an unnamed parameter; of an array
 * of objects the first, as PostgREST), any JSON for a single unnamed json/jsonb parameter, or a raw
 * text/xml/bytea value. A raw body names no argument, so only defaulted parameters or a single unnamed
 * one can take it. `columns` (`?columns=`) keeps only the arguments it names.
 */
export function parseArgsPayload(body: RequestBody, format: BodyFormat, columns: readonly string[] | null = null): ArgsPayload {
  if (format === 'form') {
    const args = onlyColumns(argsObject(new URLSearchParams(textOf(body))), columns);
    return { kind: 'args', json: JSON.stringify(args), keys: Object.keys(args), fromBody: false, raw: null };
  }
  if (format === 'csv') {
    // As PostgREST: the first row names the arguments (strings, like a form's); never a raw body.
    const args = onlyColumns(csvToRows(textOf(body))[0] ?? {}, columns);
    return { kind: 'args', json: JSON.stringify(args), keys: Object.keys(args), fromBody: false, raw: null };
  }
  const raw = RAW_FORMATS[format];
  if (raw) return { kind: 'args', json: raw.type === 'bytea' ? byteaHex(body) : textOf(body), keys: [], fromBody: true, raw: raw.type };
  const text = textOf(body);
  if (text.trim() === '') return { kind: 'args', json: '{}', keys: [], fromBody: true, raw: null };
  const value = parseJson(text);
  const named = isObject(value) ? value : Array.isArray(value) && value.length > 0 && value.every(isObject) ? (value[0] as Record<string, unknown>) : null;
  if (named === null) return { kind: 'args', json: text, keys: null, fromBody: true, raw: null };
  if (named === value && columns === null) return { kind: 'args', json: text, keys: Object.keys(named), fromBody: true, raw: null };
  const args = onlyColumns(named, columns);
  return { kind: 'args', json: JSON.stringify(args), keys: Object.keys(args), fromBody: true, raw: null, whole: text };
}

/** RPC GET/HEAD: query arguments as a JSON object of strings; a repeated key becomes an array. */
export function argsFromQuery(args: ReadonlyArray<readonly [string, string]>): ArgsPayload {
  const obj = argsObject(args);
  return { kind: 'args', json: JSON.stringify(obj), keys: Object.keys(obj), fromBody: false, raw: null };
}

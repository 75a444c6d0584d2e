import { pgrstError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * `application/x-www-form-urlencoded` decoding as PostgREST does it: `+` is a space, valid
 * `%XX` escapes are bytes, a stray `%` stays literal. Invalid UTF-8 or NUL is a PGRST100.
 */
export function decodeComponent(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return checkNul(raw);
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < raw.length; i += 1) {
    const ch = raw.charCodeAt(i);
    if (ch === 43) { bytes.push(32); continue; }
    if (ch === 37 && i + 2 < raw.length && hexValue(raw.charCodeAt(i + 1)) >= 0 && hexValue(raw.charCodeAt(i + 2)) >= 0) {
      bytes.push(hexValue(raw.charCodeAt(i + 1)) * 16 + hexValue(raw.charCodeAt(i + 2)));
      i += 2;
      continue;
    }
    if (ch < 128) { bytes.push(ch); continue; }
    // A raw non-ASCII character (already decoded by the HTTP stack): keep it as UTF-8.
    const cp = raw.codePointAt(i) as number;
    for (const b of encoder.encode(String.fromCodePoint(cp))) bytes.push(b);
    if (cp > 0xffff) i += 1;
  }
  let text: string;
  try {
    text = utf8.decode(Uint8Array.from(bytes));
  } catch {
    throw pgrstError('PGRST100', 'Invalid UTF-8 in the query string', 'Percent-encoded bytes must form valid UTF-8.');
  }
  return checkNul(text);
}

function checkNul(text: string): string {
  if (text.includes('\u0000')) throw pgrstError('PGRST100', 'Invalid character in the query string', 'NUL characters are not allowed.');
  return text;
}

/** Key/value pairs in order; a key without `=` has a null value (PostgREST ignores those). */
export function parseQueryString(query: string): Array<readonly [string, string | null]> {
  const text = query.startsWith('?') ? query.slice(1) : query;
  if (text === '') return [];
  const pairs: Array<readonly [string, string | null]> = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) pairs.push([decodeComponent(part), null]);
    else pairs.push([decodeComponent(part.slice(0, eq)), decodeComponent(part.slice(eq + 1))]);
  }
  return pairs;
}

/**
 * The first value of parameter `name`, decoded by the same rules as every other parameter
 * (its name may be percent-encoded too); null when absent. Malformed escapes are a PGRST100.
 */
export function queryParam(query: string, name: string): string | null {
  // Asked of every data API request (the apikey parameter), which seldom has it: unless escapes could
  // spell the name (or a NUL make the query a PGRST100), the raw text holds the name or no such parameter.
  if (!query.includes(name) && !query.includes('%') && !query.includes('+') && !query.includes('\u0000')) return null;
  for (const [key, value] of parseQueryString(query)) if (key === name && value !== null) return value;
  return null;
}

/** `application/x-www-form-urlencoded` encoding as Haskell's `urlEncode` (PostgREST's canonical query): `A-Za-z0-9-_.~` stay, other UTF-8 bytes are `%XX`. */
function encodeComponent(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * PostgREST's canonical query string (`qsCanonical`, its `Content-Location`): the pairs sorted by key, a repeated
 * key once with its values joined by commas (`urlEncodeVars`), a key without `=` given an empty value.
 */
export function canonicalQuery(pairs: ReadonlyArray<readonly [string, string | null]>): string {
  const byKey = new Map<string, string[]>();
  for (const [key, value] of pairs) {
    const values = byKey.get(key) ?? [];
    values.push(encodeComponent(value ?? ''));
    byKey.set(key, values);
  }
  return [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => `${encodeComponent(key)}=${byKey.get(key)!.join(',')}`).join('&');
}

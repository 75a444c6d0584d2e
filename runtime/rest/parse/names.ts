import { parseError } from '../errors.js';
import type { Cursor } from './cursor.js';

/** PostgreSQL's identifier limit (NAMEDATALEN - 1); longer names would be truncated silently. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * Reserved words that cannot stand as a type name after `::`; letting one through would turn
 * the cast into a syntax error (or into different syntax) inside PostgreSQL.
 */
const RESERVED = new Set([
  'all', 'analyse', 'analyze', 'and', 'any', 'array', 'as', 'asc', 'asymmetric', 'both', 'case', 'cast',
  'check', 'collate', 'column', 'constraint', 'create', 'current_catalog', 'current_date', 'current_role',
  'current_time', 'current_timestamp', 'current_user', 'default', 'deferrable', 'desc', 'distinct', 'do',
  'else', 'end', 'except', 'false', 'fetch', 'for', 'foreign', 'from', 'grant', 'group', 'having', 'in',
  'initially', 'intersect', 'into', 'lateral', 'leading', 'limit', 'localtime', 'localtimestamp', 'not',
  'null', 'offset', 'on', 'only', 'or', 'order', 'placing', 'primary', 'references', 'returning', 'select',
  'session_user', 'some', 'symmetric', 'system_user', 'table', 'then', 'to', 'trailing', 'true', 'union',
  'unique', 'user', 'using', 'variadic', 'when', 'where', 'window', 'with',
]);

/** Multi-word type names PostgreSQL's grammar knows; any other cast is one plain identifier. */
const MULTI_WORD_TYPES = new Set([
  'double precision', 'character varying', 'bit varying', 'timestamp with time zone',
  'timestamp without time zone', 'time with time zone', 'time without time zone',
]);

/**
 * A cast is written into SQL as is (quoting would break `int`, `integer`...), so only plain
 * ASCII type names pass: anything else is a PGRST100 here instead of a syntax error later.
 */
export function validateCast(cast: string, c: Cursor, start: number): void {
  const lower = cast.toLowerCase().replace(/\s+/g, ' ');
  const plain = /^[a-z_][a-z0-9_]*$/.test(lower) && !RESERVED.has(lower);
  if (!plain && !MULTI_WORD_TYPES.has(lower)) {
    throw parseError(c.what, c.input, start + 1, `unexpected ${JSON.stringify(cast)} expecting a type name`);
  }
}

/** Output names chosen by the client (aliases, JSON keys used as keys) must survive as SQL identifiers. */
export function validateOutputName(name: string, what: string, input: string): void {
  if (name.length === 0 || name.includes('\u0000') || Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) {
    throw parseError(what, input, 1, `unexpected ${JSON.stringify(name.slice(0, 80))} expecting a name of 1 to ${MAX_IDENTIFIER_BYTES} bytes without NUL`);
  }
}

import { createHash } from 'node:crypto';
import { pgrstError } from '../errors.js';

/** PostgreSQL's protocol allows 65535 parameters; a request needing more is refused before any SQL. */
export const MAX_PARAMS = 65_535;

/** A statement ready for node-postgres: `$n` placeholders in `text`, their values in `values`. */
export interface SqlQuery {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * Collects bind parameters. Placeholders are numbered in the order the builder asks for them,
 * which depends only on the request's shape, so equal shapes give equal SQL text.
 */
export class Params {
  readonly values: unknown[] = [];
  /** Where `body` put the request body's JSON in `values` (see BuiltStatement.bodyParam); undefined until then. */
  bodyIndex: number | undefined;

  /** `$n` for a value PostgreSQL types from its context (an "unknown" literal, as PostgREST sends them). */
  add(value: unknown): string {
    if (this.values.length >= MAX_PARAMS) {
      throw pgrstError('PGRST100', 'Too many values in the request', `A statement takes at most ${MAX_PARAMS} parameters.`);
    }
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** `$n::type` for a value whose type must not be inferred; `type` is trusted SQL (metadata or a constant). */
  typed(value: unknown, type: string): string {
    return `${this.add(value)}::${type}`;
  }

  /** `$n::json` for a write's body, the one value the statement takes from it; its place is kept in `bodyIndex`. */
  body(json: string): string {
    const placeholder = this.typed(json, 'json');
    this.bodyIndex = this.values.length - 1;
    return placeholder;
  }
}

/** A PostgreSQL array literal `{"a","b\"c"}` for `= ANY($n)`; every element quoted and escaped. */
export function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((i) => `"${i.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`).join(',')}}`;
}

const NAME_CACHE_LIMIT = 2000;
const names = new Map<string, string>();

/**
 * A stable name for a named prepared statement: equal text, equal name. The runtime keys its
 * prepared-statement cache on this (63 chars max for PostgreSQL names; 24 used). Hashing is
 * memoised because the same few shapes repeat on the hot path.
 */
export function statementName(text: string): string {
  const known = names.get(text);
  if (known !== undefined) return known;
  const name = `pgrst_${createHash('sha1').update(text).digest('base64url').slice(0, 18)}`;
  if (names.size >= NAME_CACHE_LIMIT) names.clear();
  names.set(text, name);
  return name;
}

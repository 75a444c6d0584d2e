import type { IncomingHttpHeaders } from 'node:http';
import type { ApiRequest, RowsPayload } from './parse/ast.js';
import { withBody, type BuiltStatement } from './sql/statement.js';

/** A parsed request and its statement: everything a read needs before it runs. */
export interface Plan {
  readonly request: ApiRequest;
  readonly built: BuiltStatement;
}

/** The request headers parsing reads; every other header leaves the statement unchanged. */
const SHAPING_HEADERS = ['accept', 'prefer', 'range', 'accept-profile', 'content-profile', 'content-type'] as const;
const MAX_KEY_LENGTH = 4096;

/** Everything but a body that a request's statement is built from: method, path, query string and the shaping headers. */
function shapeKey(method: string, path: string, query: string, headers: IncomingHttpHeaders): string {
  let key = `${method} ${path}?${query}`;
  for (const name of SHAPING_HEADERS) {
    const value = headers[name];
    if (value !== undefined) key += `\n${name}:${Array.isArray(value) ? value.join('\n') : value}`;
  }
  return key;
}

/**
 * Plans by everything they are built from. A repeated read (GET, HEAD) skips parsing and SQL
 * building; a write with a body is parsed, and skips SQL building when an earlier body had the
 * same keys (its statement takes the new body's JSON: `withBody`). The statement carries no
 * identity (role and claims go in with set_config), so a plan serves every caller. Bounded;
 * the oldest entry goes first.
 */
export class PlanCache {
  private readonly plans = new Map<string, Plan>();
  /** Write statements by `writeKeyOf`, without their body's JSON (a body can be megabytes). */
  private readonly statements = new Map<string, BuiltStatement>();

  constructor(private readonly capacity = 1000) {}

  /** The key of a cacheable read, or null (requests with a body, very long URLs). */
  keyOf(method: string, path: string, query: string, headers: IncomingHttpHeaders): string | null {
    if (method !== 'GET' && method !== 'HEAD') return null;
    const key = shapeKey(method, path, query, headers);
    return key.length > MAX_KEY_LENGTH ? null : key;
  }

  /** The key of a write's statement: its shape and the body's keys (in order), whether it has rows, and the keys it leaves absent. */
  writeKeyOf(method: string, path: string, query: string, headers: IncomingHttpHeaders, payload: RowsPayload): string | null {
    const key = `${shapeKey(method, path, query, headers)}\nbody:${payload.rowCount === 0 ? 'empty' : 'rows'}`
      + `:${JSON.stringify(payload.keys)}:${JSON.stringify(payload.absent ?? [])}`;
    return key.length > MAX_KEY_LENGTH ? null : key;
  }

  get(key: string): Plan | undefined {
    return this.plans.get(key);
  }

  set(key: string, plan: Plan): void {
    remember(this.plans, this.capacity, key, plan);
  }

  /** The statement kept under `key`, with `json` as its body; undefined when none is kept. */
  statementFor(key: string, json: string): BuiltStatement | undefined {
    const kept = this.statements.get(key);
    return kept && (withBody(kept, json) ?? undefined);
  }

  /** Keeps a write's statement for later bodies with the same keys (one whose body is not a single value is not kept). */
  keepStatement(key: string, built: BuiltStatement): void {
    const bare = withBody(built, '');
    if (bare) remember(this.statements, this.capacity, key, bare);
  }
}

function remember<V>(map: Map<string, V>, capacity: number, key: string, value: V): void {
  if (map.size >= capacity) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

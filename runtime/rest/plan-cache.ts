import type { IncomingHttpHeaders } from 'node:http';
import type { ApiRequest } from './parse/ast.js';
import type { BuiltStatement } from './sql/statement.js';

/** A parsed request and its statement: everything a read needs before it runs. */
export interface Plan {
  readonly request: ApiRequest;
  readonly built: BuiltStatement;
}

/** The request headers parsing reads; every other header leaves the statement unchanged. */
const SHAPING_HEADERS = ['accept', 'prefer', 'range', 'accept-profile', 'content-profile', 'content-type'] as const;
const MAX_KEY_LENGTH = 4096;

/**
 * Plans of bodiless requests (GET, HEAD) by everything they are built from: method, path,
 * query string and the shaping headers. A repeated read skips parsing and SQL building;
 * the statement carries no identity (role and claims go in with set_config), so a plan
 * serves every caller. Bounded; the oldest entry goes first.
 */
export class PlanCache {
  private readonly plans = new Map<string, Plan>();

  constructor(private readonly capacity = 1000) {}

  /** The key of a cacheable request, or null (requests with a body, very long URLs). */
  keyOf(method: string, path: string, query: string, headers: IncomingHttpHeaders): string | null {
    if (method !== 'GET' && method !== 'HEAD') return null;
    let key = `${method} ${path}?${query}`;
    for (const name of SHAPING_HEADERS) {
      const value = headers[name];
      if (value !== undefined) key += `\n${name}:${Array.isArray(value) ? value.join('\n') : value}`;
    }
    return key.length > MAX_KEY_LENGTH ? null : key;
  }

  get(key: string): Plan | undefined {
    return this.plans.get(key);
  }

  set(key: string, plan: Plan): void {
    if (this.plans.size >= this.capacity) {
      const oldest = this.plans.keys().next();
      if (!oldest.done) this.plans.delete(oldest.value);
    }
    this.plans.set(key, plan);
  }
}

import type { ApiError } from '../../../runtime/rest/errors.js';
import type { ApiRequest } from '../../../runtime/rest/parse/ast.js';
import type { RequestBody } from '../../../runtime/rest/parse/payload.js';
import { parseRequest } from '../../../runtime/rest/parse/request.js';

export interface RequestOptions {
  readonly rpc?: boolean;
  readonly headers?: Record<string, string>;
  readonly body?: RequestBody;
  readonly schemas?: readonly string[];
}

/** Parses a request the way the HTTP layer will call the parser. */
export function request(method: string, target: string, query: string, options: RequestOptions = {}): ApiRequest {
  return parseRequest({
    method,
    resource: { kind: options.rpc ? 'rpc' : 'table', name: target },
    query,
    headers: options.headers ?? {},
    body: options.body ?? null,
    schemas: options.schemas ?? ['public'],
  });
}

/** The ApiError `fn` throws, as its JSON body plus status (fails the test when nothing is thrown). */
export function errorOf(fn: () => unknown): { status: number; body: ReturnType<ApiError['toJSON']> } {
  try {
    fn();
  } catch (err) {
    const e = err as ApiError;
    if (typeof e.toJSON !== 'function') throw err;
    return { status: e.status, body: e.toJSON() };
  }
  throw new Error('expected an ApiError');
}

import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOW_HEADERS = [
  'accept',
  'accept-profile',
  'apikey',
  'authorization',
  'content-profile',
  'content-type',
  'idempotency-key',
  'prefer',
  'range',
  'x-client-info',
  'x-supabase-api-version',
].join(', ');

const EXPOSE_HEADERS = [
  'Content-Location',
  'Content-Range',
  'Link',
  'Location',
  'Preference-Applied',
  'Range-Unit',
  'Retry-After',
  'X-Supabase-Api-Version',
  'X-Total-Count',
  'X-Sb-Error-Code',
  'X-Request-Id',
].join(', ');

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * The CORS headers of every answer. Any origin, as PostgREST without `server-cors-allowed-origins`
 * and Supabase's gateway answer: `*`, so the answer does not vary by Origin (credentials travel as
 * bearer tokens, never cookies).
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSE_HEADERS,
};

export function setCorsHeaders(res: ServerResponse): void {
  for (const name in CORS_HEADERS) res.setHeader(name, CORS_HEADERS[name]!);
}

/** Whether the request is a CORS preflight, which applyCors answers. */
export function isCorsPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' && Boolean(req.headers['access-control-request-method']);
}

/**
 * CORS for every route: browsers are the main client. Sets CORS_HEADERS; returns true when the
 * request was a preflight and has been answered.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): boolean {
  setCorsHeaders(res);
  if (!isCorsPreflight(req)) return false;
  res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
  res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? ALLOW_HEADERS);
  res.setHeader('Access-Control-Max-Age', '86400');
  res.statusCode = 204;
  res.end();
  return true;
}

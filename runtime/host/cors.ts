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
].join(', ');

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * CORS for every route: browsers are the main client. Any origin, as PostgREST without
 * `server-cors-allowed-origins` and Supabase's gateway answer: `*`, so the answer does not vary
 * by Origin (credentials travel as bearer tokens, never cookies). Returns true when the request
 * was a preflight and has been answered.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): boolean {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', '86400');
    res.statusCode = 204;
    res.end();
    return true;
  }
  return false;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { InFlight } from './app.js';
import { applyCors, isCorsPreflight, setCorsHeaders } from './cors.js';
import { sendJson } from '../http/json-response.js';
import type { ProjectDirectory } from './project-directory.js';
import { trackRequest } from './request-tracking.js';

const PROJECT_PREFIX = '/v1/';
const REST_PREFIX = '/rest/v1';

/**
 * Data API requests (`/v1/<ref>/rest/v1/...`) straight to the project's data API,
 * without express's routing layers: they are the hot path (perf.md measured express at
 * ~57 µs a request). Returns false for anything else, which the express app serves.
 */
export function createRestFastPath(directory: ProjectDirectory, log: Logger, inFlight: InFlight): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith(PROJECT_PREFIX)) return false;
    const slash = url.indexOf('/', PROJECT_PREFIX.length);
    if (slash < 0 || !url.startsWith(REST_PREFIX, slash)) return false;
    const start = slash + REST_PREFIX.length;
    const q = url.indexOf('?', start);
    const path = url.slice(start, q < 0 ? undefined : q);
    if (path !== '' && !path.startsWith('/')) return false;
    const rest = directory.get(url.slice(PROJECT_PREFIX.length, slash))?.rest;
    if (!rest) return false;
    trackRequest(req, res, log, inFlight);
    // The handler writes CORS_HEADERS with its own in one writeHead (server-factory.ts).
    if (isCorsPreflight(req)) return applyCors(req, res);
    rest(req, res, path === '' ? '/' : path, q < 0 ? '' : url.slice(q + 1)).catch((error: unknown) => {
      log.error({ err: error }, 'unhandled error');
      if (res.headersSent) res.destroy();
      else {
        setCorsHeaders(res);
        sendJson(res, 500, { message: 'internal server error', code: 'XX000', details: null, hint: null });
      }
    });
    return true;
  };
}

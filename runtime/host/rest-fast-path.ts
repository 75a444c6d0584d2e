import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestEnvelope } from './envelope.js';
import type { ProjectDirectory } from './project-directory.js';
import { restRoute } from './request-route.js';
import { setCorsHeaders } from './cors.js';
import { answerPaused, runsWhilePaused } from './move-pause.js';

const PROJECT_PREFIX = '/v1/';
const REST_PREFIX = '/rest/v1';

/**
 * Data API requests (`/v1/<ref>/rest/v1/...`) straight to the project's data API,
 * without express's routing layers: they are the hot path (performance.md measured express at
 * ~57 µs a request). Returns false for anything else, which the express app serves.
 */
export function createRestFastPath(directory: ProjectDirectory, envelope: RequestEnvelope): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith(PROJECT_PREFIX)) return false;
    const slash = url.indexOf('/', PROJECT_PREFIX.length);
    if (slash < 0 || !url.startsWith(REST_PREFIX, slash)) return false;
    const start = slash + REST_PREFIX.length;
    const q = url.indexOf('?', start);
    const path = url.slice(start, q < 0 ? undefined : q);
    if (path !== '' && !path.startsWith('/')) return false;
    const ref = url.slice(PROJECT_PREFIX.length, slash);
    const rest = directory.get(ref)?.rest;
    if (!rest) return false;
    const scope = envelope.enterFast(req, res, ref, restRoute(path));
    if (scope === null) return true;
    if (directory.isPaused(ref) && !runsWhilePaused(req.method, REST_PREFIX)) {
      setCorsHeaders(res);
      answerPaused(res, ref);
      return true;
    }
    envelope.within(req, () => rest(req, res, path === '' ? '/' : path, q < 0 ? '' : url.slice(q + 1))).catch((error: unknown) => envelope.failed(res, error, scope));
    return true;
  };
}

import type { ServerResponse } from 'node:http';
import { sendJson } from '../http/json-response.js';

/** Seconds a client is told to wait while its project moves: a move's interruption is a few seconds. */
export const MOVE_RETRY_AFTER_SECONDS = 1;

/**
 * Whether a request of a project being moved runs anyway: reads of the data API, its OpenAPI
 * document and docs (PostgREST runs GET and HEAD in read-only transactions, so they cannot write to
 * the database being copied) and CORS preflights. Auth's GETs are not among them: some write
 * (/verify, /authorize).
 */
export function runsWhilePaused(method: string | undefined, pathInProject: string): boolean {
  if (method === 'OPTIONS') return true;
  return (method === 'GET' || method === 'HEAD') && !pathInProject.startsWith('/auth/');
}

/** 503 with Retry-After: the write was not made, and the client may send it again shortly. */
export function answerPaused(res: ServerResponse, ref: string): void {
  res.setHeader('Retry-After', String(MOVE_RETRY_AFTER_SECONDS));
  sendJson(res, 503, {
    message: `Project "${ref}" is being moved to another database cluster; its writes resume within seconds. Retry.`,
    code: 'project_moving',
    details: null,
    hint: null,
  });
}

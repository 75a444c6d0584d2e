import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { ConnectionBudgetError } from '../db/connection-budget.js';
import { sendJson } from '../http/json-response.js';
import { toApiError } from '../rest/errors.js';
import { applyCors } from './cors.js';
import { healthRoutes, type ReadinessReport } from './health.js';
import { ProjectUnavailableError, type ProjectDirectory, type ServedProject } from './project-directory.js';
import { trackRequest } from './request-tracking.js';

/** Tracks requests in flight so shutdown can wait for them. */
export interface InFlight {
  count: number;
}

/**
 * The project host: `/health` (readiness) and `/health/live`, and every project at `/v1/<ref>` dispatched to the
 * server the directory currently holds for it. The directory may swap a project's
 * server at any moment; a request keeps the one it started with.
 */
export function createHostApp(directory: ProjectDirectory, log: Logger, inFlight: InFlight, readiness: () => Promise<ReadinessReport>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req: Request, res: Response, next: NextFunction) => {
    trackRequest(req, res, log, inFlight);
    if (applyCors(req, res)) return;
    next();
  });

  app.use(healthRoutes(readiness, () => ({ projects: directory.refs().length })));

  app.use('/v1/:ref', async (req: Request<{ ref: string }>, res: Response, next: NextFunction) => {
    let project: ServedProject | undefined;
    try {
      project = await directory.load(req.params.ref);
    } catch (error) {
      if (error instanceof ConnectionBudgetError) {
        const answer = toApiError(error);
        for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
        sendJson(res, answer.status, answer.toJSON());
        return;
      }
      if (!(error instanceof ProjectUnavailableError)) throw error;
      // PostgREST's answer while its schema cache cannot be loaded: retry shortly.
      res.setHeader('Retry-After', '1');
      sendJson(res, 503, { message: error.message, code: error.code, details: null, hint: null });
      return;
    }
    if (!project) {
      sendJson(res, 404, { message: `project "${req.params.ref}" not found`, code: 'PGRST125', details: null, hint: null });
      return;
    }
    project.handler(req, res, next);
  });

  app.use((_req: Request, res: Response) => {
    sendJson(res, 404, { message: 'not found', code: 'PGRST125', details: null, hint: null });
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    log.error({ err: error }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      sendJson(res, status, { message: (error as Error).message, code: 'PGRST102', details: null, hint: null });
      return;
    }
    sendJson(res, 500, { message: 'internal server error', code: 'XX000', details: null, hint: null });
  });
  return app;
}

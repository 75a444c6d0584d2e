import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ConnectionBudgetError } from '../db/connection-budget.js';
import { sendJson } from '../http/json-response.js';
import { toApiError } from '../rest/errors.js';
import { sendHostError, type RequestEnvelope } from './envelope.js';
import { healthRoutes, type ReadinessReport } from './health.js';
import { ProjectUnavailableError, type ProjectDirectory, type ServedProject } from './project-directory.js';
import { answerPaused, runsWhilePaused } from './move-pause.js';

/**
 * The project host: `/health` (readiness) and `/health/live`, and every project at `/v1/<ref>` dispatched to the
 * server the directory currently holds for it. The directory may swap a project's
 * server at any moment; a request keeps the one it started with.
 */
export function createHostApp(directory: ProjectDirectory, envelope: RequestEnvelope, readiness: () => Promise<ReadinessReport>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!envelope.enter(req, res)) envelope.within(req, next);
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
      sendHostError(res, 503, error.code, error.message);
      return;
    }
    if (!project) {
      envelope.notFound(res, `project "${req.params.ref}" not found`);
      return;
    }
    envelope.served(req);
    if (directory.isPaused(req.params.ref) && !runsWhilePaused(req.method, req.path)) {
      answerPaused(res, req.params.ref);
      return;
    }
    project.handler(req, res, next);
  });

  app.use((_req: Request, res: Response) => envelope.notFound(res));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => envelope.failed(res, error));
  return app;
}

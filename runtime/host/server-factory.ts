import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { createAuthRouter } from '../auth/router.js';
import { loadOpenApiDocuments } from '../docs/document.js';
import { createDocsRouter } from '../docs/router.js';
import { createRestHandler } from '../rest/server.js';
import { sendJson } from '../http/json-response.js';
import { loadExtension } from '../extensions/loader.js';
import { loadGeneratedDefinition } from './project-loader.js';
import type { ServerFactory } from './project-directory.js';

function notFound(ref: string) {
  return (req: Request, res: Response) => {
    sendJson(res, 404, { message: `no route for ${req.method} ${req.path} in project "${ref}"`, code: 'PGRST125', details: null, hint: null });
  };
}

/**
 * A project's server: the runtime's auth routes, the data API built from its
 * generated definition, and a JSON 404 in the data API's error shape for anything
 * else.
 */
export function createServerFactory(
  generatedDir: string,
  runtime: Readonly<Record<string, unknown>>,
  log: Logger,
  extensionsDir: string | null = null,
): ServerFactory {
  return async (ctx) => {
    const definition = await loadGeneratedDefinition(generatedDir, ctx.ref, runtime);
    // A broken extension fails the load: the directory keeps serving the version it has (and logs why).
    const extension = definition && extensionsDir ? await loadExtension(extensionsDir, definition, runtime) : null;
    const openapi = await loadOpenApiDocuments(generatedDir, ctx.ref, definition?.project.schemas ?? []);
    const router = express.Router();
    router.use('/auth/v1', createAuthRouter(ctx, { log }));
    const handleRest = definition ? createRestHandler(ctx, definition, extension && { extension, log }) : null;
    if (handleRest) {
      router.use('/rest/v1', (req: Request, res: Response, next: NextFunction) => {
        const q = req.originalUrl.indexOf('?');
        handleRest(req, res, req.path, q < 0 ? '' : req.originalUrl.slice(q + 1)).catch(next);
      });
    }
    router.use(createDocsRouter(ctx, openapi));
    router.use(notFound(ctx.ref));
    return { handler: router, fingerprint: definition?.fingerprint ?? null, rest: handleRest };
  };
}

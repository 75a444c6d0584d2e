import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { createAuthRouter } from '../auth/router.js';
import { loadOpenApiDocuments } from '../docs/document.js';
import { createDocsRouter } from '../docs/router.js';
import { createRestHandler } from '../rest/server.js';
import { sendJson } from '../http/json-response.js';
import { createFunctionsHandler } from '../extensions/functions.js';
import { loadExtension } from '../extensions/loader.js';
import { functionPaths, withFunctionPaths } from '../extensions/openapi.js';
import { loadGeneratedDefinition } from './project-loader.js';
import type { ServerFactory } from './project-directory.js';

function notFound(ref: string) {
  return (req: Request, res: Response) => {
    sendJson(res, 404, { message: `no route for ${req.method} ${req.path} in project "${ref}"`, code: 'PGRST125', details: null, hint: null });
  };
}

/** An express mount of a handler that takes the path below the mount point and the raw query string. */
function mounted(handler: (req: Request, res: Response, path: string, query: string) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const q = req.originalUrl.indexOf('?');
    handler(req, res, req.path, q < 0 ? '' : req.originalUrl.slice(q + 1)).catch(next);
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
    const generatedDocs = await loadOpenApiDocuments(generatedDir, ctx.ref, definition?.project.schemas ?? []);
    // Served with the extension as loaded, so an edited route is documented as soon as it is served.
    const openapi = generatedDocs && { ...generatedDocs, main: { ...generatedDocs.main, document: withFunctionPaths(generatedDocs.main.document, extension ? functionPaths(extension) : {}) } };
    const router = express.Router();
    router.use('/auth/v1', createAuthRouter(ctx, { log }));
    const handleRest = definition ? createRestHandler(ctx, definition, extension && { extension, log }) : null;
    if (handleRest) router.use('/rest/v1', mounted(handleRest));
    if (extension) router.use('/functions/v1', mounted(createFunctionsHandler(ctx, extension, log)));
    router.use(createDocsRouter(ctx, openapi));
    router.use(notFound(ctx.ref));
    return { handler: router, fingerprint: definition?.fingerprint ?? null, rest: handleRest };
  };
}

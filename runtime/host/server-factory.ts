import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { createAuthRouter } from '../auth/router.js';
import { sendJson } from './json-response.js';
import { loadGeneratedDefinition } from './project-loader.js';
import type { ServerFactory } from './project-directory.js';

/**
 * A project's server: the runtime's auth routes, the data API, OpenAPI and docs
 * built from its generated definition, and a JSON 404 in the data API's error
 * shape for anything else.
 */
export function createServerFactory(generatedDir: string, runtime: Readonly<Record<string, unknown>>, log: Logger): ServerFactory {
  return async (ctx) => {
    const definition = await loadGeneratedDefinition(generatedDir, ctx.ref, runtime);
    const router = express.Router();
    router.use('/auth/v1', createAuthRouter(ctx, { log }));
    router.use((req: Request, res: Response) => {
      sendJson(res, 404, { message: `no route for ${req.method} ${req.path} in project "${ctx.ref}"`, code: 'PGRST125', details: null, hint: null });
    });
    return { handler: router, fingerprint: definition?.fingerprint ?? null };
  };
}

import express, { type Request, type Response } from 'express';
import { sendJson } from './json-response.js';
import { loadGeneratedServer } from './project-loader.js';
import type { ServerFactory } from './project-directory.js';

/**
 * A project's server: its generated code (data API, OpenAPI, docs) behind the
 * runtime's auth routes, and a JSON 404 in the data API's error shape for anything
 * else (which is everything but auth until the project has generated code).
 */
export function createServerFactory(generatedDir: string, runtime: Readonly<Record<string, unknown>>): ServerFactory {
  return async (ctx) => {
    const generated = await loadGeneratedServer(generatedDir, ctx.ref, runtime);
    const router = express.Router();
    if (generated) router.use(generated.createServer(ctx));
    router.use((req: Request, res: Response) => {
      sendJson(res, 404, { message: `no route for ${req.method} ${req.path} in project "${ctx.ref}"`, code: 'PGRST125', details: null, hint: null });
    });
    return { handler: router, fingerprint: generated?.fingerprint ?? null };
  };
}

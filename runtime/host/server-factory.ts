import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { createAuthRouter } from '../auth/router.js';
import { loadOpenApiDocuments } from '../docs/document.js';
import { createDocsRouter } from '../docs/router.js';
import { createRestHandler } from '../rest/server.js';
import { createFunctionsHandler } from '../extensions/functions.js';
import { dataApiHooks } from '../extensions/hooked.js';
import { declaredHookTables, ExtensionLoadError, loadExtension } from '../extensions/loader.js';
import { extensionUnavailableError, type UnavailableExtension } from '../extensions/unavailable.js';
import type { Extension } from '../extensions/define.js';
import type { ProjectDefinition } from '../rest/routes.js';
import { writeError } from '../rest/respond.js';
import { functionPaths, withFunctionPaths } from '../extensions/openapi.js';
import { CORS_HEADERS } from './cors.js';
import { sendHostError } from './envelope.js';
import { metrics } from '../metrics.js';
import { loadGeneratedDefinition } from './project-loader.js';
import { generatedFingerprint } from '../generated-files.js';
import type { ServerFactory } from './project-directory.js';

function notFound(ref: string) {
  return (req: Request, res: Response) => {
    sendHostError(res, 404, 'PGRST125', `no route for ${req.method} ${req.path} in project "${ref}"`);
  };
}

/** An express mount of a handler that takes the path below the mount point and the raw query string. */
function mounted(handler: (req: Request, res: Response, path: string, query: string) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const q = req.originalUrl.indexOf('?');
    handler(req, res, req.path, q < 0 ? '' : req.originalUrl.slice(q + 1)).catch(next);
  };
}

type HookTables = { readonly schema: string; readonly tables: ReadonlySet<string> };

/**
 * A project's server: the runtime's auth routes, the data API built from its
 * generated definition, and a JSON 404 in the data API's error shape for anything
 * else.
 *
 * An extension that does not load: when the served version has the same generated code (only the
 * extension was edited), the load fails and the directory keeps serving that version. When the schema
 * changed under it (a forced migration, DDL from psql), the old code no longer matches the database,
 * so the new code is served without the extension: tables it does not hook stay fully served, and what
 * needs its hooks or routes is answered 503 until an edit or a schema change lets it load.
 */
export function createServerFactory(
  generatedDir: string,
  runtime: Readonly<Record<string, unknown>>,
  log: Logger,
  extensionsDir: string | null = null,
): ServerFactory {
  // The tables each project's extension hooked when it last loaded: what to refuse if it stops loading.
  const lastHooked = new Map<string, HookTables>();

  async function extensionFor(definition: ProjectDefinition, fingerprint: string | null, served: { readonly fingerprint: string | null } | null) {
    if (!extensionsDir) return { extension: null, unavailable: null };
    try {
      const extension = await loadExtension(extensionsDir, definition, runtime, generatedDir);
      if (extension) lastHooked.set(definition.ref, { schema: extension.extension.schema, tables: new Set(Object.keys(extension.extension.tables)) });
      else lastHooked.delete(definition.ref);
      return { extension, unavailable: null };
    } catch (error) {
      if (error instanceof ExtensionLoadError) metrics.extensionLoadFailed(definition.ref);
      if (!(error instanceof ExtensionLoadError) || served?.fingerprint === fingerprint) throw error;
      const hooked = (await declaredHookTables(extensionsDir, definition.ref, runtime)) ?? lastHooked.get(definition.ref);
      const unavailable: UnavailableExtension = hooked ?? { schema: definition.project.schemas[0] ?? 'public', tables: null };
      log.error(
        { ref: definition.ref, problems: error.problems, hooked: unavailable.tables && [...unavailable.tables].sort() },
        `${error.message}\nserving the project without it: requests that need its hooks or routes answer 503`,
      );
      return { extension: null, unavailable };
    }
  }

  return async (ctx, served) => {
    const definition = await loadGeneratedDefinition(generatedDir, ctx.ref, runtime);
    const fingerprint = definition ? await generatedFingerprint(generatedDir, ctx.ref) : null;
    const { extension, unavailable } = definition ? await extensionFor(definition, fingerprint, served) : { extension: null, unavailable: null };
    const generatedDocs = await loadOpenApiDocuments(generatedDir, ctx.ref, definition?.project.schemas ?? []);
    // Served with the extension as loaded, so an edited route is documented as soon as it is served.
    const openapi = generatedDocs && { ...generatedDocs, main: { ...generatedDocs.main, document: withFunctionPaths(generatedDocs.main.document, extension ? functionPaths(extension.extension) : {}) } };
    const router = express.Router();
    router.use('/auth/v1', createAuthRouter(ctx, { log }));
    const handleRest = definition ? createRestHandler(ctx, definition, dataApiHooks(ctx, definition.project, extension && { ...extension, log }, unavailable), CORS_HEADERS) : null;
    if (handleRest) router.use('/rest/v1', mounted(handleRest));
    if (extension) router.use('/functions/v1', mounted(createFunctionsHandler(ctx, { ...extension, log })));
    if (unavailable) router.use('/functions/v1', (_req: Request, res: Response) => writeError(res, extensionUnavailableError(ctx.ref), false));
    router.use(createDocsRouter(ctx, openapi));
    router.use(notFound(ctx.ref));
    return { handler: router, fingerprint, rest: handleRest };
  };
}

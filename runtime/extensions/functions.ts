import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody } from '../http/body.js';
import { JsonTextError, parseJsonText } from '../http/json.js';
import type { ProjectContext } from '../platform/project-context.js';
import { authenticate, requestIdentity } from '../rest/credentials.js';
import { ApiError, invalidBody, pgrstError, toApiError } from '../rest/errors.js';
import { queryParam } from '../rest/parse/query-string.js';
import { decodePathSegment } from '../rest/parse/request.js';
import { writeError, writeResponse } from '../rest/respond.js';
import { MAX_BODY_BYTES } from '../rest/server.js';
import { logExtensionFault, requestScope, runEffects } from './context.js';
import type { LoadedExtension } from './loader.js';
import { queryInput } from './query-input.js';
import { validate, withNumbers } from './schema.js';

/** `/functions/v1/<name>` of a project: its extension's custom routes. `path` is the part after `/functions/v1`. */
export type FunctionsHandler = (req: IncomingMessage, res: ServerResponse, path: string, query: string) => Promise<void>;

/**
 * Whether a body is JSON by its Content-Type: `application/json`, any `+json` type, or none (as the data API
 * takes a body without one). PostgREST refuses another type with 400 `PGRST102` "Content-Type not acceptable".
 */
function jsonMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === '' || type === 'application/json' || /^application\/[^/]+\+json$/.test(type);
}

async function inputOf(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (!jsonMediaType(req.headers['content-type'])) throw invalidBody(`Content-Type not acceptable: ${req.headers['content-type'] ?? ''}`);
  let body: Buffer;
  try {
    body = await readBody(req, res, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ApiError(413, 'PGRST413', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
    throw error;
  }
  try {
    return parseJsonText(body.toString('utf8'));
  } catch (error) {
    throw invalidBody('Empty or invalid json', error instanceof JsonTextError && error.problem === 'depth' ? error.message : null);
  }
}

/** A handler's result its output schema does not allow: a bug of the route, answered without its value (logged). */
function outputMismatch(name: string): ApiError {
  return new ApiError(500, 'route_output_mismatch', `Function '${name}' answered a value its output schema does not allow`);
}

/**
 * Custom routes at `/functions/v1/<name>`, where supabase-js `functions.invoke(name, { body })` sends
 * its request. A POST route's JSON body, or a GET route's query string (`functions.invoke('name?limit=5',
 * { method: 'GET' })`), is validated against the route's input schema (400 `PGRST102`, the problems in
 * `details`), then the handler runs in one transaction as the caller's role — read-write for POST,
 * read-only for GET — as a data API request does: its queries obey RLS, a thrown ExtensionError
 * answers with its status and code and rolls everything back. Its result, whole numbers that came as
 * strings made numbers (`withNumbers`), must match the output schema: else the transaction rolls back
 * and the answer is 500 `route_output_mismatch`. 200 with the result as JSON.
 */
export function createFunctionsHandler(ctx: ProjectContext, loaded: LoadedExtension): FunctionsHandler {
  const { extension, log } = loaded;
  return async (req, res, path, query) => {
    let what = 'route';
    try {
      const claims = authenticate(req.headers, ctx.keyring, queryParam(query, 'apikey'));
      const name = decodePathSegment(path.replace(/^\/+|\/+$/g, ''));
      what = `route "${name}"`;
      const route = Object.hasOwn(extension.routes, name) ? extension.routes[name] : undefined;
      if (!route) throw pgrstError('PGRST125', `Could not find the function '${name}' of project "${ctx.ref}"`);
      const method = route.method ?? 'POST';
      if (req.method !== method) {
        res.setHeader('Allow', method);
        throw pgrstError('PGRST117', `Unsupported HTTP method: ${req.method ?? ''}`);
      }
      let input: unknown;
      const problems: string[] = [];
      if (method === 'GET') {
        const fromQuery = queryInput(route.input, new URLSearchParams(query), ['apikey']);
        input = fromQuery.value;
        problems.push(...fromQuery.problems);
      } else {
        input = await inputOf(req, res);
      }
      problems.push(...validate(route.input, input));
      if (problems.length > 0) throw invalidBody(`Invalid input for function '${name}'`, problems.join('; '));
      const identity = requestIdentity(req, claims, `/functions/v1/${name}`, {
        schema: extension.schema,
        extraSearchPath: ctx.settings['api.extra_search_path'],
        timezone: null,
        preRequest: '',
        appSettings: ctx.settings['app.settings'],
      });
      let effects: (() => void | Promise<void>)[] = [];
      const { value } = await ctx.executor.interactive(identity, { readOnly: method === 'GET' }, async (run) => {
        const scope = requestScope(run, claims);
        effects = scope.effects;
        const result = withNumbers(route.output, (await route.handler(input, scope.context)) ?? null);
        const wrong = validate(route.output, result);
        if (wrong.length > 0) {
          log.error({ ref: ctx.ref, route: name, problems: wrong }, 'extension route answered a value its output schema does not allow');
          throw outputMismatch(name);
        }
        return { commit: true, value: result };
      });
      await runEffects(effects, loaded, ctx.ref);
      writeResponse(res, { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: JSON.stringify(value) });
    } catch (error) {
      logExtensionFault(error, loaded, ctx.ref, what);
      writeError(res, toApiError(error), false);
    }
  };
}

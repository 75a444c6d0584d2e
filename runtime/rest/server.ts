import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProjectContext } from '../platform/project-context.js';
import type { ProjectClaims } from '../tokens/jwt.js';
import type { RequestIdentity, TxStatement } from '../db/rls-transaction.js';
import { BodyTooLargeError, readBody } from '../http/body.js';
import { assignedRequestId } from '../http/request-id.js';
import { allowedMethods } from './allowed-methods.js';
import { authenticate, requestIdentity } from './credentials.js';
import { ApiError, pgrstError, toApiError } from './errors.js';
import type { ApiRequest, PlanRequest } from './parse/ast.js';
import { parseProfile } from './parse/headers.js';
import { queryParam } from './parse/query-string.js';
import { decodePathSegment, parseRequest } from './parse/request.js';
import { mediaHandlersOf } from './media-handlers.js';
import { mayCommit, needsCommitDecision, planResponse, respond, writeError, writeResponse, type RestResponse } from './respond.js';
import type { ProjectDefinition } from './routes.js';
import { PlanCache, type Plan } from './plan-cache.js';
import { inSpanSync } from '../tracing.js';
import { buildStatement } from './sql/build.js';
import type { ResultRow } from './sql/envelope.js';
import { explainSql, planText } from './sql/explain.js';
import { statementName } from './sql/params.js';
import { plannedRowsFromExplain, type BuiltStatement } from './sql/statement.js';

/** Largest request body the data API reads (bulk inserts included). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

async function bodyOf(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
  if (!WRITE_METHODS.has(req.method ?? '')) return null;
  try {
    const body = await readBody(req, res, MAX_BODY_BYTES);
    return body.length === 0 ? null : body;
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ApiError(413, 'PGRST413', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
    throw error;
  }
}

/** `/rest/v1/<name>` is a table, `/rest/v1/rpc/<name>` a function. */
function resourceOf(path: string): { kind: 'table' | 'rpc'; name: string } {
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.length === 1) return { kind: 'table', name: decodePathSegment(segments[0]!) };
  if (segments.length === 2 && segments[0] === 'rpc') return { kind: 'rpc', name: decodePathSegment(segments[1]!) };
  throw pgrstError('PGRST125', 'Invalid path specified in request URL');
}

/** The `Allow` header of the resource the path names (OPTIONS); unknown → 404 as any request. */
function allowFor(req: IncomingMessage, project: ProjectDefinition['project'], path: string): string {
  return allowedMethods(project, parseProfile(req.headers, 'GET', project.schemas), resourceOf(path));
}

/** The `Allow` header a 405 carries; null when the path names nothing. */
function allowOf(req: IncomingMessage, project: ProjectDefinition['project'], path: string): string | null {
  try {
    return allowFor(req, project, path);
  } catch {
    return null;
  }
}

/**
 * PostgREST names the schema in its answer when it was negotiated: the client sent the profile header of its
 * method, or the project exposes several schemas (then the default one counts as chosen).
 */
function withProfile(req: IncomingMessage, schemas: readonly string[], schema: string, response: RestResponse): RestResponse {
  const header = req.method === 'GET' || req.method === 'HEAD' ? 'accept-profile' : 'content-profile';
  const negotiated = schemas.length !== 1 || req.headers[header] !== undefined;
  return negotiated ? { ...response, headers: { ...response.headers, 'Content-Profile': schema } } : response;
}

/** Every successful answer depends on these request headers (PostgREST's default; `response.headers` may replace it). */
const VARY = 'Accept, Prefer, Range';

function locationOf(req: ApiRequest): (pk: string) => string | null {
  return (pk) => {
    const key = JSON.parse(pk) as Record<string, unknown>;
    const filters = Object.entries(key).map(([column, value]) =>
      `${encodeURIComponent(column)}=${value === null ? 'is.null' : `eq.${encodeURIComponent(String(value))}`}`);
    return `/${encodeURIComponent(req.target)}?${filters.join('&')}`;
  };
}

/** `Accept: application/vnd.pgrst.plan…`: the statement's EXPLAIN, in the request's transaction and role. */
async function explain(ctx: ProjectContext, identity: RequestIdentity, req: ApiRequest, plan: PlanRequest, built: BuiltStatement): Promise<RestResponse> {
  const statement = explainSql(built, plan);
  const [result] = await ctx.executor.run(identity, [{ name: statementName(statement.text), ...statement }], {
    readOnly: built.readOnly,
    slow: plan.options.includes('analyze'),
    commitIf: req.preferences.tx === 'rollback' ? () => false : undefined,
  });
  return planResponse(req.media, plan, planText((result?.rows ?? []) as Record<string, unknown>[]));
}

/** What the hooked path hands back to the response writer: the request as finally built and its result row. */
export interface HookedResult {
  readonly request: ApiRequest;
  readonly built: BuiltStatement;
  readonly row: ResultRow;
  readonly planned: number | null;
}

/** The hooks one request runs (see DataApiHooks). */
export interface RequestHookRun {
  /** Runs the request with its hooks around its statement, or null when they only reshape the rows the plain path reads. */
  readonly run: ((identity: RequestIdentity, claims: ProjectClaims, initial: { readonly request: ApiRequest; readonly built: BuiltStatement }) => Promise<HookedResult>) | null;
  /** Reshapes the plain path's result row (`afterRead`), or null. */
  readonly shape: ((identity: RequestIdentity, claims: ProjectClaims, read: { readonly request: ApiRequest; readonly built: BuiltStatement; readonly row: ResultRow }) => Promise<ResultRow>) | null;
}

/**
 * A project's own code around its data API requests: the data API defines this shape and the host
 * injects the extension's (runtime/extensions/hooked.ts), so the data API stands below extensions.
 */
export interface DataApiHooks {
  /**
   * The hooks `request` runs, or null (the plain path, at its plain cost); throws when it needs code that could not be loaded.
   * `requestId` is for the hooks' log lines: the data API's path enters no request scope that would carry it.
   */
  readonly of: (request: ApiRequest, built: BuiltStatement, requestId: string | null) => RequestHookRun | null;
}

/** Serves one data API request; `path` is the part after `/rest/v1`, `query` the raw query string. */
export type RestHandler = (req: IncomingMessage, res: ServerResponse, path: string, query: string) => Promise<void>;

/**
 * The data API of one project: parse (pure), build one statement (pure), run it in
 * one RLS transaction, and pass PostgreSQL's JSON text through as the body.
 * `path` is the part after `/rest/v1`; `query` the raw query string.
 */
export function createRestHandler(
  ctx: ProjectContext,
  definition: ProjectDefinition,
  /** The project's own code around its requests (its extension's table hooks), as the host injects it. */
  hooks: DataApiHooks | null = null,
  /** Headers every answer carries (the host's CORS), written with the handler's own. */
  common: Readonly<Record<string, string>> = {},
): RestHandler {
  const { project } = definition;
  const plans = new PlanCache();
  const successHeaders = { ...common, Vary: VARY };
  const writeRestResponse = (res: ServerResponse, response: RestResponse): void => writeResponse(res, response, successHeaders);
  return async function handleRest(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
    const head = req.method === 'HEAD';
    try {
      const claims = inSpanSync('token check', () => authenticate(req.headers, ctx.keyring, queryParam(query, 'apikey')));
      if (req.method === 'OPTIONS') {
        // CORS preflights never get here (runtime/host/cors.ts); this is PostgREST's OPTIONS: which methods the resource takes.
        const allow = allowFor(req, project, path);
        writeRestResponse(res, { status: 200, headers: { Allow: allow }, body: null });
        return;
      }
      const body = await bodyOf(req, res);
      // Parse and SQL build, or the cached plan of a request of the same shape.
      const plan = inSpanSync('plan', (): Plan => {
        const key = plans.keyOf(req.method ?? 'GET', path, query, req.headers);
        let plan = key === null ? undefined : plans.get(key);
        if (!plan) {
          const request = parseRequest({
            method: req.method ?? 'GET',
            resource: resourceOf(path),
            query,
            headers: req.headers,
            body,
            schemas: project.schemas,
            ignoredParams: ['apikey'],
            plans: ctx.settings['api.plan'],
            mediaHandlers: (schema) => mediaHandlersOf(project, schema, resourceOf(path)),
          });
          const rows = key === null && request.payload?.kind === 'rows' ? request.payload : null;
          const writeKey = rows && plans.writeKeyOf(req.method ?? 'POST', path, query, req.headers, rows);
          const kept = writeKey && rows ? plans.statementFor(writeKey, rows.json) : undefined;
          const built = kept ?? buildStatement(request, project, { aggregates: ctx.settings['api.aggregates'], maxRows: ctx.settings['api.max_rows'] ?? undefined });
          plan = { request, built };
          if (key !== null) plans.set(key, plan);
          else if (writeKey && !kept) plans.keepStatement(writeKey, built);
        }
        return plan;
      });
      const { request: apiRequest, built } = plan;
      const identity = requestIdentity(req, claims, path, {
        schema: apiRequest.schema,
        extraSearchPath: ctx.settings['api.extra_search_path'],
        timezone: apiRequest.preferences.timezone,
        preRequest: ctx.settings['api.pre_request'],
        appSettings: ctx.settings['app.settings'],
      });
      if (apiRequest.plan) {
        writeRestResponse(res, await explain(ctx, identity, apiRequest, apiRequest.plan, built));
        return;
      }
      const hooked = hooks?.of(apiRequest, built, assignedRequestId(req)) ?? null;
      if (hooked?.run) {
        const result = await hooked.run(identity, claims, plan);
        const response = respond(result.request, result.built, result.row, result.planned, locationOf(result.request));
        writeRestResponse(res, withProfile(req, project.schemas, apiRequest.schema, response));
        return;
      }
      const statements: TxStatement[] = [built];
      if (built.plannedCount) statements.push({ name: statementName(built.plannedCount.text), ...built.plannedCount });
      const decide = needsCommitDecision(apiRequest, built);
      const results = await ctx.executor.run(
        identity,
        statements,
        {
          readOnly: built.readOnly,
          // Counting reads every matching row: keep it off the shared connections.
          slow: apiRequest.count !== null,
          commitIf: decide ? (rows) => mayCommit(apiRequest, built, rows[0]?.rows[0] as ResultRow | undefined) : undefined,
        },
      );
      let row = results[0]!.rows[0] as ResultRow;
      if (hooked?.shape) row = await hooked.shape(identity, claims, { request: apiRequest, built, row });
      const planned = results[1] ? plannedRowsFromExplain((results[1].rows[0] as Record<string, unknown>)['QUERY PLAN']) : null;
      const response = respond(apiRequest, built as BuiltStatement, row, planned, locationOf(apiRequest));
      writeRestResponse(res, withProfile(req, project.schemas, apiRequest.schema, response));
    } catch (error) {
      const apiError = toApiError(error);
      const allow = apiError.status === 405 ? allowOf(req, project, path) : null;
      // PostgREST 13 names the error's code in Proxy-Status (RFC 9209) on every error.
      const proxyStatus = { ...common, 'Proxy-Status': `PostgREST; error=${apiError.code}` };
      writeError(res, apiError, head, allow === null ? proxyStatus : { ...proxyStatus, Allow: allow });
    }
  };
}

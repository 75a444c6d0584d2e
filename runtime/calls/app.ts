import { randomBytes } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { logAccess, matchedRoutePath } from '../http/access-line.js';
import { sendJson } from '../http/json-response.js';
import { countRequest } from '../metrics.js';
import { requestIdOf } from '../http/request-id.js';
import { enterRequest } from '../http/request-scope.js';
import { PLATFORM_DATABASE, type Platform } from '../platform/platform.js';
import { authenticate } from './auth.js';
import type { CallsContext } from './context.js';
import { CallsApiError, sendProblem } from './errors.js';
import type { Resolver } from '../outbound/guarded-request.js';
import { pruneIdempotencyKeys } from './idempotency.js';
import { AnalysisPool } from './jobs/analysis-pool.js';
import { runAnalysisJob } from './jobs/analyze.js';
import { callsOpenApiDocument } from './openapi.js';
import { sweepAbandonedCalls } from './jobs/sweep.js';
import { ANALYZE_QUEUE, CallsQueue, DELIVER_QUEUE, type AnalyzeJob, type DeliverJob } from './queue.js';
import { hitRateLimit } from './rate-limit.js';
import { attendanceRouter } from './routes/attendance.js';
import { callsRouter } from './routes/calls.js';
import { insightsRouter } from './routes/insights.js';
import { speechRouter } from './routes/speech.js';
import { oauthRouter } from './routes/oauth.js';
import { webhooksRouter } from './routes/webhooks.js';
import type { CallsSettings } from './settings.js';
import { loadTokenKey } from './tokens.js';
import { runInContext, SpanStatusCode, startServerSpan, tracingOn, type Span } from '../tracing.js';
import { runDeliveryJob } from './webhooks/delivery.js';

export interface CallsServiceOptions {
  readonly settings: CallsSettings;
  readonly log: Logger;
  /** Replaces DNS for outbound requests (tests map names to chosen addresses). */
  readonly resolve?: Resolver;
  /** Replaces the wall clock of Idempotency-Key windows (tests step past a window without waiting). */
  readonly now?: () => Date;
}

/** The call-analysis API's shared state plus its background workers (analyses and webhook deliveries). */
export interface CallsService {
  readonly context: CallsContext;
  /** Cancels running analyses (they re-run elsewhere or after a restart) and stops the workers. */
  close(): Promise<void>;
}

/**
 * Starts the job queues on the platform database and, unless `CALLS_CONCURRENCY=0`, this
 * process's workers: `concurrency` analyses at once, and as many webhook deliveries.
 */
export async function startCallsService(platform: Platform, options: CallsServiceOptions): Promise<CallsService> {
  const { settings, log } = options;
  const queue = await CallsQueue.start(platform.cluster.urlFor(PLATFORM_DATABASE), settings, log);
  const outbound = {
    allowPrivate: settings.allowPrivateUrls,
    allowCidrs: settings.allowCidrs,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  const analysis = new AnalysisPool();
  const tokenKey = await loadTokenKey(platform.pool).catch(async (error: unknown) => {
    await queue.stop();
    throw error;
  });
  const context: CallsContext = { pool: platform.pool, settings, queue, tokenKey, log, outbound, analysis, now: options.now ?? (() => new Date()) };
  // Cuts webhook POSTs still running once the queue has given its jobs their grace time.
  const closed = new AbortController();
  if (settings.allowPrivateUrls) log.warn('CALLS_ALLOW_PRIVATE_URLS=true: recordings and webhooks may target private addresses');
  log.info({ engines: settings.speech.engines.map((engine) => engine.kind), chosen_by: settings.speech.chosenBy }, 'speech engines for transcripts');
  await queue.work<AnalyzeJob>(ANALYZE_QUEUE, settings.concurrency, (job, stopping) => runAnalysisJob(context, job, stopping));
  await queue.work<DeliverJob>(DELIVER_QUEUE, settings.concurrency, (job) => runDeliveryJob(context, job, closed.signal));
  const sweep = (): void => {
    sweepAbandonedCalls(context).catch((error: unknown) => log.error({ err: (error as Error).message }, 'sweeping abandoned calls failed'));
    pruneIdempotencyKeys(context.pool, context.now()).catch((error: unknown) => log.error({ err: (error as Error).message }, 'pruning expired idempotency keys failed'));
  };
  sweep();
  const sweeper = setInterval(sweep, settings.maintenanceSeconds * 1000);
  sweeper.unref();
  return {
    context,
    async close() {
      clearInterval(sweeper);
      await queue.stop();
      await analysis.close();
      closed.abort();
    },
  };
}

/** The call-analysis API's own ids, when the client sent none it could keep. */
function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/** The calls request's span, named by method and route template (never the path), with its status. */
function endCallsSpan(span: Span, method: string, route: string, status: number, finished: boolean): void {
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500 || !finished) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * The `/v1` API on CALLS_PORT: its OpenAPI document, OAuth token endpoint, calls, webhooks,
 * attendance, insight settings. Every request gets an `X-Request-Id`; everything behind the
 * document and the token endpoint needs a Bearer credential and counts against the tenant's
 * rate limit; every error is one problem+json shape.
 */
export function createCallsApp(service: CallsService): Express {
  const ctx = service.context;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req: Request, res: Response, next: NextFunction) => {
    const id = requestIdOf(req, newRequestId);
    const fields = { ref: '', api: 'calls', request_id: id };
    enterRequest({ id, logFields: () => fields });
    const started = process.hrtime.bigint();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const traced = tracingOn() ? startServerSpan(`${req.method} /v1`, req.headers, { 'http.request.method': req.method, 'gantry.api': 'calls', 'gantry.request_id': id }) : null;
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      countRequest('calls', '', req.method, false, res.statusCode, seconds);
      // Every calls route is mounted at /v1 (the document's own path names it already).
      const matched = matchedRoutePath(req);
      const route = matched === undefined ? '*' : matched.startsWith('/v1/') ? matched : `/v1${matched}`;
      if (traced !== null) endCallsSpan(traced.span, req.method, route, res.statusCode, res.writableFinished);
      logAccess(ctx.log, { ref: '', api: 'calls', method: req.method, route, status: res.statusCode, seconds, requestId: id }, 'calls request');
    });
    // Its spans (outbound fetches, the jobs it queues) are the request span's children.
    if (traced === null) next();
    else runInContext(traced.context, next);
  });

  const openApi = callsOpenApiDocument();
  app.get('/v1/openapi.json', (_req: Request, res: Response) => sendJson(res, 200, openApi));
  app.use('/v1', oauthRouter(ctx));
  app.use('/v1', async (req: Request, res: Response, next: NextFunction) => {
    const principal = await authenticate(ctx, req);
    res.locals.principal = principal;
    await hitRateLimit(ctx.pool, principal.tenantId, ctx.settings.rateLimitPerMinute);
    next();
  });
  app.use('/v1', callsRouter(ctx));
  app.use('/v1', webhooksRouter(ctx));
  app.use('/v1', attendanceRouter(ctx));
  app.use('/v1', insightsRouter(ctx));
  app.use('/v1', speechRouter(ctx));

  app.use(() => {
    throw new CallsApiError(404, 'route_not_found', 'no such route');
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const id = (res.locals.requestId as string | undefined) ?? newRequestId();
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof CallsApiError) {
      sendProblem(res, error, id);
      return;
    }
    const status = (error as { status?: number }).status;
    if (status === 400 || status === 413) {
      sendProblem(res, new CallsApiError(status, status === 413 ? 'body_too_large' : 'bad_request', (error as Error).message), id);
      return;
    }
    ctx.log.error({ err: error instanceof Error ? error.message : String(error), path: req.path }, 'calls API error');
    sendProblem(res, new CallsApiError(500, 'internal_error', 'internal error'), id);
  });
  return app;
}

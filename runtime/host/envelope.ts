import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { logAccess, matchedRoutePath } from '../http/access-line.js';
import { sendJson } from '../http/json-response.js';
import { requestIdOf } from '../http/request-id.js';
import { enterRequest, type RequestScope } from '../http/request-scope.js';
import { applyCors, isCorsPreflight, setCorsHeaders } from './cors.js';
import { countRequest } from '../metrics.js';
import { runInContext, SpanStatusCode, startServerSpan, tracingOn, type Context, type Span } from '../tracing.js';
import { refinedRoute, requestRoute, RPC_ROUTE, type ApiName } from './request-route.js';

/** Tracks requests in flight so shutdown can wait for them. */
export interface InFlight {
  count: number;
}

/** The host's own errors in the data API's error shape (PostgREST's `{message, code, details, hint}`). */
export function sendHostError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { message, code, details: null, hint: null });
}

/**
 * One request to the host. `ref` is '' until the project is known to exist: refs are labels of
 * metrics, and a path naming projects that do not exist must not make new ones.
 */
class HostRequest implements RequestScope {
  ref: string;
  #fields: Readonly<Record<string, unknown>> | null = null;
  constructor(
    readonly id: string,
    readonly api: ApiName,
    readonly pathRef: string,
    readonly route: string,
    known: boolean,
    readonly started: bigint,
  ) {
    this.ref = known ? pathRef : '';
  }

  logFields(): Readonly<Record<string, unknown>> {
    return (this.#fields ??= { ref: this.ref, api: this.api, request_id: this.id });
  }
}

/** The answer on the request's span: the route as the router refined it, the status, the project once known. */
function endServerSpan(span: Span, req: IncomingMessage, res: ServerResponse, scope: HostRequest): void {
  const route = refinedRoute(scope.route, matchedRoutePath(req));
  span.updateName(`${req.method ?? 'GET'} ${route}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', res.statusCode);
  if (scope.ref !== '') span.setAttribute('gantry.ref', scope.ref);
  // A response closed before it finished was cut short (the client went away, or the host failed mid-answer).
  if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

const expressRequests = new WeakMap<IncomingMessage, HostRequest>();

/** The trace context of each request while tracing is on (its server span); nothing when off. */
const traceContexts = new WeakMap<IncomingMessage, Context>();

/**
 * What every request to the host passes through, on both HTTP stacks (node:http for the data API,
 * express for the rest): counted in flight until its response closes (shutdown waits for them), its
 * id (the client's `X-Request-Id` when acceptable) on the answer and — through the request scope — on
 * every log line and outbound call of the request, one access line, CORS, and the 404 and 500 answers.
 */
export class RequestEnvelope {
  constructor(
    private readonly log: Logger,
    private readonly inFlight: InFlight,
  ) {}

  /** The express stack's entry: CORS headers set on the response. True when it answered (a preflight). */
  enter(req: IncomingMessage, res: ServerResponse): boolean {
    const { api, ref, route } = requestRoute(req.url ?? '');
    const scope = this.track(req, res, api, ref, route, false);
    enterRequest(scope);
    expressRequests.set(req, scope);
    return applyCors(req, res);
  }

  /**
   * The data API fast path's entry, for a project it serves: its handler writes CORS_HEADERS with its
   * own in one writeHead (server-factory.ts), so only a preflight is answered here. The request, or null when
   * it answered.
   */
  enterFast(req: IncomingMessage, res: ServerResponse, ref: string, route: string): RequestScope | null {
    // No request scope here: on Node 20 an AsyncLocalStorage, once entered, runs a hook for every promise the
    // process makes, which cost the 20-row read measurably (docs/performance.md); what the fast path logs
    // itself carries the request's fields explicitly.
    const scope = this.track(req, res, 'rest', ref, route, true);
    return isCorsPreflight(req) && applyCors(req, res) ? null : scope;
  }

  /** The express stack found the project the request names: from now on its ref is a label. */
  served(req: IncomingMessage): void {
    const scope = expressRequests.get(req);
    if (scope) scope.ref = scope.pathRef;
  }

  /** Runs the request's handler under its server span when tracing is on, so its spans are that span's children. */
  within<T>(req: IncomingMessage, fn: () => T): T {
    const ctx = traceContexts.get(req);
    return ctx === undefined ? fn() : runInContext(ctx, fn);
  }

  notFound(res: ServerResponse, message = 'not found'): void {
    sendHostError(res, 404, 'PGRST125', message);
  }

  /** An error nothing else answered: logged; a body parser's 4xx keeps its status, anything else is a 500. */
  failed(res: ServerResponse, error: unknown, scope?: RequestScope): void {
    this.log.error({ ...scope?.logFields?.(), err: error }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    setCorsHeaders(res);
    const status = (error as { status?: number } | null)?.status;
    if (status && status >= 400 && status < 500) sendHostError(res, status, 'PGRST102', (error as Error).message);
    else sendHostError(res, 500, 'XX000', 'internal server error');
  }

  private track(req: IncomingMessage, res: ServerResponse, api: ApiName, ref: string, route: string, known: boolean): HostRequest {
    const { inFlight, log } = this;
    inFlight.count++;
    const id = requestIdOf(req);
    res.setHeader('X-Request-Id', id);
    const scope = new HostRequest(id, api, ref, route, known, process.hrtime.bigint());
    const logged = log.isLevelEnabled('info');
    const span = tracingOn() ? this.traceRequest(req, scope) : null;
    // A response closes once: `on` spares `once`'s wrapper.
    res.on('close', () => {
      inFlight.count--;
      const seconds = Number(process.hrtime.bigint() - scope.started) / 1e9;
      countRequest(scope.api, scope.ref, req.method, scope.route === RPC_ROUTE, res.statusCode, seconds);
      if (span !== null) endServerSpan(span, req, res, scope);
      if (logged) {
        const route = refinedRoute(scope.route, matchedRoutePath(req));
        logAccess(log, { ref: scope.ref, api: scope.api, method: req.method, route, status: res.statusCode, seconds, requestId: scope.id }, 'request');
      }
    });
    return scope;
  }

  /** The request's server span (named by method and route template, never the path) and its context. */
  private traceRequest(req: IncomingMessage, scope: HostRequest): Span {
    const method = req.method ?? 'GET';
    const { span, context } = startServerSpan(`${method} ${scope.route}`, req.headers, {
      'http.request.method': method,
      'http.route': scope.route,
      'gantry.api': scope.api,
      'gantry.request_id': scope.id,
    });
    traceContexts.set(req, context);
    return span;
  }
}

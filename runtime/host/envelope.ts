import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { sendJson } from '../http/json-response.js';
import { requestIdOf } from '../http/request-id.js';
import { enterRequest } from '../http/request-scope.js';
import { applyCors, isCorsPreflight, setCorsHeaders } from './cors.js';

/** Tracks requests in flight so shutdown can wait for them. */
export interface InFlight {
  count: number;
}

/** The host's own errors in the data API's error shape (PostgREST's `{message, code, details, hint}`). */
export function sendHostError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { message, code, details: null, hint: null });
}

/**
 * What every request to the host passes through, on both HTTP stacks (node:http for the data API,
 * express for the rest): counted in flight until its response closes (shutdown waits for them), one
 * access line, CORS, and the 404 and 500 answers.
 */
export class RequestEnvelope {
  constructor(
    private readonly log: Logger,
    private readonly inFlight: InFlight,
  ) {}

  /** The express stack's entry: CORS headers set on the response. True when it answered (a preflight). */
  enter(req: IncomingMessage, res: ServerResponse): boolean {
    this.track(req, res);
    return applyCors(req, res);
  }

  /**
   * The data API fast path's entry: its handler writes CORS_HEADERS with its own in one writeHead
   * (server-factory.ts), so only a preflight is answered here. True when it answered.
   */
  enterFast(req: IncomingMessage, res: ServerResponse): boolean {
    this.track(req, res);
    return isCorsPreflight(req) && applyCors(req, res);
  }

  notFound(res: ServerResponse, message = 'not found'): void {
    sendHostError(res, 404, 'PGRST125', message);
  }

  /** An error nothing else answered: logged; a body parser's 4xx keeps its status, anything else is a 500. */
  failed(res: ServerResponse, error: unknown): void {
    this.log.error({ err: error }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    setCorsHeaders(res);
    const status = (error as { status?: number } | null)?.status;
    if (status && status >= 400 && status < 500) sendHostError(res, status, 'PGRST102', (error as Error).message);
    else sendHostError(res, 500, 'XX000', 'internal server error');
  }

  /**
   * The request's id (the client's `X-Request-Id` when acceptable) on the answer and, through the
   * request scope, on every log line and outbound call of the request; one access line per request:
   * method, path without the query string (it can hold an apikey), status and duration. Below
   * `info` nothing of the line is built.
   */
  private track(req: IncomingMessage, res: ServerResponse): void {
    const { inFlight, log } = this;
    inFlight.count++;
    const id = requestIdOf(req);
    res.setHeader('X-Request-Id', id);
    enterRequest({ id });
    if (!log.isLevelEnabled('info')) {
      // A response closes once: `on` spares `once`'s wrapper.
      res.on('close', () => inFlight.count--);
      return;
    }
    const started = process.hrtime.bigint();
    res.on('close', () => {
      inFlight.count--;
      log.info({
        method: req.method,
        path: (req.url ?? '').split('?')[0],
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        request_id: id,
      }, 'request');
    });
  }
}

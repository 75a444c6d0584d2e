import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ConnectionBudgetError } from '../../db/connection-budget.js';
import { metrics } from '../../metrics.js';
import type { AuthDeps } from '../auth-deps.js';
import { API_VERSION_2024, API_VERSION_HEADER, AuthError, authErrorBody, authErrors, wantsVersionedErrors } from './errors.js';
import { hitRateLimit, type RateLimitBucket } from '../flows/rate-limits.js';
import { clientIp } from './request-auth.js';

export function sendAuthError(req: Request, res: Response, error: AuthError): void {
  const versioned = wantsVersionedErrors(req.get(API_VERSION_HEADER));
  res.status(error.status);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('x-sb-error-code', error.code);
  if (versioned) res.setHeader(API_VERSION_HEADER, API_VERSION_2024);
  res.json(authErrorBody(error, versioned));
}

type AsyncHandler = (req: Request, res: Response) => Promise<void>;

/**
 * Wraps a route: typed auth errors become GoTrue error bodies; anything else is
 * logged and answered 500, or 503 where auth-js must treat it as retryable (a 500
 * on /token makes it throw the user's session away).
 */
export function handle(deps: AuthDeps, fn: AsyncHandler, failureStatus: 500 | 503 = 500): RequestHandler {
  return (req: Request, res: Response, _next: NextFunction) => {
    fn(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof AuthError) {
        sendAuthError(req, res, error);
        return;
      }
      if (error instanceof ConnectionBudgetError) {
        sendAuthError(req, res, authErrors.connectionsExhausted(error.retryAfterSeconds));
        return;
      }
      deps.log.error({ err: error, ref: deps.ctx.ref, path: req.path }, 'auth request failed');
      sendAuthError(req, res, failureStatus === 503 ? authErrors.unavailable() : authErrors.unexpected());
    });
  };
}

/** The JSON body as an object; a missing body is an empty object. */
export function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw authErrors.badJson();
  return body as Record<string, unknown>;
}

export function optionalObject(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw authErrors.validation(`${field} must be an object`);
  return value as Record<string, unknown>;
}

/** A query parameter as text; `Q` (an endpoint's `QueryOf`) limits `name` to the declared parameters. */
export function queryString<Q = Record<string, unknown>>(req: Request, name: keyof Q & string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

export async function enforceRateLimit(req: Request, deps: AuthDeps, bucket: RateLimitBucket): Promise<void> {
  const verdict = await hitRateLimit(deps.ctx.adminPool, bucket, clientIp(req) ?? 'unknown', deps.rateLimits[bucket], deps.now());
  if (!verdict.allowed) {
    metrics.rateLimited(deps.ctx.ref, bucket);
    throw authErrors.rateLimited(verdict.retryAfterSeconds);
  }
}

/** Runs work after the response, logging instead of failing: mail must not reveal or delay anything. */
export function inBackground(deps: AuthDeps, what: string, work: () => Promise<void>): void {
  setImmediate(() => {
    work().catch((error: unknown) => deps.log.error({ err: error, ref: deps.ctx.ref }, `${what} failed`));
  });
}

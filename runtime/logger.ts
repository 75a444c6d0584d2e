import pino, { type Logger } from 'pino';
import { currentRequestId } from './http/request-scope.js';

const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

/** Every line written while a request (or a job it queued) runs carries the request's id. */
function requestFields(): Readonly<Record<string, string>> {
  const id = currentRequestId();
  return id === null ? NO_FIELDS : { request_id: id };
}

/**
 * The one logger. Request lines carry method, path (never the query string: it can
 * hold an apikey), status and duration; nothing logs a token or password, and the
 * redact list is a second line of defence.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: undefined,
    mixin: requestFields,
    redact: ['password', 'token', 'apikey', 'authorization', '*.password', '*.token', '*.apikey', '*.authorization', 'jwt_secret', 'service_key'],
  });
}

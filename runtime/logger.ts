import pino, { type Logger } from 'pino';

/**
 * The one logger. Request lines carry method, path (never the query string: it can
 * hold an apikey), status and duration; nothing logs a token or password, and the
 * redact list is a second line of defence.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: undefined,
    redact: ['password', 'token', 'apikey', 'authorization', '*.password', '*.token', '*.apikey', '*.authorization', 'jwt_secret', 'service_key'],
  });
}

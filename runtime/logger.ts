import { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger } from 'pino';
import { ConfigError } from './config-error.js';
import { currentRequest } from './http/request-scope.js';

const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

/** Every line written while a request (or a job it queued) runs carries the request's id, and on the host its ref and API. */
function requestFields(): Readonly<Record<string, unknown>> {
  const scope = currentRequest();
  if (scope === undefined) return NO_FIELDS;
  return scope.logFields?.() ?? { request_id: scope.id };
}

/**
 * Field names whose values are never written, at any depth pino's paths reach: tokens, passwords,
 * keys and secrets as the auth and call-analysis APIs name them. Nothing logs them; this is the
 * second line of defence.
 */
const REDACTED = [
  'password', 'new_password', 'token', 'access_token', 'refresh_token', 'id_token', 'provider_token', 'provider_refresh_token',
  'apikey', 'api_key', 'secret', 'client_secret', 'authorization', 'cookie', 'jwt_secret', 'service_key', 'otp',
];
const REDACT_PATHS = [...REDACTED, ...REDACTED.map((name) => `*.${name}`), ...REDACTED.map((name) => `*.*.${name}`)];

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** One JSON line as a person reads it: time, level, message, then the fields as key=value (LOG_FORMAT=pretty). */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { time, level, msg, ...fields } = entry;
  const when = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '';
  const rest = Object.entries(fields).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
  return `${when} ${(LEVEL_NAMES[level as number] ?? String(level)).padEnd(5)} ${String(msg ?? '')}${rest ? ` ${rest}` : ''}\n`;
}

function prettyStream(out: NodeJS.WritableStream): DestinationStream {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) out.write(prettyLine(line));
      done();
    },
  });
}

/** LOG_FORMAT: `json` (the default, one JSON object a line) or `pretty` (for development). */
export function logFormat(env: NodeJS.ProcessEnv = process.env): 'json' | 'pretty' {
  const raw = (env.LOG_FORMAT ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'json') return 'json';
  if (raw === 'pretty') return 'pretty';
  throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${env.LOG_FORMAT}"`);
}

/**
 * The one logger. Access lines carry ref, api, method, route template, status, duration and request
 * id (never the path or the query string: they can hold ids and an apikey); every line of a request
 * carries its id; nothing logs a token or password, and the redact list is a second line of defence.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream, format = logFormat()): Logger {
  const options = {
    level,
    base: undefined,
    mixin: requestFields,
    // pino's default merge writes into the mixin's object, which is shared: a new object instead, only when there is something to add.
    mixinMergeStrategy: (merge: object, mixin: object) => (mixin === NO_FIELDS ? merge : { ...mixin, ...merge }),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  const out = destination ?? (format === 'pretty' ? prettyStream(process.stdout) : undefined);
  return out ? pino(options, out) : pino(options);
}

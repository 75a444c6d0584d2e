import { StatusError } from '../coded-error.js';
import { ConnectionBudgetError } from '../db/connection-budget.js';
import { isConnectionFailure } from '../db/connection-failure.js';

/**
 * Data API errors: one typed error class and the ONE place where SQLSTATE and PGRST codes
 * become HTTP statuses. Statuses follow section 7 of the service document first and
 * PostgREST's `mapSQLtoHTTP` for everything it leaves open.
 */

export type ErrorDetails = string | readonly unknown[] | null;

export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly details: ErrorDetails;
  readonly hint: string | null;
}

export class ApiError extends StatusError {
  readonly details: ErrorDetails;
  readonly hint: string | null;
  /** The status line's reason phrase (`RAISE SQLSTATE 'PGRST'`'s `status_text`); null: the standard one. */
  readonly statusText: string | null;

  /** `headers`: extra response headers (e.g. from `RAISE SQLSTATE 'PGRST'`). */
  constructor(
    status: number,
    code: string,
    message: string,
    details: ErrorDetails = null,
    hint: string | null = null,
    headers: Readonly<Record<string, string>> = {},
    statusText: string | null = null,
  ) {
    super(status, code, message, headers);
    this.name = 'ApiError';
    this.details = details;
    this.hint = hint;
    this.statusText = statusText;
  }

  toJSON(): ErrorBody {
    return { code: this.code, message: this.message, details: this.details, hint: this.hint };
  }
}

/** Statuses of PostgREST's own error codes. */
const PGRST_STATUS: Readonly<Record<string, number>> = {
  // PGRST003 is 504 in PostgREST; Gantry answers 503 + Retry-After (connectionBudgetExhausted).
  PGRST000: 503, PGRST001: 503, PGRST002: 503, PGRST003: 503,
  PGRST100: 400, PGRST101: 405, PGRST102: 400, PGRST103: 416, PGRST105: 405, PGRST106: 406,
  PGRST107: 406, PGRST108: 400, PGRST111: 500, PGRST112: 500, PGRST114: 400, PGRST115: 400,
  PGRST116: 406, PGRST117: 405, PGRST118: 400, PGRST120: 400, PGRST121: 500, PGRST122: 400,
  PGRST123: 400, PGRST124: 400, PGRST125: 404, PGRST126: 404, PGRST127: 400, PGRST128: 400,
  PGRST200: 400, PGRST201: 300, PGRST202: 404, PGRST203: 300, PGRST204: 400, PGRST205: 404,
  PGRST300: 500, PGRST301: 401, PGRST302: 401, PGRST303: 401,
};

/** SQLSTATE classes (first two characters) whose status does not depend on the rest. */
const CLASS_STATUS: Readonly<Record<string, number>> = {
  '08': 503, '09': 500, '0L': 403, '0P': 403, '25': 500, '28': 403, '2D': 500, '38': 500,
  '39': 500, '3B': 500, '40': 500, '53': 503, '54': 500, '55': 500, '57': 500, '58': 500,
  F0: 500, HV: 500, XX: 500, P0: 500,
};

/**
 * HTTP status for a SQLSTATE or PGRST code. `message` is needed for the two SQLSTATEs whose
 * status PostgREST derives from the text (pg-safeupdate's 21000, unknown role 22023).
 */
export function statusForCode(code: string, message = ''): number {
  const pgrst = PGRST_STATUS[code];
  if (pgrst !== undefined) return pgrst;
  if (/^PT\d{3}$/.test(code)) return Number(code.slice(2));
  if (code.startsWith('PT')) return 500;
  switch (code) {
    case '23503': case '23505': return 409;
    case '25006': return 405;
    case '21000': return message.endsWith('requires a WHERE clause') ? 400 : 500;
    case '22023': return /^role ".*" does not exist$/.test(message) ? 401 : 400;
    case '53400': return 500;
    case '57P01': return 503;
    case 'P0001': return 400;
    case '42883': return message.startsWith('function xmlagg(') ? 406 : 404;
    case '42P01': return 404;
    case '42P17': return 500;
    // The service document maps every RLS/privilege refusal to 403, for anon too.
    case '42501': return 403;
  }
  const byClass = CLASS_STATUS[code.slice(0, 2)];
  if (byClass !== undefined) return byClass;
  return 400;
}

/** The fields of a node-postgres `DatabaseError` this module reads. */
export interface PgErrorLike {
  readonly code?: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
}

export function isPgError(err: unknown): err is PgErrorLike & { code: string } {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    && typeof (err as { message?: unknown }).message === 'string'
    && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);
}

/**
 * Any error thrown while handling a data request -> ApiError. PostgreSQL errors keep their
 * SQLSTATE, message, detail and hint; anything else is a 500 without internals.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ConnectionBudgetError) return connectionBudgetExhausted(err);
  if (isConnectionFailure(err)) return databaseUnavailable();
  if (!isPgError(err)) return new ApiError(500, 'PGRSTX00', 'Internal server error');
  if (err.code === 'PGRST') return raisedPgrstError(err);
  return new ApiError(statusForCode(err.code, err.message), err.code, err.message, err.detail ?? null, err.hint ?? null);
}

/**
 * `RAISE SQLSTATE 'PGRST' USING message = '{json body}', detail = '{"status":…,"headers":{…}}'`:
 * the function chooses body, status and headers (PostgREST's convention).
 */
function raisedPgrstError(err: PgErrorLike): ApiError {
  const unparsable = (details: string, hint: string): ApiError =>
    new ApiError(500, 'PGRST121', 'Could not parse JSON in the "RAISE SQLSTATE \'PGRST\'" error', details, hint);
  const badMessage = (): ApiError => unparsable(`Invalid JSON value for MESSAGE: '${err.message}'`,
    'MESSAGE must be a JSON object with obligatory keys: \'code\', \'message\' and optional keys: \'details\', \'hint\'.');
  const detailHint = 'DETAIL must be a JSON object with obligatory keys: \'status\', \'headers\' and optional key: \'status_text\'.';
  let body: unknown;
  try { body = JSON.parse(err.message); } catch { return badMessage(); }
  if (!isRecord(body) || typeof body.code !== 'string' || typeof body.message !== 'string') return badMessage();
  if (err.detail === undefined) return unparsable('DETAIL is missing in the RAISE statement', detailHint);
  const badDetail = unparsable(`Invalid JSON value for DETAIL: '${err.detail}'`, detailHint);
  let detail: unknown;
  try { detail = JSON.parse(err.detail); } catch { return badDetail; }
  if (!isRecord(detail) || !Number.isInteger(detail.status) || !isRecord(detail.headers)) return badDetail;
  const status = detail.status as number;
  if (status < 100 || status > 999) return badDetail;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(detail.headers)) if (typeof v === 'string') headers[k] = v;
  const details = typeof body.details === 'string' ? body.details : null;
  const hint = typeof body.hint === 'string' ? body.hint : null;
  const statusText = typeof detail.status_text === 'string' ? detail.status_text : null;
  return new ApiError(status, body.code, body.message, details, hint, headers, statusText);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Seconds a client should wait before retrying while PostgreSQL is unreachable (a restart takes about that). */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * PGRST000 (503): PostgreSQL cannot be reached or the connection was lost (it is
 * restarting, or down). The request may be retried: `Retry-After` says when.
 */
export function databaseUnavailable(): ApiError {
  return new ApiError(503, 'PGRST000', 'Database connection error. Retrying the connection.', null, null, {
    'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
  });
}

/**
 * PGRST003 (503, PostgREST's message): the host's connection budget had no connection for the
 * request within its bounded wait, or its wait queue was full. Retrying later is safe.
 */
export function connectionBudgetExhausted(error: ConnectionBudgetError): ApiError {
  return new ApiError(503, error.code, error.message, null, null, { 'Retry-After': String(error.retryAfterSeconds) });
}

/** A typed PostgREST-style error whose status comes from the table above. */
export function pgrstError(code: string, message: string, details: ErrorDetails = null, hint: string | null = null): ApiError {
  return new ApiError(statusForCode(code, message), code, message, details, hint);
}

/** PGRST100: a query parameter or header could not be parsed. */
export function parseError(what: string, input: string, column: number, details: string): ApiError {
  return pgrstError('PGRST100', `"failed to parse ${what} (${input})" (line 1, column ${column})`, details);
}

/** 42703 before any SQL runs, worded as PostgreSQL would. */
export function undefinedColumn(table: string, column: string): ApiError {
  return pgrstError('42703', `column ${table}.${column} does not exist`);
}

/** 42712 (duplicate_alias) before any SQL runs, worded as PostgreSQL words it for PostgREST's query. */
export function duplicateAlias(alias: string): ApiError {
  return pgrstError('42712', `table name "${alias}" specified more than once`);
}

/** PGRST204: a payload or `columns=` key that the table does not have. */
export function unknownPayloadColumn(table: string, column: string): ApiError {
  return pgrstError('PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`);
}

export function invalidBody(message: string, details: string | null = null): ApiError {
  return pgrstError('PGRST102', message, details);
}

export type RangeProblem =
  | { readonly kind: 'negative-limit' }
  | { readonly kind: 'lower-gt-upper' }
  | { readonly kind: 'out-of-bounds'; readonly offset: number; readonly total: number };

export function rangeError(problem: RangeProblem): ApiError {
  const details = problem.kind === 'negative-limit'
    ? 'Limit should be greater than or equal to zero.'
    : problem.kind === 'lower-gt-upper'
      ? 'The lower boundary must be lower than or equal to the upper boundary in the Range header.'
      : `An offset of ${problem.offset} was requested, but there are only ${problem.total} rows.`;
  // A known total travels with the refusal so a client can page back into range (PostgREST sends `*/TOTAL`).
  const headers: Record<string, string> = problem.kind === 'out-of-bounds' ? { 'Content-Range': `*/${problem.total}` } : {};
  return new ApiError(statusForCode('PGRST103'), 'PGRST103', 'Requested range not satisfiable', details, null, headers);
}

/** PGRST116: `Accept: application/vnd.pgrst.object+json` and not exactly one row. */
export function singularityError(rows: number): ApiError {
  return pgrstError('PGRST116', 'Cannot coerce the result to a single JSON object', `The result contains ${rows} rows`);
}

export function unsupportedMethod(method: string): ApiError {
  return pgrstError('PGRST117', `Unsupported HTTP method: ${method}`);
}

/** 405: a write the relation cannot take at all, whatever the grants (the methods OPTIONS leaves out). */
export function relationNotWritable(method: string, schema: string, name: string): ApiError {
  return pgrstError('PGRST117', `Cannot use the ${method} method on ${schema}.${name}`, 'The relation is a view PostgreSQL cannot write through for this method.');
}

/**
 * An unknown table or view: PostgREST's message and hint, but the database's SQLSTATE (undefined_table), as the
 * service document's error table maps it (PostgREST itself says PGRST205).
 */
export function tableNotFound(schema: string, name: string, hint: string | null = null): ApiError {
  return new ApiError(statusForCode('42P01'), '42P01', `Could not find the table '${schema}.${name}' in the schema cache`, null, hint);
}

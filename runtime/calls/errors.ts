import type { Response } from 'express';
import { StatusError } from '../coded-error.js';

/** One bad field of a request body or query. */
export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Every 4xx/5xx of the call-analysis API is one of these, written as RFC 9457 problem details
 * with a stable `code`. Nothing else turns errors into HTTP for this API.
 */
export class CallsApiError extends StatusError {
  override readonly name = 'CallsApiError';
  /** The fields that failed validation, listed in the problem document. */
  readonly errors: readonly FieldError[] | undefined;
  /** Extra top-level fields of the problem document. */
  readonly body: Readonly<Record<string, unknown>> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { readonly errors?: readonly FieldError[]; readonly headers?: Readonly<Record<string, string>>; readonly body?: Readonly<Record<string, unknown>> } = {},
  ) {
    super(status, code, message, extra.headers);
    this.errors = extra.errors;
    this.body = extra.body;
  }
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function problemBody(error: CallsApiError, requestId: string): Record<string, unknown> {
  return {
    type: `https://gantry.dev/errors/calls/${error.code}`,
    title: TITLES[error.status] ?? 'Error',
    status: error.status,
    code: error.code,
    detail: error.message,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.body,
  };
}

export function sendProblem(res: Response, error: CallsApiError, requestId: string): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const text = JSON.stringify(problemBody(error, requestId));
  res.status(error.status);
  res.setHeader('Content-Type', 'application/problem+json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function validationError(errors: readonly FieldError[]): CallsApiError {
  const names = [...new Set(errors.map((e) => e.field))].join(', ');
  return new CallsApiError(400, 'validation_failed', `invalid fields: ${names}`, { errors });
}

export function notFound(what: string): CallsApiError {
  return new CallsApiError(404, 'not_found', `${what} not found`);
}

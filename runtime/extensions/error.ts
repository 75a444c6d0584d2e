import { ApiError, type ErrorDetails } from '../rest/errors.js';

/**
 * What a project's extension throws to refuse a request: the data API answers with this
 * status and body (`{ code, message, details, hint }`), as it answers its own errors, and the
 * request's transaction rolls back. Any other error thrown by extension code is a 500 that
 * says nothing of it (it is logged).
 */
export class ExtensionError extends ApiError {
  constructor(status: number, code: string, message: string, details: ErrorDetails = null, hint: string | null = null) {
    if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError(`ExtensionError status must be 400-599, got ${status}`);
    super(status, code, message, details, hint);
    this.name = 'ExtensionError';
  }
}

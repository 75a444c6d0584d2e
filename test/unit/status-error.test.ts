import { describe, expect, it } from 'vitest';
import { CodedError, StatusError } from '../../runtime/coded-error.js';
import { ApiError } from '../../runtime/rest/errors.js';
import { AuthError } from '../../runtime/auth/http/errors.js';
import { CallsApiError, problemBody } from '../../runtime/calls/errors.js';

describe('one error base', () => {
  it('the three APIs answer errors of one base with status, code and headers', () => {
    const errors = [
      new ApiError(503, 'PGRST003', 'Timed out', null, null, { 'Retry-After': '2' }),
      new AuthError(503, 'request_timeout', 'Timed out', {}, { 'Retry-After': '2' }),
      new CallsApiError(503, 'unavailable', 'Timed out', { headers: { 'Retry-After': '2' } }),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(StatusError);
      expect(error).toBeInstanceOf(CodedError);
      expect([error.status, error.headers, error.message]).toEqual([503, { 'Retry-After': '2' }, 'Timed out']);
    }
    expect(errors.map((error) => error.code)).toEqual(['PGRST003', 'request_timeout', 'unavailable']);
  });

  it('each wire format writes its own body from it', () => {
    expect(new ApiError(404, 'PGRST125', 'not found').toJSON()).toEqual({ code: 'PGRST125', message: 'not found', details: null, hint: null });
    const calls = new CallsApiError(400, 'validation_failed', 'invalid fields: a', { errors: [{ field: 'a', code: 'required', message: 'required' }] });
    expect(problemBody(calls, 'req_1')).toEqual({
      type: 'https://gantry.dev/errors/calls/validation_failed',
      title: 'Bad Request',
      status: 400,
      code: 'validation_failed',
      detail: 'invalid fields: a',
      request_id: 'req_1',
      errors: [{ field: 'a', code: 'required', message: 'required' }],
    });
  });
});

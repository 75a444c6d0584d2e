import { describe, expect, it } from 'vitest';
import { ConnectionsClosedError } from '../../../runtime/db/connection-failure.js';
import { ApiError, rangeError, singularityError, statusForCode, toApiError } from '../../../runtime/rest/errors.js';

describe('status mapping', () => {
  it('follows the service document for its cases', () => {
    expect(statusForCode('42601')).toBe(400);
    expect(statusForCode('42703')).toBe(400);
    expect(statusForCode('22P02')).toBe(400);
    expect(statusForCode('23502')).toBe(400);
    expect(statusForCode('23514')).toBe(400);
    expect(statusForCode('42501')).toBe(403);
    expect(statusForCode('42P01')).toBe(404);
    expect(statusForCode('23505')).toBe(409);
    expect(statusForCode('23503')).toBe(409);
  });

  it('follows PostgREST where the service document is silent', () => {
    const cases: Array<[string, number, string?]> = [
      ['P0001', 400], ['P0004', 500], ['PT402', 402], ['PTxyz', 500], ['42883', 404], ['42883', 406, 'function xmlagg(integer) does not exist'],
      ['25006', 405], ['08006', 503], ['53300', 503], ['53400', 500], ['57014', 500], ['57P01', 503], ['40001', 500],
      ['28000', 403], ['0L000', 403], ['42P17', 500], ['XX000', 500], ['21000', 500], ['21000', 400, 'UPDATE requires a WHERE clause'],
      ['22023', 400], ['22023', 401, 'role "x" does not exist'],
      ['PGRST100', 400], ['PGRST103', 416], ['PGRST106', 406], ['PGRST116', 406], ['PGRST201', 300], ['PGRST202', 404], ['PGRST205', 404],
    ];
    for (const [code, status, message] of cases) expect([code, statusForCode(code, message)]).toEqual([code, status]);
  });
});

describe('toApiError', () => {
  it('keeps PostgreSQL fields', () => {
    const e = toApiError({ code: '23505', message: 'duplicate key value violates unique constraint "t_pkey"', detail: 'Key (k)=(1) already exists.' });
    expect([e.status, e.toJSON()]).toEqual([409, {
      code: '23505', message: 'duplicate key value violates unique constraint "t_pkey"', details: 'Key (k)=(1) already exists.', hint: null,
    }]);
  });

  it('turns anything else into a 500 without internals', () => {
    const e = toApiError(new TypeError('secret stack'));
    expect([e.status, e.toJSON()]).toEqual([500, { code: 'PGRSTX00', message: 'Internal server error', details: null, hint: null }]);
  });

  it('answers 503 PGRST000 with Retry-After when PostgreSQL cannot be reached or the connection broke', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const failures: unknown[] = [
      refused,
      new AggregateError([refused, Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })]),
      { code: '57P01', message: 'terminating connection due to administrator command' },
      { code: '57P02', message: 'terminating connection because of crash of another server process' },
      { code: '57P03', message: 'the database system is starting up' },
      { code: '08006', message: 'connection failure' },
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Cannot use a pool after calling end on the pool'),
      // The project reloaded on other connections (a move's switch) after the request picked the old ones.
      new ConnectionsClosedError(),
    ];
    for (const failure of failures) {
      const e = toApiError(failure);
      expect([e.status, e.toJSON(), e.headers]).toEqual([503,
        { code: 'PGRST000', message: 'Database connection error. Retrying the connection.', details: null, hint: null }, { 'Retry-After': '1' }]);
    }
    // A statement's own failure, or a socket error not about reaching the database, stays what it was.
    expect(toApiError({ code: '57014', message: 'canceling statement due to statement timeout' }).status).toBe(500);
    expect(toApiError(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' })).code).toBe('PGRSTX00');
  });

  it('passes ApiError through', () => {
    const e = new ApiError(418, 'X', 'y');
    expect(toApiError(e)).toBe(e);
  });

  it('honours RAISE SQLSTATE PGRST with a JSON message and detail', () => {
    const e = toApiError({
      code: 'PGRST', message: '{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade"}',
      detail: '{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}',
    });
    expect([e.status, e.toJSON(), e.headers]).toEqual([402,
      { code: '123', message: 'Payment Required', details: 'Quota exceeded', hint: 'Upgrade' }, { 'X-Powered-By': 'Nerd Rage' }]);
    const texted = toApiError({ code: 'PGRST', message: '{"code":"1","message":"m"}', detail: '{"status":332,"status_text":"Mine","headers":{}}' });
    expect([texted.status, texted.statusText]).toEqual([332, 'Mine']);
    expect(toApiError({ code: 'PGRST', message: 'nope', detail: '{}' }).code).toBe('PGRST121');
    expect(toApiError({ code: 'PGRST', message: '{"code":"1","message":"m"}', detail: 'INVALID' }).toJSON()).toEqual({
      code: 'PGRST121', message: 'Could not parse JSON in the "RAISE SQLSTATE \'PGRST\'" error', details: "Invalid JSON value for DETAIL: 'INVALID'",
      hint: "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.",
    });
    expect(toApiError({ code: 'PGRST', message: '{"code":"1","message":"m"}' }).toJSON().details).toBe('DETAIL is missing in the RAISE statement');
  });
});

describe('PostgREST error bodies', () => {
  it('words range and singular errors as PostgREST', () => {
    expect(rangeError({ kind: 'out-of-bounds', offset: 100, total: 15 }).toJSON()).toEqual({
      code: 'PGRST103', message: 'Requested range not satisfiable', details: 'An offset of 100 was requested, but there are only 15 rows.', hint: null,
    });
    // PostgREST's RangeSpec: the refusal still says how many rows there are; a malformed range knows no total.
    expect(rangeError({ kind: 'out-of-bounds', offset: 100, total: 15 }).headers).toEqual({ 'Content-Range': '*/15' });
    expect(rangeError({ kind: 'negative-limit' }).headers).toEqual({});
    const s = singularityError(2);
    expect([s.status, s.toJSON()]).toEqual([406, {
      code: 'PGRST116', message: 'Cannot coerce the result to a single JSON object', details: 'The result contains 2 rows', hint: null,
    }]);
  });
});

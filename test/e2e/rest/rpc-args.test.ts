import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createTestProject, fixtureSchema, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';
import { signJwt } from '../../../runtime/auth/jwt.js';

/** Function arguments as PostgREST takes them (its RpcSpec): repeated parameters, form bodies, `?columns=`, array bodies. */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rpc-args.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

const form = (fn: string, body: string) => call(`/rpc/${fn}`, { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });

describe('function arguments', () => {
  it('takes repeated query parameters as the variadic array, and the last value for a scalar', async () => {
    expect((await call('/rpc/variadic_param')).json).toEqual([]);
    expect((await call('/rpc/variadic_param?v=hi')).json).toEqual(['hi']);
    expect((await call('/rpc/variadic_param?v=hi&v=there')).json).toEqual(['hi', 'there']);
    expect((await call('/rpc/sayhello?name=ignored&name=world')).json).toBe('Hello, world');
    expect((await call('/rpc/sayhello_variadic?name=ignored&name=world&v=unused')).json).toBe('Hello, world');
  });

  it('takes repeated form fields as the variadic array', async () => {
    expect((await form('variadic_param', '')).json).toEqual([]);
    expect((await form('variadic_param', 'v=hi')).json).toEqual(['hi']);
    expect((await form('variadic_param', 'v=hi&v=there')).json).toEqual(['hi', 'there']);
  });

  it('ignores keys outside ?columns= and takes the first object of an array body', async () => {
    const columns = await call('/rpc/sayhello?columns=name', { method: 'POST', body: { name: 'John', smth: 'here', other: 'stuff', fake_id: 13 } });
    expect([columns.status, columns.json]).toEqual([200, 'Hello, John']);
    const array = await call('/rpc/add_them', { method: 'POST', body: [{ a: 1, b: 2 }, { a: 4, b: 6 }, { a: 100, b: 200 }] });
    expect([array.status, array.json]).toEqual([200, 3]);
    expect((await call('/rpc/sayhello?name=John', { method: 'POST', body: { name: 'John' } })).status).toBe(400);
  });
});

describe("PostgREST's RpcSpec and ErrorSpec: errors raised by functions", () => {
  it('maps RAISE SQLSTATE PTnnn to the status, and any other PT code to 500', async () => {
    const paid = await call('/rpc/raise_pt402');
    expect([paid.status, paid.headers.get('content-length'), paid.headers.get('proxy-status'), paid.json]).toEqual([402, '99', 'PostgREST; error=PT402',
      { hint: 'Upgrade your plan', details: 'Quota exceeded', code: 'PT402', message: 'Payment Required' }]);
    const bad = await call('/rpc/raise_bad_pt');
    expect([bad.status, bad.headers.get('content-length'), bad.json]).toEqual([500, '61', { hint: null, details: null, code: 'PT40A', message: 'Wrong' }]);
  });

  it('takes the status, status text, headers and body of RAISE SQLSTATE PGRST', async () => {
    const raw = await new Promise<{ status: number; statusText: string; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const url = new URL(`${project.url}/rest/v1/rpc/raise_sqlstate_test1`);
      const req = httpRequest(url, { headers: { apikey: project.keys.anon_key } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => {
          resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body });
        });
      });
      req.on('error', reject).end();
    });
    expect([raw.status, raw.statusText, raw.headers['x-header'], raw.headers['content-length'], raw.headers['proxy-status'], JSON.parse(raw.body)])
      .toEqual([332, 'My Custom Status', 'str', '59', 'PostgREST; error=123', { code: '123', message: 'ABC', details: 'DEF', hint: 'XYZ' }]);
    for (const [fn, status] of [['raise_sqlstate_test2', 332], ['raise_sqlstate_test3', 404], ['raise_sqlstate_test4', 404]] as const) {
      const res = await call(`/rpc/${fn}`);
      expect([res.status, res.headers.get('x-header'), res.json]).toEqual([status, 'str', { code: '123', message: 'ABC', details: null, hint: null }]);
    }
  });

  it('answers 500 PGRST121 for a RAISE SQLSTATE PGRST whose MESSAGE or DETAIL is not the JSON asked for', async () => {
    const message = 'Could not parse JSON in the "RAISE SQLSTATE \'PGRST\'" error';
    const messageHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
    const detailHint = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
    const cases = [
      ['raise_sqlstate_invalid_json_message', "Invalid JSON value for MESSAGE: 'INVALID'", messageHint],
      ['raise_sqlstate_invalid_json_details', "Invalid JSON value for DETAIL: 'INVALID'", detailHint],
      ['raise_sqlstate_missing_details', 'DETAIL is missing in the RAISE statement', detailHint],
    ] as const;
    for (const [fn, details, hint] of cases) {
      const res = await call(`/rpc/${fn}`);
      expect([res.status, res.json]).toEqual([500, { code: 'PGRST121', message, details, hint }]);
    }
    expect((await call('/rpc/raise_sqlstate_invalid_json_message')).headers.get('content-length')).toBe('263');
  });
});

describe("PostgREST's ErrorSpec: error bodies and Proxy-Status", () => {
  const answer = (res: Awaited<ReturnType<typeof call>>) => [res.status, res.headers.get('proxy-status'), res.headers.get('content-length'), res.json];
  const now = () => Math.floor(Date.now() / 1000);
  const jwtError = (code: string, message: string, details: string | null = null) => ({ code, message, details, hint: null });

  it('answers a path it cannot parse with 404 PGRST125', async () => {
    expect(answer(await call('/invalid/nested/paths'))).toEqual([404, 'PostgREST; error=PGRST125', '96',
      { code: 'PGRST125', details: null, hint: null, message: 'Invalid path specified in request URL' }]);
  });

  it('answers malformed tokens in PostgREST\'s words', async () => {
    const parts = await call('/add_them', { token: 'ey9zdGdyZXN0X3Rlc3RfYXV0aG9yIiwiaWQiOiJqZG9lIn0.y4vZuu1dDdwAl0-S00MCRWRYMlJ5YAMSir6Es6WtWx0' });
    expect(answer(parts)).toEqual([401, 'PostgREST; error=PGRST301', '89', jwtError('PGRST301', 'Expected 3 parts in JWT; got 2')]);
    expect(parts.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="Expected 3 parts in JWT; got 2"');
    expect((await call('/rpc/add_them?a=1&b=2', { token: 'quifquirndsjagnrgniur.fonvoienqhhdj.iuqvnvhojah' })).json)
      .toEqual(jwtError('PGRST301', 'JWT cryptographic operation failed'));
    expect((await call('/rpc/add_them?a=1&b=2', { token: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.e30.yOBhlOIqn56T-4NvyEXCjfi3UmyQZ-BzXtePMO2NgRI' })).json)
      .toEqual(jwtError('PGRST301', 'Wrong or unsupported encoding algorithm', "JWT is unsecured but expected 'alg' was not 'none'"));
    const wrongSecret = signJwt('wrong secret wrong secret wrong secret', { role: 'anon', exp: now() + 60 });
    expect((await call('/rpc/add_them?a=1&b=2', { token: wrongSecret })).json)
      .toEqual(jwtError('PGRST301', 'No suitable key or wrong key type', 'None of the keys was able to decode the JWT'));
  });

  it('answers claims it refuses with 401: an unknown role, expired, not yet valid, issued in the future', async () => {
    const token = (claims: Record<string, unknown>) => signJwt(project.record.jwtSecret, { role: 'anon', exp: now() + 60, ...claims });
    const role = await call('/rpc/add_them?a=1&b=2', { token: token({ role: 'not existing' }) });
    expect([role.status, role.json]).toEqual([401, { code: '22023', details: null, hint: null, message: 'role "not existing" does not exist' }]);
    const cases = [[{ exp: now() - 35 }, 'JWT expired'], [{ nbf: now() + 35 }, 'JWT not yet valid'], [{ iat: now() + 35 }, 'JWT issued at future']] as const;
    for (const [claims, message] of cases) {
      const res = await call('/rpc/add_them?a=1&b=2', { token: token(claims) });
      expect([res.status, res.json]).toEqual([401, jwtError('PGRST303', message)]);
    }
  });
});

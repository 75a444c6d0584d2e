import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createTestProject, fixtureSchema, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';
import { signJwt } from '../../../runtime/tokens/jwt.js';

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

const notFound = (message: string, details: string, hint: string | null) => ({ code: 'PGRST202', message, details, hint });
const ambiguous = (message: string) => ({
  code: 'PGRST203', message, details: null,
  hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
});

describe("PostgREST's RpcSpec: which function a call names", () => {
  it('answers 404 for an unknown function, hinting the closest name', async () => {
    expect((await call('/rpc/fakefunc', { method: 'POST', body: {} })).status).toBe(404);
    expect((await call('/rpc/fake')).status).toBe(404);
    const res = await call('/rpc/sayhell');
    expect([res.status, res.json]).toEqual([404, notFound('Could not find the function public.sayhell without parameters in the schema cache',
      'Searched for the function public.sayhell without parameters, but no matches were found in the schema cache.',
      'Perhaps you meant to call the function public.sayhello')]);
  });

  it('answers 404 for missing or unknown arguments instead of ignoring them, hinting the closest parameters', async () => {
    expect((await call('/rpc/sayhello')).status).toBe(404);
    expect((await call('/rpc/sayhello?any_arg=value')).status).toBe(404);
    const nam = await call('/rpc/sayhello?nam=Peter');
    expect([nam.status, nam.json]).toEqual([404, notFound('Could not find the function public.sayhello(nam) in the schema cache',
      'Searched for the function public.sayhello with parameter nam, but no matches were found in the schema cache.',
      'Perhaps you meant to call the function public.sayhello(name)')]);
    const extra = await call('/rpc/add_them?a=1&b=2&smthelse=blabla');
    expect([extra.status, extra.json]).toEqual([404, notFound('Could not find the function public.add_them(a, b, smthelse) in the schema cache',
      'Searched for the function public.add_them with parameters a, b, smthelse, but no matches were found in the schema cache.',
      'Perhaps you meant to call the function public.add_them(a, b)')]);
  });

  it('answers 404 for unknown arguments of an overloaded function', async () => {
    const wrong = await call('/rpc/overloaded?wrong_arg=value');
    expect([wrong.status, wrong.json]).toEqual([404, notFound('Could not find the function public.overloaded(wrong_arg) in the schema cache',
      'Searched for the function public.overloaded with parameter wrong_arg, but no matches were found in the schema cache.', null)]);
    const more = await call('/rpc/overloaded?a=1&b=2&wrong_arg=value');
    expect([more.status, more.json]).toEqual([404, notFound('Could not find the function public.overloaded(a, b, wrong_arg) in the schema cache',
      'Searched for the function public.overloaded with parameters a, b, wrong_arg, but no matches were found in the schema cache.',
      'Perhaps you meant to call the function public.overloaded(a, b, c)')]);
  });

  it('answers 300 for overloads the arguments cannot tell apart without casts', async () => {
    const res = await call('/rpc/overloaded_same_args?arg=value');
    expect([res.status, res.json]).toEqual([300, ambiguous('Could not choose the best candidate function between: '
      + 'public.overloaded_same_args(arg => integer), public.overloaded_same_args(arg => xml), public.overloaded_same_args(arg => text, num => integer)')]);
  });

  it('calls the overload the arguments name, by query string and by form', async () => {
    expect((await call('/rpc/overloaded')).json).toEqual([1, 2, 3]);
    expect((await call('/rpc/overloaded?a=1&b=2')).text).toBe('3');
    expect((await call('/rpc/overloaded?a=1&b=2&c=3')).json).toBe('123');
    expect((await form('overloaded_html_form', '')).json).toEqual([1, 2, 3]);
    expect((await form('overloaded_html_form', 'a=1&b=2')).text).toBe('3');
    expect((await form('overloaded_html_form', 'a=1&b=2&c=3')).json).toBe('123');
    expect((await call('/rpc/overloaded_default', { method: 'POST', body: { must_param: 1 } })).json).toEqual({ val: 1 });
    expect((await call('/rpc/overloaded_default', { method: 'POST', body: { a: 2, must_param: 4 } })).json).toEqual({ a: 2, val: 4 });
  });

  it('reads a JSON Content-Type with a charset or unrecognised parameters leniently (CustomMediaSpec)', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json; $$ unrecognized-chars=ignored $$']) {
      const res = await call('/rpc/overloaded_default', { method: 'POST', body: '{"must_param":1}', headers: { 'Content-Type': type } });
      expect([res.status, res.headers.get('content-type'), res.json]).toEqual([200, 'application/json; charset=utf-8', { val: 1 }]);
    }
  });
});

describe("PostgREST's RpcSpec: a single unnamed parameter", () => {
  const post = (fn: string, body: string | Uint8Array, type: string, accept?: string) =>
    call(`/rpc/${fn}`, { method: 'POST', body, headers: { 'Content-Type': type, ...(accept ? { Accept: accept } : {}) } });
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  it('takes the whole body of its type, and refuses a named json parameter', async () => {
    expect((await post('unnamed_json_param', '{"A": 1, "B": 2, "C": 3}', 'application/json')).json).toEqual({ A: 1, B: 2, C: 3 });
    expect((await post('unnamed_text_param', 'unnamed text arg', 'text/plain', 'text/plain')).text).toBe('unnamed text arg');
    const xml = '<note><from>John</from><to>Jane</to><message>Remember me</message></note>';
    expect((await post('unnamed_xml_param', xml, 'text/xml', 'text/xml')).text).toBe(xml);
    const bytes = await fetch(`${project.url}/rest/v1/rpc/unnamed_bytea_param`, {
      method: 'POST', body: PNG, headers: { apikey: project.keys.anon_key, 'Content-Type': 'application/octet-stream', Accept: 'application/octet-stream' },
    });
    expect(Buffer.from(await bytes.arrayBuffer()).equals(PNG)).toBe(true);
    const named = await post('named_json_param', '{"A": 1, "B": 2, "C": 3}', 'application/json');
    expect([named.status, named.json]).toEqual([404, notFound('Could not find the function public.named_json_param(A, B, C) in the schema cache',
      'Searched for the function public.named_json_param with parameters A, B, C or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.', null)]);
  });

  it('answers 404 naming the unnamed type no overload takes', async () => {
    const json = await post('unnamed_int_param', '{"x": 1, "y": 2}', 'application/json');
    expect([json.status, json.json]).toEqual([404, notFound('Could not find the function public.unnamed_int_param(x, y) in the schema cache',
      'Searched for the function public.unnamed_int_param with parameters x, y or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      'Perhaps you meant to call the function public.unnamed_text_param')]);
    for (const [type, name, body] of [['text/plain', 'text', 'a simple text'], ['text/xml', 'xml', 'a simple text'], ['application/octet-stream', 'bytea', PNG]] as const) {
      const res = await post('unnamed_int_param', body, type);
      expect([res.status, res.json]).toEqual([404, notFound('Could not find the function public.unnamed_int_param in the schema cache',
        `Searched for the function public.unnamed_int_param with a single unnamed ${name} parameter, but no matches were found in the schema cache.`, null)]);
    }
  });

  it('prefers the overload named by the keys and falls back to the unnamed one by Content-Type', async () => {
    expect((await post('overloaded_unnamed_param', '{}', 'application/json')).json).toBe(1);
    expect((await post('overloaded_unnamed_param', '{"x": 1, "y": 2}', 'application/json')).json).toBe(3);
    expect((await post('overloaded_unnamed_param', '{"A": 1, "B": 2, "C": 3}', 'application/json')).json).toEqual({ A: 1, B: 2, C: 3 });
    expect((await post('overloaded_unnamed_param', 'unnamed text arg', 'text/plain', 'text/plain')).text).toBe('unnamed text arg');
    const bytes = await fetch(`${project.url}/rest/v1/rpc/overloaded_unnamed_param`, {
      method: 'POST', body: PNG, headers: { apikey: project.keys.anon_key, 'Content-Type': 'application/octet-stream', Accept: 'application/octet-stream' },
    });
    expect(Buffer.from(await bytes.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('calls the function without parameters on GET whatever the Content-Type', async () => {
    for (const type of ['text/plain', 'application/octet-stream']) {
      const res = await call('/rpc/overloaded_unnamed_param', { headers: { 'Content-Type': type } });
      expect([res.status, res.json]).toEqual([200, 1]);
    }
  });

  it('does not pass a Content-Type PostgREST does not pass to the unnamed parameter', async () => {
    const res = await post('overloaded_unnamed_param', 'a,b\n1,2\n4,6\n100,200', 'text/csv');
    expect([res.status, res.json]).toEqual([404, notFound('Could not find the function public.overloaded_unnamed_param(a, b) in the schema cache',
      'Searched for the function public.overloaded_unnamed_param with parameters a, b, but no matches were found in the schema cache.',
      'Perhaps you meant to call the function public.overloaded_unnamed_param(x, y)')]);
  });

  it('answers 300 for unnamed json and jsonb overloads, and 400 2200N for invalid XML', async () => {
    const both = await post('overloaded_unnamed_json_jsonb_param', '{"A": 1, "B": 2, "C": 3}', 'application/json');
    expect([both.status, both.json]).toEqual([300, ambiguous('Could not choose the best candidate function between: '
      + 'public.overloaded_unnamed_json_jsonb_param( => json), public.overloaded_unnamed_json_jsonb_param( => jsonb)')]);
    const xml = await post('unnamed_xml_param', '<', 'text/xml', 'text/xml');
    expect([xml.status, xml.json]).toEqual([400,
      { code: '2200N', message: 'invalid XML content', details: 'line 1: StartTag: invalid element name\n<\n ^', hint: null }]);
  });
});

describe("PostgREST's RpcSpec: character and bit parameters", () => {
  it('takes character parameters as character varying, so the length is checked where the value is stored', async () => {
    const select = await call('/rpc/char_param_select?char_=abcdefg&char_arr={abc,abcdefg}');
    expect([select.status, select.json]).toEqual([200, [{ char_: 'abcdefg', char_arr: ['abc', 'abcdefg'] }]]);
    const insert = await call('/rpc/char_param_insert', { method: 'POST', body: { char_: 'abcdefg', char_arr: '{abc,abcdefg}' } });
    expect([insert.status, insert.json]).toEqual([400, { code: '22001', details: null, hint: null, message: 'value too long for type character(5)' }]);
  });

  it('takes bit parameters as bit varying', async () => {
    const select = await call('/rpc/bit_param_select?bit_=101010&bit_arr={101,101010}');
    expect([select.status, select.json]).toEqual([200, [{ bit_: '101010', bit_arr: ['101', '101010'] }]]);
    const insert = await call('/rpc/bit_param_insert', { method: 'POST', body: { bit_: '101010', bit_arr: '{101,101010}' } });
    expect([insert.status, insert.json]).toEqual([400, { code: '22026', details: null, hint: null, message: 'bit string length 6 does not match type bit(5)' }]);
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

  it('answers a plain RAISE with 400 P0001 and a failed ASSERT with 500 P0004', async () => {
    const raised = await call('/rpc/problem', { method: 'POST', body: {} });
    expect([raised.status, raised.json]).toEqual([400, { code: 'P0001', message: 'bad thing', details: null, hint: null }]);
    const asserted = await call('/rpc/assert', { method: 'POST', body: {} });
    expect([asserted.status, asserted.json]).toEqual([500, { code: 'P0004', message: 'bad thing', details: null, hint: null }]);
  });

  it('refuses an unknown Accept, malformed JSON and the methods a function does not take', async () => {
    expect((await call('/rpc/sayhello', { method: 'POST', body: { name: 'world' }, headers: { Accept: 'audio/mpeg3' } })).status).toBe(406);
    expect((await call('/rpc/sayhello?name=world', { headers: { Accept: 'audio/mpeg3' } })).status).toBe(406);
    const malformed = await call('/rpc/sayhello', { method: 'POST', body: 'sdfsdf', headers: { 'Content-Type': 'application/json' } });
    expect([malformed.status, (malformed.json as { code: string }).code]).toEqual([400, 'PGRST102']);
    const deleted = await call('/rpc/sayhello', { method: 'DELETE' });
    expect([deleted.status, deleted.headers.get('content-length'), deleted.json]).toEqual([405, '94',
      { message: 'Cannot use the DELETE method on RPC', code: 'PGRST101', details: null, hint: null }]);
    expect((await call('/rpc/sayhello', { method: 'PATCH' })).status).toBe(405);
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

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../runtime/calls/keys.js';
import { MAX_JSON_DEPTH } from '../../runtime/http/json.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../helpers/platform.js';
import { nestedArrays, nestedObjects } from './raw-http.js';

/**
 * Issue "Hardening" item 5: JSON nested deeper than MAX_JSON_DEPTH is refused when the body is
 * parsed, 400 in each API's error shape, instead of reaching PostgreSQL (500, 54001 stack
 * depth limit exceeded) or a recursive JSON.stringify.
 */

const SCHEMA = `
CREATE TABLE public.docs (id serial PRIMARY KEY, body jsonb);
GRANT ALL ON public.docs TO anon, authenticated, service_role;
GRANT USAGE ON SEQUENCE public.docs_id_seq TO anon, authenticated, service_role;
CREATE FUNCTION public.kind(doc jsonb) RETURNS text LANGUAGE sql AS $$ SELECT jsonb_typeof(doc) $$;
GRANT EXECUTE ON FUNCTION public.kind(jsonb) TO anon, authenticated, service_role;
`;

let t: TestHost;
let project: TestProject;

beforeAll(async () => {
  t = await startTestHost();
  project = await createTestProject(t.platform, { sql: SCHEMA, host: t.host, generate: true, autoconfirm: true });
});
afterAll(() => t?.close());

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(`${project.url}${path}`, {
    method: 'POST',
    headers: { apikey: project.keys.anon_key, 'Content-Type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

const tooDeep = { code: 'PGRST102', message: 'Empty or invalid json', details: `nesting is deeper than ${MAX_JSON_DEPTH} levels`, hint: null };

describe('data API', () => {
  it('an RPC body 50,000 objects deep: 400 PGRST102 before PostgreSQL sees it', async () => {
    const deep = await post('/rest/v1/rpc/kind', `{"doc":${nestedObjects(50_000)}}`);
    expect([deep.status, deep.json]).toEqual([400, tooDeep]);
  });

  it('an RPC body exactly at the bound is served; one level more is refused', async () => {
    const atBound = await post('/rest/v1/rpc/kind', `{"doc":${nestedArrays(MAX_JSON_DEPTH - 1)}}`);
    expect([atBound.status, atBound.json]).toEqual([200, 'array']);
    const past = await post('/rest/v1/rpc/kind', `{"doc":${nestedArrays(MAX_JSON_DEPTH)}}`);
    expect([past.status, past.json]).toEqual([400, tooDeep]);
  });

  it('brackets inside strings do not count', async () => {
    const text = JSON.stringify({ doc: { s: '['.repeat(5_000), t: '\\"[{'.repeat(1_000) } });
    const served = await post('/rest/v1/rpc/kind', text);
    expect([served.status, served.json]).toEqual([200, 'object']);
  });

  it('an insert with a value 100,000 levels deep: 400 PGRST102, nothing written', async () => {
    const deep = await post('/rest/v1/docs', `{"body":${nestedArrays(100_000)}}`);
    expect([deep.status, deep.json]).toEqual([400, tooDeep]);
    const bulk = await post('/rest/v1/docs', `[{"body":1},{"body":${nestedObjects(1_000)}}]`);
    expect([bulk.status, bulk.json]).toEqual([400, tooDeep]);
    const rows = await fetch(`${project.url}/rest/v1/docs?select=id`, { headers: { apikey: project.keys.anon_key } });
    expect(await rows.json()).toEqual([]);
  });

  it('malformed JSON keeps its answer (no details)', async () => {
    const broken = await post('/rest/v1/docs', '{"body":');
    expect([broken.status, broken.json]).toEqual([400, { code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null }]);
  });
});

describe('auth', () => {
  const signup = (data: string, headers: Record<string, string> = {}) =>
    post('/auth/v1/signup', `{"email":"deep-${randomBytes(4).toString('hex')}@example.com","password":"secret-pass-1","data":${data}}`, headers);

  it('signup metadata 50,000 levels deep: 400 bad_json in the GoTrue shape', async () => {
    const deep = await signup(nestedObjects(50_000));
    expect([deep.status, deep.json]).toEqual([400, { code: 400, error_code: 'bad_json', msg: `Could not parse request body as JSON: nesting is deeper than ${MAX_JSON_DEPTH} levels` }]);
    expect(deep.headers.get('x-sb-error-code')).toBe('bad_json');
    const versioned = await signup(nestedArrays(5_000), { 'X-Supabase-Api-Version': '2024-01-01' });
    expect([versioned.status, versioned.json]).toEqual([400, { code: 'bad_json', message: `Could not parse request body as JSON: nesting is deeper than ${MAX_JSON_DEPTH} levels` }]);
  });

  it('metadata within the bound signs up', async () => {
    const fine = await signup(nestedObjects(20));
    expect(fine.status).toBe(200);
  });

  it('a scalar or malformed body is bad_json as before', async () => {
    for (const body of ['"just a string"', '{"email":']) {
      const bad = await post('/auth/v1/signup', body);
      expect([bad.status, bad.json]).toEqual([400, { code: 400, error_code: 'bad_json', msg: 'Could not parse request body as JSON' }]);
    }
  });
});

describe('call analysis', () => {
  it('an analyze body nested deeper than the bound: 400 invalid_json as problem+json', async () => {
    const key = (await createApiKey(t.platform.pool, `tenant_${randomBytes(5).toString('hex')}`)).key;
    const res = await fetch(`${t.host.apiUrl}/v1/calls/analyze`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: `{"audio_url":"https://example.com/a.wav","language":"en","operator_id":${nestedArrays(5_000, '"x"')}}`,
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 400, code: 'invalid_json', detail: `the body is not valid JSON: nesting is deeper than ${MAX_JSON_DEPTH} levels` });
  });
});

import fs from 'node:fs/promises';
import path from 'node:path';
import { FunctionsHttpError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHost, TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, supabaseClient, userToken } from '../rest/http.js';
import { blogProject, superuser } from '../../helpers/extension-project.js';

/** Custom routes of a project's extension: `POST /functions/v1/<name>`, validated, in the caller's RLS transaction. */

let host: TestHost;
let project: TestProject;
const ANN = '00000000-0000-0000-0000-0000000000a1';
const BOB = '00000000-0000-0000-0000-0000000000b2';
let ann: string;

function invoke(name: string, body: string, token?: string, method = 'POST'): Promise<Response> {
  const headers: Record<string, string> = { apikey: project.keys.anon_key, 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(`${project.url}/functions/v1/${name}`, { method, headers, body: method === 'GET' ? undefined : body });
}

beforeAll(async () => {
  ({ host, project } = await blogProject());
  ann = userToken(project, ANN);
  const created = await restCaller(project)('/posts', { method: 'POST', token: ann, body: { title: 'Draft one', slug: '' }, headers: { Prefer: 'return=representation' } });
  expect(created.status).toBe(201);
});
afterAll(() => host?.close());

describe('custom routes', () => {
  it('refuses input that does not match the schema: 400 PGRST102 with the problems', async () => {
    const res = await invoke('publish', JSON.stringify({ post_id: 'one', extra: true }), ann);
    expect([res.status, await res.json()]).toEqual([400, errorBody('PGRST102', "Invalid input for function 'publish'", '$.extra: unknown property; $.post_id: expected integer, got string')]);
    const broken = await invoke('publish', '{"post_id":', ann);
    expect([broken.status, await broken.json()]).toEqual([400, errorBody('PGRST102', 'Empty or invalid json')]);
    const zero = await invoke('publish', JSON.stringify({ post_id: 0 }), ann);
    expect([zero.status, await zero.json()]).toEqual([400, errorBody('PGRST102', "Invalid input for function 'publish'", '$.post_id: less than 1')]);
  });

  it('runs the handler as the caller: its own post is published, another user gets the typed 404', async () => {
    const id = ((await restCaller(project)('/posts?select=id&slug=eq.draft-one', { token: ann })).json as { id: number }[])[0]!.id;
    const bob = await invoke('publish', JSON.stringify({ post_id: id }), userToken(project, BOB));
    expect([bob.status, await bob.json()]).toEqual([404, errorBody('post_not_found', `No post ${id} of yours`)]);
    const res = await invoke('publish', JSON.stringify({ post_id: id }), ann);
    expect([res.status, await res.json()]).toEqual([200, { id, status: 'published', outbox: 1 }]);
  });

  it('is what supabase-js functions.invoke calls', async () => {
    const client = supabaseClient(project, ann);
    const id = ((await client.from('posts').select('id').eq('slug', 'draft-one').single()).data as { id: number }).id;
    const { data, error } = await client.functions.invoke('publish', { body: { post_id: id } });
    expect(error).toBeNull();
    expect(data).toEqual({ id, status: 'published', outbox: 1 });
    const refused = await client.functions.invoke('publish', { body: { post_id: -1 } });
    expect(refused.error).toBeInstanceOf(FunctionsHttpError);
    expect((refused.error as FunctionsHttpError).context.status).toBe(400);
  });

  it('answers an unknown route 404 and another method 405 with Allow', async () => {
    const missing = await invoke('nope', '{}', ann);
    expect([missing.status, await missing.json()]).toEqual([404, errorBody('PGRST125', `Could not find the function 'nope' of project "${project.record.ref}"`)]);
    const get = await invoke('publish', '', ann, 'GET');
    expect([get.status, get.headers.get('allow'), ((await get.json()) as { code: string }).code]).toEqual([405, 'POST', 'PGRST117']);
  });

  it('is documented with its schemas in the served OpenAPI document and in the generated openapi.json and api.d.ts', async () => {
    const expected = {
      operationId: 'functions.publish',
      summary: 'Publishes one of your posts',
      tags: ['Functions (extensions)'],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', properties: { post_id: { type: 'integer', minimum: 1 } }, required: ['post_id'], additionalProperties: false } } },
      },
    };
    const served = (await (await fetch(`${project.url}/openapi.json`, { headers: { apikey: project.keys.anon_key } })).json()) as { paths: Record<string, { post: unknown }> };
    expect(served.paths['/functions/v1/publish']?.post).toMatchObject(expected);
    const dir = path.join(host.platform.config.generatedDir, project.record.ref);
    const document = JSON.parse(await fs.readFile(path.join(dir, 'openapi.json'), 'utf8')) as typeof served;
    expect(document.paths['/functions/v1/publish']?.post).toMatchObject(expected);
    const types = await fs.readFile(path.join(dir, 'api.d.ts'), 'utf8');
    expect(types).toContain('"/functions/v1/publish": {');
    expect(types).toMatch(/post_id: number;/);
  });
});

describe('custom routes at the edges', () => {
  const invalid = (details: string) => errorBody('PGRST102', "Invalid input for function 'publish'", details);

  it('refuses an integer beyond 2^53 at validation, with its path, rather than send PostgreSQL another number', async () => {
    const res = await invoke('publish', '{"post_id":9007199254740993}', ann);
    expect([res.status, await res.json()]).toEqual([400, invalid('$.post_id: more than 9007199254740991')]);
  });

  it('reports a __proto__ key as an unknown property', async () => {
    const res = await invoke('publish', '{"post_id":1,"__proto__":{"polluted":true}}', ann);
    expect([res.status, await res.json()]).toEqual([400, invalid('$.__proto__: unknown property')]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('takes only a JSON body: another Content-Type is refused as PostgREST refuses it', async () => {
    const text = await fetch(`${project.url}/functions/v1/publish`, {
      method: 'POST', headers: { apikey: project.keys.anon_key, authorization: `Bearer ${ann}`, 'content-type': 'text/plain' }, body: '{"post_id":1}',
    });
    expect([text.status, await text.json()]).toEqual([400, errorBody('PGRST102', 'Content-Type not acceptable: text/plain')]);
    const vendor = await fetch(`${project.url}/functions/v1/publish`, {
      method: 'POST', headers: { apikey: project.keys.anon_key, authorization: `Bearer ${ann}`, 'content-type': 'application/vnd.api+json; charset=utf-8' }, body: '{"post_id":0}',
    });
    expect([vendor.status, await vendor.json()]).toEqual([400, invalid('$.post_id: less than 1')]);
  });

  it("answers a whole number that came as a string (count(*) is a bigint) as the integer its output schema says", async () => {
    const res = await fetch(`${project.url}/functions/v1/post_count`, { headers: { apikey: project.keys.anon_key, authorization: `Bearer ${userToken(project, BOB)}` } });
    expect([res.status, await res.text()]).toEqual([200, '{"posts":0}']);
  });

  it("answers a query's server-side failure 500 PGRSTX00, without the schema's names the database's message holds", async () => {
    const res = await invoke('stale_query', '{}', ann);
    expect([res.status, await res.json()]).toEqual([500, errorBody('PGRSTX00', 'Internal server error')]);
  });

  it('answers a result its output schema does not allow 500 route_output_mismatch, and rolls its writes back', async () => {
    const id = ((await restCaller(project)('/posts?select=id&slug=eq.draft-one', { token: ann })).json as { id: number }[])[0]!.id;
    const res = await invoke('wrong_output', JSON.stringify({ post_id: id }), ann);
    expect([res.status, await res.json()]).toEqual([500, errorBody('route_output_mismatch', "Function 'wrong_output' answered a value its output schema does not allow")]);
    expect(await superuser(host, project, "SELECT id FROM public.outbox WHERE event = 'wrong_output'")).toEqual([]);
  });
});

describe('GET routes', () => {
  let ids: number[];

  beforeAll(async () => {
    const created = await restCaller(project)('/posts?select=id', {
      method: 'POST', token: ann, body: [{ title: 'Get A', slug: '' }, { title: 'Get B', slug: '' }], headers: { Prefer: 'return=representation' },
    });
    expect(created.status).toBe(201);
    ids = (created.json as { id: number }[]).map((row) => row.id);
  });

  const get = (query: string, token?: string, headers: Record<string, string> = { apikey: project.keys.anon_key }) =>
    fetch(`${project.url}/functions/v1/my_posts${query}`, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  it('take their input from the query string, converted as the schema says, and run as the caller', async () => {
    const res = await get('?slug=get-a&slug=get-b&limit=5&status=draft', ann);
    expect([res.status, await res.json()]).toEqual([200, [
      { id: ids[1], slug: 'get-b', status: 'draft' },
      { id: ids[0], slug: 'get-a', status: 'draft' },
    ]]);
    const one = await get('?slug=get-a&slug=get-b&limit=1', ann);
    expect(await one.json()).toEqual([{ id: ids[1], slug: 'get-b', status: 'draft' }]);
    // Bob's transaction sees none of Ann's posts.
    expect(await (await get('?slug=get-a', userToken(project, BOB))).json()).toEqual([]);
    // The API key may ride in the query string, as for the data API; it is not input.
    const keyed = await get(`?apikey=${project.keys.anon_key}&slug=get-a`, ann, {});
    expect([keyed.status, await keyed.json()]).toEqual([200, [{ id: ids[0], slug: 'get-a', status: 'draft' }]]);
  });

  it('refuse parameters that do not match the schema: 400 PGRST102 with the problems', async () => {
    const invalid = (details: string) => errorBody('PGRST102', "Invalid input for function 'my_posts'", details);
    for (const [query, details] of [
      ['?limit=0', '$.limit: less than 1'],
      ['?limit=ten', '$.limit: expected integer, got string'],
      ['?limit=1&limit=2', '$.limit: given more than once'],
      ['?status=gone', '$.status: expected one of "draft", "published"'],
      ['?nope=1', '$.nope: unknown property'],
    ] as const) {
      const res = await get(query, ann);
      expect([query, res.status, await res.json()]).toEqual([query, 400, invalid(details)]);
    }
  });

  it('run read-only: a write in the handler is refused and nothing changes', async () => {
    const res = await fetch(`${project.url}/functions/v1/unpublish_all`, { headers: { apikey: project.keys.anon_key, authorization: `Bearer ${ann}` } });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([405, '25006']);
    const post = await fetch(`${project.url}/functions/v1/my_posts`, { method: 'POST', headers: { apikey: project.keys.anon_key, 'content-type': 'application/json' }, body: '{}' });
    expect([post.status, post.headers.get('allow'), ((await post.json()) as { code: string }).code]).toEqual([405, 'GET', 'PGRST117']);
  });

  it('are what supabase-js functions.invoke calls with method GET, and are documented with query parameters', async () => {
    const { data, error } = await supabaseClient(project, ann).functions.invoke('my_posts?slug=get-b', { method: 'GET' });
    expect([error, data]).toEqual([null, [{ id: ids[1], slug: 'get-b', status: 'draft' }]]);
    const served = (await (await fetch(`${project.url}/openapi.json`, { headers: { apikey: project.keys.anon_key } })).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(served.paths['/functions/v1/my_posts']!)).toEqual(['get']);
    expect(served.paths['/functions/v1/my_posts']!.get).toMatchObject({
      operationId: 'functions.my_posts',
      parameters: [
        { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['draft', 'published'] } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
        { name: 'slug', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
      ],
    });
    const types = await fs.readFile(path.join(host.platform.config.generatedDir, project.record.ref, 'api.d.ts'), 'utf8');
    expect(types).toContain('"/functions/v1/my_posts": {');
  });
});

describe('routes of other methods', () => {
  it('take a JSON body in a read-write transaction and answer only their method', async () => {
    const created = await restCaller(project)('/posts?select=id', { method: 'POST', token: ann, body: { title: 'Old title', slug: '' }, headers: { Prefer: 'return=representation' } });
    const id = (created.json as { id: number }[])[0]!.id;
    const { data, error } = await supabaseClient(project, ann).functions.invoke('retitle', { method: 'PATCH', body: { post_id: id, title: 'New title' } });
    expect([error, data]).toEqual([null, { id, title: 'New title' }]);
    const stored = await restCaller(project)(`/posts?select=title&id=eq.${id}`, { token: ann });
    expect(stored.json).toEqual([{ title: 'New title' }]);
    const post = await invoke('retitle', JSON.stringify({ post_id: id, title: 'x' }), ann);
    expect([post.status, post.headers.get('allow'), ((await post.json()) as { code: string }).code]).toEqual([405, 'PATCH', 'PGRST117']);
    const served = (await (await fetch(`${project.url}/openapi.json`, { headers: { apikey: project.keys.anon_key } })).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(served.paths['/functions/v1/retitle']!)).toEqual(['patch']);
    expect(served.paths['/functions/v1/retitle']!.patch).toMatchObject({ operationId: 'functions.retitle', requestBody: { required: true } });
  });
});

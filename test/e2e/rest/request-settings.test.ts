import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectSettings } from '../../../runtime/platform/project-context.js';
import { createTestProject, fixtureSchema, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, userToken } from './http.js';

/**
 * What the transaction of a request sets besides role and claims, as PostgREST: `search_path` (the request's
 * schema, then `api.extra_search_path`), `Prefer: timezone`, `request.cookies` and `request.path`; and
 * `api.max_rows` (db-max-rows) capping reads and function results; `app.settings.*` GUCs.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

async function settle(settings: Partial<ProjectSettings>): Promise<void> {
  await host.platform.setSettings(project.record.ref, settings);
  await host.host.directory.reload(project.record.ref);
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('request-settings.sql'), generate: true });
  call = restCaller(project);
  await settle({ 'api.schemas': ['public', 'v2'] });
});
afterAll(() => host?.close());

describe('the search path', () => {
  it("puts the request's schema first, then the extra schemas (default public, extensions)", async () => {
    const v2 = await call('/rpc/item_count', { headers: { 'Accept-Profile': 'v2' } });
    expect([v2.status, v2.json]).toEqual([200, 2]);
    const context = await call('/rpc/request_context');
    expect((context.json as { search_path: string }).search_path).toBe('"public", "public", "extensions"');
    // Objects of the extra schemas resolve too, as in PostgREST with db-extra-search-path=public.
    expect((await call('/rpc/public_count', { headers: { 'Accept-Profile': 'v2' } })).json).toBe(1);
  });

  it('leaves public out of another schema\'s requests when api.extra_search_path is empty', async () => {
    await settle({ 'api.extra_search_path': [] });
    try {
      const leak = await call('/rpc/public_count', { headers: { 'Accept-Profile': 'v2' } });
      expect([leak.status, leak.json]).toEqual([404, errorBody('42P01', 'relation "only_public" does not exist')]);
      expect((await call('/rpc/item_count', { headers: { 'Accept-Profile': 'v2' } })).json).toBe(2);
    } finally {
      await settle({ 'api.extra_search_path': ['public', 'extensions'] });
    }
  });
});

describe('Content-Profile', () => {
  it('names the default schema of a project exposing several, as PostgREST (the default counts as negotiated)', async () => {
    const plain = await call('/rpc/many_ids');
    expect([plain.status, plain.headers.get('content-profile')]).toEqual([200, 'public']);
    const v2 = await call('/rpc/item_count', { headers: { 'Accept-Profile': 'v2' } });
    expect([v2.status, v2.headers.get('content-profile')]).toEqual([200, 'v2']);
  });
});

describe('Prefer: timezone', () => {
  it('shows timestamps in the zone asked for and says so in Preference-Applied', async () => {
    const res = await call('/timestamps?order=t', { headers: { Prefer: 'timezone=America/Los_Angeles' } });
    expect([res.status, res.headers.get('preference-applied'), res.json]).toEqual([
      200, 'timezone=America/Los_Angeles', [{ t: '2023-10-18T05:37:59.611-07:00' }, { t: '2023-10-18T07:37:59.611-07:00' }],
    ]);
    const strict = await call('/timestamps?order=t&limit=1', { headers: { Prefer: 'handling=strict, timezone=+05:30' } });
    expect([strict.headers.get('preference-applied'), strict.json]).toEqual(['handling=strict, timezone=+05:30', [{ t: '2023-10-18T07:07:59.611-05:30' }]]);
    const plain = await call('/timestamps?order=t&limit=1');
    expect([plain.headers.get('preference-applied'), plain.json]).toEqual([null, [{ t: '2023-10-18T12:37:59.611+00:00' }]]);
  });

  it('refuses an unknown zone with 400 22023, lenient or not', async () => {
    for (const prefer of ['timezone=Invalid/Timezone', 'handling=lenient, timezone=Invalid/Timezone']) {
      const res = await call('/timestamps', { headers: { Prefer: prefer } });
      expect([res.status, res.json]).toEqual([400, errorBody('22023', 'invalid value for parameter "TimeZone": "Invalid/Timezone"')]);
    }
  });
});

describe('request.path and request.cookies', () => {
  it('sets the path below /rest/v1 and the cookies as a JSON object', async () => {
    const res = await call('/rpc/request_context', { headers: { Cookie: 'session=abc; theme=dark%20blue; __proto__=x' } });
    expect(res.json).toEqual({
      path: '/rpc/request_context',
      cookies: { session: 'abc', theme: 'dark blue', ['__proto__']: 'x' },
      search_path: '"public", "public", "extensions"',
      timezone: expect.any(String),
    });
    expect(((await call('/rpc/request_context')).json as { cookies: unknown }).cookies).toEqual({});
  });
});

describe('api.max_rows', () => {
  it('caps reads and function results at 1000 rows by default, as Supabase', async () => {
    const read = await call('/many?select=id');
    expect([read.status, (read.json as unknown[]).length, read.headers.get('content-range')]).toEqual([200, 1000, '0-999/*']);
    const counted = await call('/many?select=id', { headers: { Prefer: 'count=exact' } });
    expect([counted.status, counted.headers.get('content-range')]).toEqual([206, '0-999/1001']);
    expect(((await call('/rpc/many_ids')).json as unknown[]).length).toBe(1000);
  });

  it('takes the project setting, and no cap when unset', async () => {
    await settle({ 'api.max_rows': 2 });
    const capped = await call('/many?select=id&order=id');
    expect([capped.json, capped.headers.get('content-range')]).toEqual([[{ id: 1 }, { id: 2 }], '0-1/*']);
    expect((await call('/many?select=id&order=id&offset=5&limit=10')).json).toEqual([{ id: 6 }, { id: 7 }]);
    await settle({ 'api.max_rows': null });
    expect(((await call('/many?select=id')).json as unknown[]).length).toBe(1001);
    await settle({ 'api.max_rows': 1000 });
  });
});

describe('response.status and response.headers', () => {
  it('takes headers a function sets, a name twice included, and the status it sets', async () => {
    const res = await call('/rpc/guc_headers', { method: 'POST', body: {} });
    expect([res.status, res.json, res.headers.get('x-test'), res.headers.getSetCookie()]).toEqual([200, 1, 'a=1; b', ['one=1; Path=/', 'two=2; HttpOnly']]);
    const denied = await call('/rpc/status_403', { method: 'POST', body: {} });
    expect([denied.status, denied.json]).toEqual([403, { message: 'invalid user or password' }]);
  });

  it('takes what a trigger sets: the status and a Location replacing ours', async () => {
    const res = await call('/queued', { method: 'POST', token: project.keys.service_key, body: { id: 7 }, headers: { Prefer: 'return=headers-only' } });
    expect([res.status, res.headers.get('location')]).toEqual([202, '/queue/7']);
  });

  it('answers 500 PGRST111 / PGRST112 for settings of the wrong shape', async () => {
    const headers = await call('/rpc/bad_headers', { method: 'POST', body: {} });
    expect([headers.status, headers.json]).toEqual([500, errorBody('PGRST111', 'response.headers guc must be a JSON array composed of objects with a single key and a string value')]);
    const status = await call('/rpc/bad_status', { method: 'POST', body: {} });
    expect([status.status, status.json]).toEqual([500, errorBody('PGRST112', 'response.status guc must be a valid status code')]);
  });
});

describe('api.pre_request', () => {
  it('runs the function first in every request\'s transaction: it sees the request, may refuse it or set headers', async () => {
    await settle({ 'api.pre_request': 'public.check_request' });
    try {
      const ok = await call('/timestamps?select=t&limit=1');
      expect([ok.status, ok.headers.get('x-pre-request')]).toEqual([200, '/timestamps']);
      const blocked = await call('/timestamps', { headers: { 'X-Block': 'yes' } });
      expect([blocked.status, blocked.json]).toEqual([403, errorBody('PT403', 'blocked by the pre-request function')]);
      const write = await call('/queued', { method: 'POST', token: project.keys.service_key, body: { id: 8 }, headers: { 'X-Block': 'yes' } });
      expect(write.status).toBe(403);
      expect((await call('/queued?id=eq.8', { token: project.keys.service_key })).json).toEqual([]);
    } finally {
      await settle({ 'api.pre_request': '' });
    }
    expect((await call('/timestamps?select=t&limit=1')).headers.get('x-pre-request')).toBeNull();
  });
});

describe('app.settings', () => {
  it('sets each as a transaction-local GUC in every request, read by functions and row-level security policies', async () => {
    expect((await call('/rpc/app_setting?name=tenant')).json).toBeNull();
    expect((await call('/tenants_rows')).json).toEqual([]);
    await settle({ 'app.settings': { tenant: 'acme', 'jwt_secret': "it's a secret" } });
    try {
      const read = await call('/rpc/app_setting?name=jwt_secret');
      expect([read.status, read.json]).toEqual([200, "it's a secret"]);
      const rows = await call('/tenants_rows?order=id');
      expect([rows.status, rows.json]).toEqual([200, [{ id: 1, tenant: 'acme' }, { id: 3, tenant: 'acme' }]]);
      // With a timezone and the pre-request function, the other shapes of the identity statement.
      await settle({ 'api.pre_request': 'public.check_request' });
      const zoned = await call('/tenants_rows?order=id&select=id', { headers: { Prefer: 'timezone=UTC' } });
      expect([zoned.status, zoned.headers.get('x-pre-request'), zoned.json]).toEqual([200, '/tenants_rows', [{ id: 1 }, { id: 3 }]]);
    } finally {
      await settle({ 'app.settings': {}, 'api.pre_request': '' });
    }
    expect((await call('/rpc/app_setting?name=tenant')).json).toBeNull();
    expect((await call('/tenants_rows')).json).toEqual([]);
  });
});

describe("PostgREST's RpcSpec: HTTP request env vars", () => {
  const guc = (args: Record<string, string>, headers: Record<string, string> = {}, token?: string) =>
    call('/rpc/get_guc_value', { method: 'POST', body: args, headers, ...(token ? { token } : {}) });

  it('lets functions read headers, the Authorization header included, cookies, the role claim, method and path', async () => {
    expect((await guc({ prefix: 'request.headers', name: 'custom-header' }, { 'Custom-Header': 'test' })).json).toBe('test');
    expect((await guc({ prefix: 'request.headers', name: 'origin' }, { Origin: 'http://example.com' })).json).toBe('http://example.com');
    expect((await guc({ prefix: 'request.jwt.claims', name: 'role' })).json).toBe('anon');
    expect((await guc({ prefix: 'request.cookies', name: 'acookie' }, { Cookie: 'acookie=cookievalue' })).json).toBe('cookievalue');
    expect((await guc({ prefix: 'request.cookies', name: 'secondcookie' }, { Cookie: 'acookie=cookievalue;secondcookie=anothervalue' })).json).toBe('anothervalue');
    const token = userToken(project, '00000000-0000-0000-0000-000000000001');
    const authorization = await guc({ prefix: 'request.headers', name: 'authorization' }, {}, token);
    expect([authorization.status, authorization.json]).toEqual([200, `Bearer ${token}`]);
    expect((await guc({ name: 'request.method' })).json).toBe('POST');
    expect((await guc({ name: 'request.path' })).json).toBe('/rpc/get_guc_value');
  });

  it('lets functions read app.settings.*', async () => {
    await settle({ 'app.settings': { app_host: 'localhost' } });
    try {
      const res = await guc({ name: 'app.settings.app_host' });
      expect([res.status, res.json]).toEqual([200, 'localhost']);
    } finally {
      await settle({ 'app.settings': {} });
    }
  });
});

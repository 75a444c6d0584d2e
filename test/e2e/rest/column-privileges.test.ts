import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller } from './http.js';

/**
 * Writes by a role with column-level SELECT privileges only (test/fixtures/schemas/rest-column-privileges.sql): the
 * representation reads the selected columns alone, so it works when those are granted. Expected answers are PostgREST's
 * (DeleteSpec, InsertSpec, UpdateSpec "table with limited privileges"), but for 42501's status, 403 for every role here.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-column-privileges.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

const representation = { Prefer: 'return=representation' };
const denied = errorBody('42501', 'permission denied for table app_users');
const rows = async (): Promise<unknown> => (await call('/app_users?select=id,email&order=id')).json;

describe('a representation of the granted columns', () => {
  it('DELETE with select of the granted columns deletes and returns them; all columns is 42501 and deletes nothing', async () => {
    const all = await call('/app_users?id=eq.1', { method: 'DELETE', headers: representation });
    expect([all.status, all.json]).toEqual([403, denied]);
    expect(await rows()).toEqual([{ id: 1, email: 'test@123.com' }, { id: 2, email: 'abc@123.com' }, { id: 3, email: 'def@123.com' }]);
    const some = await call('/app_users?id=eq.1&select=id,email', { method: 'DELETE', headers: representation });
    expect([some.status, some.json]).toEqual([200, [{ id: 1, email: 'test@123.com' }]]);
    const minimal = await call('/app_users?id=eq.2', { method: 'DELETE', headers: { Prefer: 'return=minimal' } });
    expect([minimal.status, minimal.text, minimal.headers.get('preference-applied')]).toEqual([204, '', 'return=minimal']);
    expect(await rows()).toEqual([{ id: 3, email: 'def@123.com' }]);
  });

  it('POST with select of the granted columns inserts and returns them; more columns is 42501', async () => {
    const some = await call('/app_users?select=id,email', { method: 'POST', headers: representation, body: { id: 4, email: 'new@123.com', password: 'x' } });
    expect([some.status, some.json]).toEqual([201, [{ id: 4, email: 'new@123.com' }]]);
    const more = await call('/app_users?select=id,email,password', { method: 'POST', headers: representation, body: { id: 5, email: 'five@123.com', password: 'x' } });
    expect([more.status, more.json]).toEqual([403, denied]);
    const location = await call('/app_users', { method: 'POST', headers: { Prefer: 'return=headers-only' }, body: { id: 6, email: 'six@123.com', password: 'x' } });
    expect([location.status, location.headers.get('location')]).toEqual([201, '/app_users?id=eq.6']);
  });

  it('PATCH with select of the granted columns, and with return=minimal', async () => {
    const some = await call('/app_users?id=eq.3&select=email', { method: 'PATCH', headers: representation, body: { password: 'passxyz', email: 'upd@123.com' } });
    expect([some.status, some.json]).toEqual([200, [{ email: 'upd@123.com' }]]);
    const minimal = await call('/app_users?id=eq.3', { method: 'PATCH', headers: { Prefer: 'return=minimal' }, body: { password: 'passabc' } });
    expect([minimal.status, minimal.text]).toEqual([204, '']);
    const empty = await call('/app_users?id=eq.3&select=id', { method: 'PATCH', headers: representation, body: {} });
    expect([empty.status, empty.json]).toEqual([200, []]);
  });
});

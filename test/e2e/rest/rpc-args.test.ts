import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';

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

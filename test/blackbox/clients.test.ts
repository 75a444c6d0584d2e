import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  cli,
  cliOk,
  jsonObject,
  servedInstallation,
  shutDown,
  type Installation,
  type Server,
} from '../helpers/serve-process.js';
import {
  eventually,
  request,
  sqlFile,
  uniqueRef,
  type PrintedKeys as Keys,
} from '../helpers/blackbox-projects.js';

/**
 * The clients users point at a project the CLI created: supabase-js with the printed
 * url and anon key, plain fetch on auth, and the call-analysis API with a key from
 * `gantry calls key create`.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });


const SHOP = `CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO products VALUES (1, 'Kettle'), (2, 'Teapot');
`;

let inst: Installation;
let server: Server;
let keys: Keys;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
  const schema = await sqlFile(inst, 'shop.sql', SHOP);
  keys = jsonObject(await cliOk(['project', 'create', uniqueRef('bbc'), '--schema', schema, '--autoconfirm', '--json'], inst.env)) as unknown as Keys;
  await eventually(2000, () => request(`${keys.url}/rest/v1/products`, { headers: { apikey: keys.anon_key } }), (a) => a.status === 200);
});
afterAll(async () => {
  await shutDown(server);
});

describe('supabase-js on a project created by the CLI', () => {
  it('createClient(url, anon_key) reads rows and signs up', async () => {
    // Node 20 has no WebSocket of its own; supabase-js users there hand it `ws`.
    const supabase = createClient(keys.url, keys.anon_key, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    const rows = await supabase.from('products').select('id, name').order('id');
    expect(rows.error).toBeNull();
    expect(rows.data).toEqual([
      { id: 1, name: 'Kettle' },
      { id: 2, name: 'Teapot' },
    ]);
    const signUp = await supabase.auth.signUp({ email: 'js@example.com', password: 'correct horse battery staple' });
    expect(signUp.error).toBeNull();
    expect(signUp.data.user?.email).toBe('js@example.com');
    expect(signUp.data.session?.access_token).toEqual(expect.any(String));
    const user = await supabase.auth.getUser();
    expect(user.error).toBeNull();
    expect(user.data.user?.id).toBe(signUp.data.user?.id);
    const asUser = await supabase.from('products').select('id').eq('id', 2);
    expect(asUser).toMatchObject({ error: null, status: 200, data: [{ id: 2 }] });
  });

  it('GET /auth/v1/user with the access token in the apikey header alone answers 200', async () => {
    const signup = await request(`${keys.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'header@example.com', password: 'correct horse battery staple' }),
    });
    expect(signup.status).toBe(200);
    const { access_token: token, user } = signup.body as { access_token: string; user: { id: string } };
    const answer = await request(`${keys.url}/auth/v1/user`, { headers: { apikey: token } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, email: 'header@example.com', role: 'authenticated' });
  });
});

describe('gantry calls key create / revoke', () => {
  it('a created key works on {api_url}; revoked, it is refused at once', async () => {
    const tenant = uniqueRef('tenant');
    const created = await cli(['calls', 'key', 'create', '--tenant', tenant, '--json'], inst.env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const key = jsonObject(created) as { id: string; key: string; tenant: string };
    expect(Object.keys(key).sort()).toEqual(['id', 'key', 'tenant']);
    expect(key.tenant).toBe(tenant);
    const auth = { headers: { authorization: `Bearer ${key.key}` } };
    const list = await request(`${inst.apiUrl}/v1/calls`, auth);
    expect(list).toMatchObject({ status: 200, body: { object: 'list', data: [], has_more: false, next_cursor: null } });

    const revoked = await cli(['calls', 'key', 'revoke', key.id, '--json'], inst.env);
    expect(revoked.code).toBe(0);
    expect(jsonObject(revoked)).toEqual({ id: key.id, tenant, revoked_at: expect.any(String) });
    const refused = await request(`${inst.apiUrl}/v1/calls`, auth);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'api_key_revoked' });

    const unknown = await cli(['calls', 'key', 'revoke', `key_${'0'.repeat(24)}`, '--json'], inst.env);
    expect(unknown.code).toBe(1);
    expect(jsonObject(unknown)).toMatchObject({ error: { code: 'key_not_found' } });
  });
});

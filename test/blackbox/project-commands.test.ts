import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
  createProject,
  eventually,
  getProject,
  projectNotFound,
  request,
  SHOP_SQL,
  sqlFile,
  uniqueRef,
  watchTable,
  type Answer,
  type PrintedKeys as Keys,
} from '../helpers/blackbox-projects.js';

/**
 * The project commands of the CLI, each run as its own process beside a running
 * `gantry serve`, their effect asserted through the server's HTTP API only.
 */

// Every CLI run is a fresh Node process that loads the generator: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

const ROWS = [
  { id: 1, name: 'Kettle', price: 25.5 },
  { id: 2, name: 'Teapot', price: 18 },
];

let inst: Installation;
let server: Server;
/** A project the read-only tests share. */
let shop: Keys;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
  shop = await createProject(inst, ['--schema', SHOP_SQL]);
});
afterAll(async () => {
  await shutDown(server);
});

function signup(keys: Keys, email: string): Promise<Answer> {
  return request(`${keys.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple' }),
  });
}

describe('gantry project create --schema', () => {

  it('prints the keys object and the running server serves its rows within 2 s, never answering as if the table were missing', async () => {
    const ref = uniqueRef('bb');
    const url = `${inst.baseUrl}/v1/${ref}`;
    // Polls from before the command starts until the rows are served after it returned.
    const watch = watchTable(inst.baseUrl, ref, 'products?select=id,name,price&order=id');
    let unexpected: Answer[] = [];
    try {
      const run = await cli(['project', 'create', ref, '--schema', SHOP_SQL, '--json'], inst.env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const keys = jsonObject(run) as unknown as Keys;
      expect(Object.keys(keys).sort()).toEqual(['anon_key', 'jwt_secret', 'ref', 'service_key', 'url']);
      expect(keys).toMatchObject({ ref, url });
      for (const value of [keys.anon_key, keys.service_key]) expect(value).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(keys.jwt_secret).toMatch(/^\S{32,}$/);
      watch.useKey(keys.anon_key);
      const served = await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id,name,price&order=id'), (a) => a.status === 200);
      expect(served.body).toEqual(ROWS);
    } finally {
      unexpected = await watch.stop();
    }
    expect(unexpected).toEqual([]);
  });

  it('serves the project in full: RPC, /openapi.json listing the table, /docs', async () => {
    const keys = shop;
    await eventually(2000, () => getProject(keys, 'rest/v1/products?select=id'), (a) => a.status === 200);
    const rpc = await request(`${keys.url}/rest/v1/rpc/product_count`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(rpc).toMatchObject({ status: 200, body: 2 });
    const openapi = await getProject(keys, 'openapi.json');
    expect(openapi.status).toBe(200);
    const paths = Object.keys((openapi.body as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(expect.arrayContaining(['/rest/v1/products', '/rest/v1/rpc/product_count']));
    const docs = await getProject(keys, 'docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/<html/i);
  });

  it('project keys prints the same object as create', async () => {
    const keys = shop;
    const run = await cli(['project', 'keys', keys.ref, '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toEqual(keys);
  });

  it('project list --json holds the project', async () => {
    const keys = shop;
    const run = await cli(['project', 'list', '--json'], inst.env);
    expect(run.code).toBe(0);
    const { projects } = jsonObject(run) as { projects: { ref: string; url: string }[] };
    expect(projects.find((p) => p.ref === keys.ref)).toMatchObject({ ref: keys.ref, url: keys.url });
  });

  it('a failing schema file exits 1 naming file:line and SQLSTATE, and leaves no project behind', async () => {
    const ref = uniqueRef('bb');
    const broken = await sqlFile(inst, 'broken.sql', 'CREATE TABLE fine (id int);\n\nALTER TABLE nowhere ADD COLUMN x int;\n');
    const run = await cli(['project', 'create', ref, '--schema', broken, '--json'], inst.env);
    expect(run.code).toBe(1);
    const message = `${broken}:3: relation "nowhere" does not exist (SQLSTATE 42P01)`;
    expect(run.stderr).toBe(`gantry: ${message}\n`);
    expect(jsonObject(run)).toEqual({ error: { code: 'schema_failed', message } });
    expect(await request(`${inst.baseUrl}/v1/${ref}/rest/v1/fine`)).toMatchObject({ status: 404, body: projectNotFound(ref) });
    const keysRun = await cli(['project', 'keys', ref, '--json'], inst.env);
    expect(keysRun.code).toBe(1);
    expect(jsonObject(keysRun)).toEqual({ error: { code: 'project_not_found', message: `project "${ref}" does not exist` } });
  });
});

describe('sign-up confirmation settings', () => {
  it('--autoconfirm: a sign-up returns a session at once', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL, '--autoconfirm']);
    const answer = await eventually(2000, () => signup(keys, 'auto@example.com'), (a) => a.status !== 404);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), user: { email: 'auto@example.com' } });
  });

  it('project config --set auth.autoconfirm=true changes sign-up on the running server', async () => {
    const keys = await createProject(inst, ['--schema', SHOP_SQL]);
    const before = await eventually(2000, () => signup(keys, 'first@example.com'), (a) => a.status !== 404);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ user: { email: 'first@example.com', confirmation_sent_at: expect.any(String) }, session: null });

    const run = await cli(['project', 'config', keys.ref, '--set', 'auth.autoconfirm=true', '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({ ref: keys.ref, settings: { 'auth.autoconfirm': true } });
    // Sign-ups are rate limited: wait for the setting through the settings endpoint, then sign up once.
    await eventually(2000, () => request(`${keys.url}/auth/v1/settings`, { headers: { apikey: keys.anon_key } }), (a) =>
      (a.body as { mailer_autoconfirm?: boolean }).mailer_autoconfirm === true,
    );
    const after = await signup(keys, 'later@example.com');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ access_token: expect.any(String), token_type: 'bearer', user: { email: 'later@example.com' } });
  });

  it('project config --set auth.passkey.enabled, auth.mfa.webauthn.enabled and auth.webauthn.* turn passkeys on for the relying party set', async () => {
    const keys = shop;
    const badOrigin = await cli(['project', 'config', keys.ref, '--set', 'auth.webauthn.rp_origins=https://app.example.com/login', '--json'], inst.env);
    expect(badOrigin.code).toBe(1);
    expect(jsonObject(badOrigin)).toMatchObject({ error: { code: 'invalid_setting', message: expect.stringContaining('auth.webauthn.rp_origins') } });

    const run = await cli(
      ['project', 'config', keys.ref, '--set', 'auth.passkey.enabled=true', '--set', 'auth.webauthn.rp_id=example.com',
        '--set', 'auth.webauthn.rp_origins=https://app.example.com,https://example.com', '--set', 'auth.mfa.webauthn.enabled=true', '--json'],
      inst.env,
    );
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({
      settings: { 'auth.passkey.enabled': true, 'auth.mfa.webauthn.enabled': true, 'auth.webauthn.rp_id': 'example.com', 'auth.webauthn.rp_origins': ['https://app.example.com', 'https://example.com'] },
    });
    const options = () =>
      request(`${keys.url}/auth/v1/passkeys/authentication/options`, {
        method: 'POST',
        headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
        body: '{}',
      });
    const on = await eventually(2000, options, (a) => a.status === 200);
    expect(on.body).toMatchObject({ challenge_id: expect.any(String), options: { rpId: 'example.com', challenge: expect.any(String) } });

    await cliOk(['project', 'config', keys.ref, '--set', 'auth.passkey.enabled=false'], inst.env);
    const off = await eventually(2000, options, (a) => a.status === 404);
    expect(off.body).toMatchObject({ error_code: 'passkey_disabled' });
  });

  it('project config with an unknown key or a bad value exits 1 and changes nothing', async () => {
    const keys = shop;
    const unknown = await cli(['project', 'config', keys.ref, '--set', 'auth.nonsense=true', '--json'], inst.env);
    expect(unknown.code).toBe(1);
    expect(jsonObject(unknown)).toMatchObject({ error: { code: 'invalid_setting', message: expect.stringContaining('auth.nonsense') } });
    const bad = await cli(['project', 'config', keys.ref, '--set', 'auth.autoconfirm=maybe'], inst.env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^gantry: .*"maybe".*\n$/);
    const list = jsonObject(await cliOk(['project', 'list', '--json'], inst.env)) as { projects: { ref: string; settings: Record<string, unknown> }[] };
    expect(list.projects.find((p) => p.ref === keys.ref)?.settings['auth.autoconfirm']).toBe(false);
    const answer = await request(`${keys.url}/auth/v1/settings`, { headers: { apikey: keys.anon_key } });
    expect(answer.body).toMatchObject({ mailer_autoconfirm: false });
  });

  it('project config --set app.settings.NAME=VALUE sets a GUC the data API\'s requests read; an empty value removes it', async () => {
    const schema = await sqlFile(inst, 'app-settings.sql', [
      'CREATE FUNCTION public.greeting() RETURNS text LANGUAGE sql STABLE AS',
      "$$ SELECT nullif(current_setting('app.settings.greeting', true), '') $$;",
      'GRANT EXECUTE ON FUNCTION public.greeting() TO anon;',
      '',
    ].join('\n'));
    const keys = await createProject(inst, ['--schema', schema]);
    const greeting = () => getProject(keys, 'rest/v1/rpc/greeting');
    expect((await eventually(2000, greeting, (a) => a.status === 200)).body).toBeNull();

    const set = await cli(['project', 'config', keys.ref, '--set', 'app.settings.greeting=hello, world', '--set', 'app.settings.other=x'], inst.env);
    expect([set.code, set.stdout.split('\n').filter((line) => line.startsWith('app.settings.'))]).toEqual([0, ['app.settings.greeting=hello, world', 'app.settings.other=x']]);
    expect((await eventually(2000, greeting, (a) => a.body !== null)).body).toBe('hello, world');

    const removed = await cli(['project', 'config', keys.ref, '--set', 'app.settings.greeting=', '--json'], inst.env);
    expect([removed.code, (jsonObject(removed) as { settings: Record<string, unknown> }).settings['app.settings']]).toEqual([0, { other: 'x' }]);
    expect((await eventually(2000, greeting, (a) => a.body === null)).body).toBeNull();

    const bad = await cli(['project', 'config', keys.ref, '--set', 'app.settings.no-dash=x', '--json'], inst.env);
    expect([bad.code, jsonObject(bad)]).toEqual([1, { error: { code: 'invalid_setting', message: 'app.settings.no-dash: expected a name of letters, digits, _ and $ (dot-separated words not starting with a digit)' } }]);
  });
});

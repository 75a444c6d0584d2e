import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, jsonObject, servedInstallation, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { docsExample } from '../helpers/docs-examples.js';
import { createProject, eventually, request, SHOP_SQL, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/** `project config --set auth.oauth_server.*` as its own process beside a running `gantry serve`. */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

let inst: Installation;
let server: Server;
let keys: Keys;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
  keys = await createProject(inst, ['--schema', SHOP_SQL]);
});
afterAll(async () => {
  await shutDown(server);
});

const registerClient = () =>
  request(`${keys.url}/auth/v1/admin/oauth/clients`, {
    method: 'POST',
    headers: { apikey: keys.service_key, authorization: `Bearer ${keys.service_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Partner app', redirect_uris: ['https://partner.example.com/callback'] }),
  });

describe('switching the OAuth 2.1 server on', () => {
  it("is off by default, and docs/auth.md's project config example turns it on for the running server", async () => {
    const before = await registerClient();
    expect([before.status, before.body]).toEqual([404, { code: 404, error_code: 'feature_disabled', msg: 'OAuth server is disabled' }]);

    // docs/auth.md's example, as the page shows it.
    const words = docsExample('docs/auth.md', 'auth.oauth_server.enabled=true').replace(/\\\n/g, ' ').trim().split(/\s+/);
    expect(words.slice(0, 4)).toEqual(['npx', 'gantry', 'project', 'config']);
    const run = await cli([...words.slice(2).map((word) => (word === 'myapp' ? keys.ref : word)), '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({
      ref: keys.ref,
      settings: {
        'auth.oauth_server.enabled': true,
        'auth.oauth_server.authorization_path': '/oauth/consent',
        'auth.oauth_server.allow_dynamic_registration': false,
      },
    });

    const created = await eventually(2000, registerClient, (answer) => answer.status === 201);
    expect(created.body).toMatchObject({
      client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      client_type: 'confidential',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['https://partner.example.com/callback'],
      registration_type: 'manual',
    });

    const metadata = await request(`${keys.url}/auth/v1/.well-known/oauth-authorization-server`);
    expect([metadata.status, metadata.body]).toMatchObject([
      200,
      { issuer: `${keys.url}/auth/v1`, authorization_endpoint: `${keys.url}/auth/v1/oauth/authorize`, token_endpoint: `${keys.url}/auth/v1/oauth/token` },
    ]);
    expect(metadata.body).not.toHaveProperty('registration_endpoint');

    const dynamic = await request(`${keys.url}/auth/v1/oauth/clients/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://mcp.example.com/cb'] }),
    });
    expect([dynamic.status, dynamic.body]).toEqual([
      403,
      { code: 403, error_code: 'oauth_dynamic_client_registration_disabled', msg: 'Dynamic client registration is not enabled' },
    ]);
  });

  it('refuses an authorization path that is not a path, exit 1, nothing changed', async () => {
    const bad = await cli(['project', 'config', keys.ref, '--set', 'auth.oauth_server.authorization_path=https://evil.example/consent', '--json'], inst.env);
    expect(bad.code).toBe(1);
    expect(jsonObject(bad)).toMatchObject({
      error: {
        code: 'invalid_setting',
        message: 'auth.oauth_server.authorization_path: expected a path such as /oauth/consent, got "https://evil.example/consent"',
      },
    });
  });
});

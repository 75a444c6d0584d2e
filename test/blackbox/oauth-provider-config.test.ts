import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, jsonObject, servedInstallation, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { docsExample } from '../helpers/docs-examples.js';
import { createProject, eventually, request, SHOP_SQL, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/** `project config --set auth.external.<provider>.*` as its own process beside a running `gantry serve`. */

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

describe('configuring an OAuth provider', () => {
  it('enables GitHub on the running server, keeps the secret sealed and never prints it', async () => {
    const run = await cli(
      [
        'project', 'config', keys.ref,
        '--set', 'auth.external.github.enabled=true',
        '--set', 'auth.external.github.client_id=Iv1.gantrytest',
        '--set', 'auth.external.github.secret=very-secret-value',
        '--set', 'auth.manual_linking=true',
        '--json',
      ],
      inst.env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('very-secret-value');
    expect(jsonObject(run)).toMatchObject({
      ref: keys.ref,
      settings: {
        'auth.manual_linking': true,
        'auth.external.github.enabled': true,
        'auth.external.github.client_id': 'Iv1.gantrytest',
        'auth.external.github.secret': '(sealed)',
        'auth.external.github.scopes': '',
      },
    });
    const settings = await eventually(2000, () => request(`${keys.url}/auth/v1/settings`, { headers: { apikey: keys.anon_key } }), (a) =>
      (a.body as { external?: { github?: boolean } }).external?.github === true,
    );
    expect(settings.body).toMatchObject({ external: { github: true, google: false, email: true } });

    const text = await cli(['project', 'config', keys.ref], inst.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('auth.external.github.secret=(sealed)\n');
    expect(text.stdout).not.toContain('very-secret-value');
  });

  it('refuses an unknown provider or field and a bad value, exit 1, nothing changed', async () => {
    const unknown = await cli(['project', 'config', keys.ref, '--set', 'auth.external.myspace.enabled=true', '--json'], inst.env);
    expect(unknown.code).toBe(1);
    expect(jsonObject(unknown)).toMatchObject({ error: { code: 'invalid_setting', message: expect.stringContaining('unknown setting "auth.external.myspace.enabled"') } });
    const bad = await cli(['project', 'config', keys.ref, '--set', 'auth.external.custom:corp.url=not a url', '--json'], inst.env);
    expect(bad.code).toBe(1);
    expect(jsonObject(bad)).toMatchObject({ error: { code: 'invalid_setting', message: 'auth.external.custom:corp.url: expected an http(s) URL, or nothing, got "not a url"' } });
  });

  it("runs docs/auth.md's example as the page shows it", async () => {
    const example = docsExample('docs/auth.md', 'auth.external.custom:corp.enabled=true');
    const words = example.replace(/\\\n/g, ' ').trim().split(/\s+/);
    expect(words.slice(0, 4)).toEqual(['npx', 'gantry', 'project', 'config']);
    const args = words.slice(2).map((word) => (word === 'myapp' ? keys.ref : word.replace('$CORP_CLIENT_SECRET', 'corp-secret')));
    const run = await cli([...args, '--json'], inst.env);
    expect(run.code).toBe(0);
    expect(jsonObject(run)).toMatchObject({
      settings: {
        'auth.external.custom:corp.enabled': true,
        'auth.external.custom:corp.url': 'https://id.example.com',
        'auth.external.custom:corp.client_id': 'gantry-web,mobile-app',
        'auth.external.custom:corp.secret': '(sealed)',
        'auth.manual_linking': true,
      },
    });
  });
});

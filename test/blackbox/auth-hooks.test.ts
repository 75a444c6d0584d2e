import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, jsonObject, servedInstallation, shutDown, type Installation, type Server } from '../helpers/serve-process.js';
import { createProject, eventually, request, sqlFile, type Answer } from '../helpers/blackbox-projects.js';

/**
 * `gantry project config --set auth.hook.*` run as its own process beside a running
 * `gantry serve`: the hook is switched on for the running server, its secrets never shown.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

const HOOK_SQL = `
CREATE FUNCTION public.add_plan_claim(event jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('claims', (event -> 'claims') || '{"plan": "pro"}')
$$;
GRANT EXECUTE ON FUNCTION public.add_plan_claim TO supabase_auth_admin;
`;

let inst: Installation;
let server: Server;

beforeAll(async () => {
  server = await servedInstallation();
  inst = server.inst;
});
afterAll(async () => {
  await shutDown(server);
});

function signup(url: string, anonKey: string, email: string): Promise<Answer> {
  return request(`${url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple' }),
  });
}

function claimsOf(body: unknown): Record<string, unknown> {
  const token = (body as { access_token?: string }).access_token ?? '';
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('gantry project config --set auth.hook.*', () => {
  it('switches a custom access token hook on for the running server and keeps its secrets sealed', async () => {
    const keys = await createProject(inst, ['--schema', await sqlFile(inst, 'hook.sql', HOOK_SQL), '--autoconfirm']);
    const before = await eventually(2000, () => signup(keys.url, keys.anon_key, 'before@example.com'), (a) => a.status !== 404);
    expect(before.status).toBe(200);
    expect(claimsOf(before.body).plan).toBeUndefined();

    const secret = `v1,whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const run = await cli(
      [
        'project', 'config', keys.ref,
        '--set', 'auth.hook.custom_access_token.uri=pg-functions://postgres/public/add_plan_claim',
        '--set', 'auth.hook.custom_access_token.enabled=true',
        '--set', `auth.hook.send_email.secrets=${secret}`,
        '--json',
      ],
      inst.env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('whsec_');
    expect(jsonObject(run)).toMatchObject({
      ref: keys.ref,
      settings: {
        'auth.hook.custom_access_token.enabled': true,
        'auth.hook.custom_access_token.uri': 'pg-functions://postgres/public/add_plan_claim',
        'auth.hook.send_email.secrets': '(sealed)',
        'auth.hook.send_email.enabled': false,
      },
    });

    const after = await eventually(5000, () => signup(keys.url, keys.anon_key, `after.${Date.now()}@example.com`), (a) => claimsOf(a.body).plan === 'pro');
    expect(after.status).toBe(200);
    expect(claimsOf(after.body)).toMatchObject({ plan: 'pro', role: 'authenticated', aud: 'authenticated' });
  });

  it('refuses a hook URI GoTrue refuses, and a malformed secret, exiting 1', async () => {
    const keys = await createProject(inst, []);
    const http = await cli(['project', 'config', keys.ref, '--set', 'auth.hook.send_email.uri=http://hooks.example.com/mail', '--json'], inst.env);
    expect(http.code).toBe(1);
    expect(jsonObject(http)).toEqual({
      error: { code: 'invalid_setting', message: 'auth.hook.send_email.uri: only localhost, 127.0.0.1, and ::1 are supported with http' },
    });
    const secret = await cli(['project', 'config', keys.ref, '--set', 'auth.hook.send_sms.secrets=whsec_abc'], inst.env);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toBe('gantry: auth.hook.send_sms.secrets: invalid secret format (expected v1,whsec_<base64>)\n');
  });
});

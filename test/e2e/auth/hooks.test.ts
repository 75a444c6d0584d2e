import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sealHookSecrets, type HookName } from '../../../runtime/settings/hook-settings.js';
import { base32Decode, hotp, totpStep } from '../../../runtime/auth/credentials/totp.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';

/**
 * Supabase Auth's hooks through supabase-js: Postgres-function hooks called as
 * supabase_auth_admin (a custom claim reaching an RLS policy, the hook's own errors, GoTrue's
 * claim checks, a password check refused) and HTTP hooks signed with Standard Webhooks.
 */

const schema = `
CREATE TABLE public.user_roles (user_id uuid PRIMARY KEY, role text NOT NULL);
ALTER TABLE public.user_roles ENABLE ROW LEVEL SECURITY;
CREATE POLICY auth_admin_reads ON public.user_roles FOR SELECT TO supabase_auth_admin USING (true);
GRANT USAGE ON SCHEMA public TO supabase_auth_admin;
GRANT SELECT ON public.user_roles TO supabase_auth_admin;

CREATE TABLE public.reports (id int PRIMARY KEY, audience text NOT NULL, title text NOT NULL);
ALTER TABLE public.reports ENABLE ROW LEVEL SECURITY;
CREATE POLICY by_role ON public.reports FOR SELECT TO authenticated USING (audience = auth.jwt() ->> 'user_role');
GRANT SELECT ON public.reports TO authenticated;
INSERT INTO public.reports VALUES (1, 'admin', 'budget'), (2, 'staff', 'rota'), (3, 'admin', 'salaries');

CREATE FUNCTION public.custom_access_token_hook(event jsonb) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  claims jsonb := event -> 'claims';
  user_role text;
BEGIN
  SELECT role INTO user_role FROM public.user_roles WHERE user_id = (event ->> 'user_id')::uuid;
  claims := jsonb_set(claims, '{user_role}', coalesce(to_jsonb(user_role), 'null'));
  claims := jsonb_set(claims, '{hook_saw}', to_jsonb(current_user || ':' || (event ->> 'authentication_method')));
  RETURN jsonb_build_object('claims', claims);
END $$;
GRANT EXECUTE ON FUNCTION public.custom_access_token_hook TO supabase_auth_admin;
REVOKE EXECUTE ON FUNCTION public.custom_access_token_hook FROM authenticated, anon, public;

CREATE FUNCTION public.refusing_hook(event jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'Access denied by the hook'))
$$;
CREATE FUNCTION public.claims_without_aud(event jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('claims', (event -> 'claims') - 'aud' || '{"exp": "later"}')
$$;
CREATE FUNCTION public.failing_hook(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'boom'; END $$;
CREATE FUNCTION public.password_attempt(event jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT CASE WHEN (event ->> 'valid')::boolean THEN '{"decision": "continue"}'::jsonb
    ELSE '{"decision": "reject", "message": "Too many attempts, wait a while", "should_logout_user": true}'::jsonb END
$$;
CREATE TABLE public.mfa_attempts (user_id uuid, factor_type text, valid boolean);
GRANT INSERT ON public.mfa_attempts TO supabase_auth_admin;
CREATE FUNCTION public.mfa_attempt(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.mfa_attempts VALUES ((event ->> 'user_id')::uuid, event ->> 'factor_type', (event ->> 'valid')::boolean);
  IF (event ->> 'valid')::boolean THEN RETURN '{"decision": "continue"}'; END IF;
  RETURN '{"decision": "reject", "message": "Wrong code: signed out everywhere"}';
END $$;
CREATE FUNCTION public.refuse_example_org(event jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT CASE WHEN event -> 'user' ->> 'email' LIKE '%@blocked.example.org' OR (event -> 'user' -> 'user_metadata' ->> 'bot')::boolean
    THEN '{"error": {"http_code": 400, "message": "Sign-ups from this domain are not allowed"}}'::jsonb ELSE '{}'::jsonb END
$$;
`;

interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

let host: TestHost;
let project: TestProject;
let hookServer: http.Server;
let hookUrl: string;
const received: Received[] = [];
let answer: (res: http.ServerResponse) => void = (res) => res.writeHead(204).end();

function client(key = project.keys.anon_key): SupabaseClient {
  return createClient(project.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

async function setHook(name: HookName, uri: string, secrets = ''): Promise<void> {
  await host.platform.setSettings(project.record.ref, {
    [`auth.hook.${name}.enabled`]: uri !== '',
    [`auth.hook.${name}.uri`]: uri,
    [`auth.hook.${name}.secrets`]: sealHookSecrets(project.record.jwtSecret, `auth.hook.${name}.secrets`, secrets),
  });
  await host.host.directory.reload(project.record.ref);
}

function claimsOf(token: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(String(token).split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A password sign-in over plain HTTP, to see a 500's body as sent (auth-js reports 5xx bodies only in part). */
async function passwordSignIn(email: string, versioned: boolean): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${project.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: project.keys.anon_key, 'content-type': 'application/json', ...(versioned ? { 'x-supabase-api-version': '2024-01-01' } : {}) },
    body: JSON.stringify({ email, password: 'secret-pw-1' }),
  });
  return { status: res.status, body: await res.json() };
}

async function signedUp(label: string, password = 'secret-pw-1'): Promise<{ email: string; id: string }> {
  const email = uniqueEmail(label);
  const { data, error } = await client().auth.signUp({ email, password });
  expect(error).toBeNull();
  return { email, id: data.user!.id };
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true });
  hookServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => hookServer?.close(resolve));
  await host?.close();
});

describe('custom access token hook (Postgres function)', () => {
  it('adds a user_role claim that an RLS policy reads through the data API', async () => {
    const admin = await signedUp('admin');
    const staff = await signedUp('staff');
    const nobody = await signedUp('nobody');
    const service = client(project.keys.service_key);
    expect((await service.from('user_roles').insert([{ user_id: admin.id, role: 'admin' }, { user_id: staff.id, role: 'staff' }])).error).toBeNull();
    await setHook('custom_access_token', 'pg-functions://postgres/public/custom_access_token_hook');
    try {
      const asAdmin = client();
      const signIn = await asAdmin.auth.signInWithPassword({ email: admin.email, password: 'secret-pw-1' });
      expect(signIn.error).toBeNull();
      const claims = claimsOf(signIn.data.session?.access_token);
      expect(claims).toMatchObject({ user_role: 'admin', hook_saw: 'supabase_auth_admin:password', sub: admin.id, role: 'authenticated', aud: 'authenticated' });
      expect((await asAdmin.from('reports').select('title').order('id')).data).toEqual([{ title: 'budget' }, { title: 'salaries' }]);

      const asStaff = client();
      await asStaff.auth.signInWithPassword({ email: staff.email, password: 'secret-pw-1' });
      expect((await asStaff.from('reports').select('title')).data).toEqual([{ title: 'rota' }]);

      const asNobody = client();
      const plain = await asNobody.auth.signInWithPassword({ email: nobody.email, password: 'secret-pw-1' });
      expect(claimsOf(plain.data.session?.access_token).user_role).toBeNull();
      expect((await asNobody.from('reports').select('title')).data).toEqual([]);

      // A refreshed token is built by the hook again, told how it was asked for.
      const refreshed = await asAdmin.auth.refreshSession();
      expect(claimsOf(refreshed.data.session?.access_token)).toMatchObject({ user_role: 'admin', hook_saw: 'supabase_auth_admin:token_refresh' });
    } finally {
      await setHook('custom_access_token', '');
    }
    // Without the hook the claim is gone and so are the rows.
    const again = client();
    await again.auth.signInWithPassword({ email: admin.email, password: 'secret-pw-1' });
    expect((await again.from('reports').select('title')).data).toEqual([]);
  });

  it("answers the hook's own error with its status and message", async () => {
    const user = await signedUp('refused');
    await setHook('custom_access_token', 'pg-functions://postgres/public/refusing_hook');
    try {
      const { data, error } = await client().auth.signInWithPassword({ email: user.email, password: 'secret-pw-1' });
      expect(data.session).toBeNull();
      expect(error?.status).toBe(403);
      expect(error?.code).toBe('unknown');
      expect(error?.message).toBe('Access denied by the hook');
    } finally {
      await setHook('custom_access_token', '');
    }
  });

  it('refuses claims that break GoTrue\'s schema, and a function that fails, with 500', async () => {
    const user = await signedUp('schema');
    await setHook('custom_access_token', 'pg-functions://postgres/public/claims_without_aud');
    try {
      expect(await passwordSignIn(user.email, false)).toEqual({
        status: 500,
        body: {
          code: 500,
          error_code: 'unexpected_failure',
          msg: 'output claims do not conform to the expected schema: \n- (root): aud is required\n- exp: Invalid type. Expected: integer, given: string\n',
        },
      });
      await setHook('custom_access_token', 'pg-functions://postgres/public/failing_hook');
      expect(await passwordSignIn(user.email, true)).toEqual({
        status: 500,
        body: { code: 'unexpected_failure', message: 'Error running hook URI: pg-functions://postgres/public/failing_hook' },
      });
    } finally {
      await setHook('custom_access_token', '');
    }
  });

  it('answers an HTTP hook that fails as GoTrue does', async () => {
    const user = await signedUp('http-fail');
    received.length = 0;
    answer = (res) => res.writeHead(500).end();
    await setHook('custom_access_token', `${hookUrl}/token`, `v1,whsec_${randomBytes(32).toString('base64')}`);
    try {
      expect(await passwordSignIn(user.email, true)).toEqual({
        status: 500,
        body: { code: 'unexpected_failure', message: 'Unexpected status code returned from hook: 500' },
      });
      // GoTrue retries only a hook it cannot reach, or a 429/503 with Retry-After.
      expect(received).toHaveLength(1);
    } finally {
      await setHook('custom_access_token', '');
    }
  });
});

describe('password verification attempt hook', () => {
  it('rejects a wrong password with its message and signs the user out everywhere; a right one passes', async () => {
    const user = await signedUp('password-hook');
    const earlier = await client().auth.signInWithPassword({ email: user.email, password: 'secret-pw-1' });
    expect(earlier.error).toBeNull();
    await setHook('password_verification_attempt', 'pg-functions://postgres/public/password_attempt');
    try {
      const wrong = await client().auth.signInWithPassword({ email: user.email, password: 'wrong-pw-9' });
      expect(wrong.error?.status).toBe(400);
      expect(wrong.error?.code).toBe('invalid_credentials');
      expect(wrong.error?.message).toBe('Too many attempts, wait a while');
      const refresh = await client().auth.refreshSession({ refresh_token: earlier.data.session!.refresh_token });
      // auth-js reports GoTrue's 400 session_not_found as AuthSessionMissingError.
      expect(refresh.error?.name).toBe('AuthSessionMissingError');
      expect(refresh.error?.status).toBe(400);
      expect((await client().auth.signInWithPassword({ email: user.email, password: 'secret-pw-1' })).error).toBeNull();
    } finally {
      await setHook('password_verification_attempt', '');
    }
  });
});

describe('MFA verification attempt hook', () => {
  it('is told each attempt; a rejection answers 403 mfa_verification_rejected and ends the sessions', async () => {
    const user = await signedUp('mfa-hook');
    const supabase = client();
    await supabase.auth.signInWithPassword({ email: user.email, password: 'secret-pw-1' });
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data!.id;
    const key = base32Decode(enrolled.data!.totp.secret);
    await setHook('mfa_verification_attempt', 'pg-functions://postgres/public/mfa_attempt');
    try {
      const first = await supabase.auth.mfa.challenge({ factorId });
      const good = await supabase.auth.mfa.verify({ factorId, challengeId: first.data!.id, code: hotp(key, totpStep(Date.now() / 1000)) });
      expect(good.error).toBeNull();
      const session = good.data!;
      const second = await supabase.auth.mfa.challenge({ factorId });
      const wrongCode = hotp(key, totpStep(Date.now() / 1000) + 5);
      const bad = await supabase.auth.mfa.verify({ factorId, challengeId: second.data!.id, code: wrongCode });
      expect(bad.error?.status).toBe(403);
      expect(bad.error?.code).toBe('mfa_verification_rejected');
      expect(bad.error?.message).toBe('Wrong code: signed out everywhere');
      const refresh = await client().auth.refreshSession({ refresh_token: session.refresh_token });
      expect(refresh.error?.name).toBe('AuthSessionMissingError');
      const { data: attempts } = await client(project.keys.service_key).from('mfa_attempts').select('factor_type, valid').eq('user_id', user.id);
      expect(attempts).toEqual([{ factor_type: 'totp', valid: true }, { factor_type: 'totp', valid: false }]);
    } finally {
      await setHook('mfa_verification_attempt', '');
    }
  });
});

describe('before user created hook', () => {
  it('refuses a sign-up with the hook\'s error and creates no user', async () => {
    await setHook('before_user_created', 'pg-functions://postgres/public/refuse_example_org');
    try {
      const email = `someone.${Date.now()}@blocked.example.org`;
      const { error } = await client().auth.signUp({ email, password: 'secret-pw-1' });
      expect(error?.status).toBe(400);
      expect(error?.message).toBe('Sign-ups from this domain are not allowed');
      const { data } = await client(project.keys.service_key).auth.admin.listUsers();
      expect(data.users.filter((u) => u.email === email)).toEqual([]);
      expect((await client().auth.signUp({ email: uniqueEmail('allowed'), password: 'secret-pw-1' })).error).toBeNull();
      // Anonymous sign-ins ask it too, with the anonymous user.
      await host.platform.setSettings(project.record.ref, { 'auth.anonymous_users': true });
      await setHook('before_user_created', 'pg-functions://postgres/public/refuse_example_org');
      const bot = await client().auth.signInAnonymously({ options: { data: { bot: true } } });
      expect(bot.error?.status).toBe(400);
      expect(bot.error?.message).toBe('Sign-ups from this domain are not allowed');
      const person = await client().auth.signInAnonymously({ options: { data: { bot: false } } });
      expect(person.data.user?.is_anonymous).toBe(true);
    } finally {
      await setHook('before_user_created', '');
    }
  });
});

describe('send email hook (HTTP)', () => {
  it('receives the mail as a payload signed with Standard Webhooks instead of SMTP', async () => {
    const user = await signedUp('mailed');
    const secret = `v1,whsec_${randomBytes(32).toString('base64')}`;
    received.length = 0;
    answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    await setHook('send_email', `${hookUrl}/send-email`, secret);
    try {
      expect((await client().auth.resetPasswordForEmail(user.email)).error).toBeNull();
      for (let i = 0; i < 100 && received.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received).toHaveLength(1);
      const { headers, body } = received[0]!;
      const id = String(headers['webhook-id']);
      const timestamp = String(headers['webhook-timestamp']);
      const key = Buffer.from(secret.slice('v1,whsec_'.length), 'base64');
      const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      expect(headers['webhook-signature']).toBe(`v1,${expected}`);
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(30);
      expect(headers['content-type']).toBe('application/json');
      const payload = JSON.parse(body) as { metadata: Record<string, unknown>; user: Record<string, unknown>; email_data: Record<string, string> };
      expect(payload.metadata).toMatchObject({ name: 'send-email', uuid: expect.any(String), time: expect.any(String) });
      expect(payload.user).toMatchObject({ id: user.id, email: user.email });
      expect(payload.email_data).toMatchObject({ email_action_type: 'recovery', token: expect.stringMatching(/^\d{6}$/), token_hash: expect.any(String) });
      // The hook got what a mail would carry: the code signs the user in.
      const verified = await client().auth.verifyOtp({ email: user.email, token: payload.email_data.token!, type: 'recovery' });
      expect(verified.error).toBeNull();
      expect(verified.data.user?.id).toBe(user.id);
    } finally {
      await setHook('send_email', '');
    }
  });
});

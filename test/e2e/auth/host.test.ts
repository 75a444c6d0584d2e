import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';
import { linkFrom, SmtpCapture } from '../../helpers/auth/smtp-capture.js';

/** The auth API as the real host serves it: mounted per project, behind the host's CORS. */

let smtp: SmtpCapture;
let host: TestHost;
let project: TestProject;

beforeAll(async () => {
  smtp = await SmtpCapture.start();
  host = await startTestHost({ SMTP_URL: smtp.url, SMTP_FROM: 'auth@gantry.test' });
  project = await createTestProject(host.platform, { host: host.host });
});
afterAll(async () => {
  await host?.close();
  await smtp?.close();
});

describe('auth on the real host', () => {
  it('serves supabase-js sign-up, mailed confirmation, sign-in and getUser at {base_url}/v1/<ref>', async () => {
    const supabase = createClient(project.url, project.keys.anon_key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as never },
    });
    const email = uniqueEmail('host');
    const signUp = await supabase.auth.signUp({ email, password: 'secret-pw-1' });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();

    const link = linkFrom(await smtp.waitFor(email, 'Confirm'));
    expect(link.pathname).toBe(`/v1/${project.record.ref}/auth/v1/verify`);
    const verified = await supabase.auth.verifyOtp({ type: 'signup', token_hash: link.searchParams.get('token') as string });
    expect(verified.error).toBeNull();

    const signIn = await supabase.auth.signInWithPassword({ email, password: 'secret-pw-1' });
    expect(signIn.error).toBeNull();
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email);
  });

  it('lets a browser read the error code: the version header is echoed and exposed through CORS', async () => {
    const origin = 'http://app.example';
    const preflight = await fetch(`${project.url}/auth/v1/token?grant_type=password`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'apikey, authorization, content-type, x-client-info, x-supabase-api-version',
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['apikey', 'authorization', 'content-type', 'x-client-info', 'x-supabase-api-version']) expect(allowed).toContain(header);

    const res = await fetch(`${project.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { origin, apikey: project.keys.anon_key, 'content-type': 'application/json', 'X-Supabase-Api-Version': '2024-01-01' },
      body: JSON.stringify({ email: uniqueEmail('nobody'), password: 'wrong-one' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    expect(res.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    expect(exposed).toContain('x-supabase-api-version');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('refuses public calls without an apikey', async () => {
    const res = await fetch(`${project.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: uniqueEmail(), password: 'secret-pw-1' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 401, error_code: 'no_api_key', msg: 'No API key found in request' });
  });
});

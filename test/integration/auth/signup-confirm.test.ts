import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, decodeJwt, followToFragment, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

let suite: AuthSuite;
let confirmOn: AuthProject;
let autoconfirm: AuthProject;
let other: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [confirmOn, autoconfirm, other] = await Promise.all([suite.project(), suite.project({ autoconfirm: true }), suite.project()]);
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

describe('POST /signup with autoconfirm on', () => {
  it('creates a confirmed user and returns user and session, session fields also at the top level', async () => {
    const email = uniqueEmail('auto');
    const res = await autoconfirm.call('POST', '/signup', { body: { email: email.toUpperCase(), password: 'secret1', data: { name: 'Ann' } } });
    expect(res.status).toBe(200);
    const { body } = res;
    expect(body.session).toEqual({
      access_token: body.access_token,
      token_type: 'bearer',
      expires_in: 3600,
      expires_at: body.expires_at,
      refresh_token: body.refresh_token,
      user: body.user,
    });
    expect(body.user).toMatchObject({ email, aud: 'authenticated', role: 'authenticated', user_metadata: { name: 'Ann' } });
    expect(typeof body.user.email_confirmed_at).toBe('string');
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      sub: body.user.id,
      aud: 'authenticated',
      role: 'authenticated',
      email,
      session_id: expect.any(String),
      aal: 'aal1',
      user_metadata: { name: 'Ann' },
      app_metadata: { provider: 'email', providers: ['email'] },
      iss: `${autoconfirm.authUrl}`,
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    const { rows } = await autoconfirm.db.query('SELECT event FROM auth.audit_log_entries WHERE user_id = $1 ORDER BY id', [body.user.id]);
    expect(rows.map((r) => r.event)).toEqual(['user_signedup', 'login']);
  });

  it('refuses an existing address with 422 user_already_exists (confirmation is off, so this may tell)', async () => {
    const email = uniqueEmail('dup');
    expect((await autoconfirm.call('POST', '/signup', { body: { email, password: 'secret1' } })).status).toBe(200);
    const res = await autoconfirm.call('POST', '/signup', { body: { email: ` ${email.toUpperCase()}`, password: 'secret2' }, headers: V });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 'user_already_exists', message: 'User already registered' });
  });
});

describe('POST /signup with confirmation on', () => {
  it('stores an unconfirmed user, mails a confirmation link and returns session null', async () => {
    const email = uniqueEmail('confirm');
    const res = await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1', data: { plan: 'free' } } });
    expect(res.status).toBe(200);
    expect(res.body.session).toBeNull();
    expect(res.body.user).toMatchObject({ email, user_metadata: { plan: 'free' } });
    expect(res.body.user.email_confirmed_at).toBeUndefined();
    expect(typeof res.body.user.confirmation_sent_at).toBe('string');
    expect(res.body.access_token).toBeUndefined();

    const mail = await suite.smtp.waitFor(email, 'Confirm');
    const link = linkFrom(mail);
    expect(`${link.origin}${link.pathname}`).toBe(`${confirmOn.authUrl}/verify`);
    expect(link.searchParams.get('type')).toBe('signup');
    const token = link.searchParams.get('token') as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail.html).toContain('Confirm e-mail address');
    const stored = await confirmOn.db.query('SELECT token_hash FROM auth.one_time_tokens WHERE user_id = $1', [res.body.user.id]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].token_hash).not.toBe(token);

    const login = await confirmOn.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' }, headers: V });
    expect(login.status).toBe(400);
    expect(login.body).toEqual({ code: 'email_not_confirmed', message: 'Email not confirmed' });

    const verified = await fetch(link, { redirect: 'manual' });
    expect(verified.status).toBe(200);
    const session = (await verified.json()) as Record<string, any>;
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 3600, user: { id: res.body.user.id, email } });
    expect(typeof session.user.email_confirmed_at).toBe('string');
    expect(decodeJwt(session.access_token).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);

    const again = await fetch(link, { headers: V });
    expect(again.status).toBe(403);
    expect(await again.json()).toEqual({ code: 'otp_expired', message: 'Email link is invalid or has expired' });

    const signedIn = await confirmOn.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(res.body.user.id);
  });

  it('answers a sign-up of a taken address like a new one: same shape, fresh id, no session', async () => {
    const email = uniqueEmail('taken');
    const first = await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const link = linkFrom(await suite.smtp.waitFor(email));
    expect((await fetch(link)).status).toBe(200);

    const second = await confirmOn.call('POST', '/signup', { body: { email, password: 'other-password', data: { a: 1 } } });
    expect(second.status).toBe(200);
    expect(second.body.session).toBeNull();
    expect(second.body.user.id).not.toBe(first.body.user.id);
    expect(Object.keys(second.body.user)).toEqual(Object.keys(first.body.user));
    expect(second.body.user).toMatchObject({ email, user_metadata: { a: 1 }, identities: [expect.objectContaining({ provider: 'email' })] });
    const users = await confirmOn.db.query('SELECT id FROM auth.users WHERE email = $1', [email]);
    expect(users.rows).toEqual([{ id: first.body.user.id }]);
    const audit = await confirmOn.db.query(`SELECT count(*)::int AS n FROM auth.audit_log_entries WHERE event = 'user_repeated_signup' AND user_id = $1`, [
      first.body.user.id,
    ]);
    expect(audit.rows[0].n).toBe(1);
    const old = await confirmOn.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    expect(old.status).toBe(200);
  });

  it('re-sends the link for a still unconfirmed address, and only the newest link works', async () => {
    const email = uniqueEmail('resend');
    await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const firstLink = linkFrom(await suite.smtp.waitFor(email));
    const again = await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    expect(again.status).toBe(200);
    const secondLink = linkFrom(await suite.smtp.waitFor(email));
    expect((await fetch(firstLink)).status).toBe(403);
    expect((await fetch(secondLink)).status).toBe(200);
  });

  it('redirects with the session in the fragment when redirect_to is on PUBLIC_URL', async () => {
    const email = uniqueEmail('redirect');
    const target = `${new URL(confirmOn.authUrl).origin}/welcome`;
    await confirmOn.call('POST', `/signup?redirect_to=${encodeURIComponent(target)}`, { body: { email, password: 'secret1' } });
    const link = linkFrom(await suite.smtp.waitFor(email));
    expect(link.searchParams.get('redirect_to')).toBe(target);
    const { status, target: location, fragment } = await followToFragment(link);
    expect([status, location]).toEqual([303, target]);
    expect([...fragment.keys()]).toEqual(['access_token', 'expires_at', 'expires_in', 'refresh_token', 'sb', 'token_type', 'type']);
    expect(fragment.get('type')).toBe('signup');
    expect(fragment.get('expires_in')).toBe('3600');
    expect(decodeJwt(fragment.get('access_token') as string).email).toBe(email);

    const reused = await fetch(link, { redirect: 'manual' });
    expect(reused.status).toBe(303);
    const failed = new URLSearchParams(new URL(reused.headers.get('location') as string).hash.slice(1));
    expect(Object.fromEntries(failed)).toEqual({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
      sb: '',
    });
  });

  it('shows a browser a confirmation page instead of raw tokens', async () => {
    const email = uniqueEmail('browser');
    const signup = await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const link = linkFrom(await suite.smtp.waitFor(email));
    const page = await fetch(link, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('E-mail address confirmed');
    expect(html).not.toContain('access_token');
    const { rows } = await confirmOn.db.query(
      'SELECT u.email_confirmed_at IS NOT NULL AS confirmed, (SELECT count(*)::int FROM auth.sessions s WHERE s.user_id = u.id) AS sessions FROM auth.users u WHERE u.id = $1',
      [signup.body.user.id],
    );
    expect(rows).toEqual([{ confirmed: true, sessions: 0 }]);
    const again = await fetch(link, { headers: { accept: 'text/html' } });
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('Email link is invalid or has expired');
    expect((await confirmOn.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);
  });

  it('replaces a redirect_to outside PUBLIC_URL (no site URL set) with its own pages: accepted, never followed', async () => {
    const email = uniqueEmail('evil');
    const res = await confirmOn.call('POST', `/signup?redirect_to=${encodeURIComponent('https://evil.example/x')}`, {
      body: { email, password: 'secret1' },
      headers: V,
    });
    expect(res.status).toBe(200);
    const link = linkFrom(await suite.smtp.waitFor(email));
    expect(link.searchParams.has('redirect_to')).toBe(false);
    const evil = new URL(link);
    evil.searchParams.set('redirect_to', 'https://evil.example/');
    const verify = await fetch(evil, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(verify.status).toBe(200);
    expect(await verify.text()).toContain('E-mail address confirmed');
  });

  it('expires the confirmation link after 24 hours', async () => {
    const email = uniqueEmail('late');
    await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const link = linkFrom(await suite.smtp.waitFor(email));
    confirmOn.clock.advance(24 * 3600 + 1);
    try {
      expect((await fetch(link)).status).toBe(403);
    } finally {
      confirmOn.clock.advance(-(24 * 3600 + 1));
    }
  });
});

describe('sign-up validation', () => {
  it.each([
    [{ email: 'a@example.com' }, 400, 'validation_failed', 'Signup requires a valid password'],
    [{ email: 'a@example.com', password: '12345' }, 422, 'weak_password', 'Password should be at least 6 characters.'],
    [{ email: 'a@example.com', password: 'x'.repeat(73) }, 400, 'validation_failed', 'Password cannot be longer than 72 characters'],
    [{ password: 'secret1' }, 422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled'],
    [{ phone: '+15555550100', password: 'secret1' }, 400, 'phone_provider_disabled', 'Phone signups are disabled'],
    [{ email: 'a@example.com', phone: '+15555550100', password: 'secret1' }, 400, 'validation_failed', 'Only an email address or phone number should be provided on signup.'],
    [{ email: 'not-an-email', password: 'secret1' }, 400, 'validation_failed', 'Unable to validate email address: invalid format'],
    [{ email: 'b@example.com', password: 'secret1', data: 'x' }, 400, 'validation_failed', 'data must be an object'],
  ])('%j -> %i %s', async (body, status, code, message) => {
    const res = await confirmOn.call('POST', '/signup', { body, headers: V });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code, message });
    expect(res.headers.get('x-supabase-api-version')).toBe('2024-01-01');
  });

  it('gives weak_password reasons in the legacy shape too', async () => {
    const res = await confirmOn.call('POST', '/signup', { body: { email: 'c@example.com', password: '123' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      code: 422,
      error_code: 'weak_password',
      msg: 'Password should be at least 6 characters.',
      weak_password: { reasons: ['length'] },
    });
    expect(res.headers.get('x-supabase-api-version')).toBeNull();
  });

  it('answers malformed JSON with 400 bad_json', async () => {
    const res = await confirmOn.call('POST', '/signup', { rawBody: '{"email":', headers: { ...V, 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'bad_json', message: 'Could not parse request body as JSON' });
  });
});

describe('apikey on public endpoints', () => {
  it('is required', async () => {
    for (const [method, path] of [
      ['POST', '/signup'],
      ['POST', '/token?grant_type=password'],
      ['POST', '/recover'],
      ['POST', '/reset'],
      ['POST', '/verify'],
    ] as const) {
      const res = await confirmOn.call(method, path, { apikey: null, body: {}, headers: V });
      expect([path, res.status, res.body]).toEqual([path, 401, { code: 'no_api_key', message: 'No API key found in request' }]);
    }
  });

  it('must belong to this project', async () => {
    const res = await confirmOn.call('POST', '/signup', { apikey: other.anonKey, body: { email: uniqueEmail(), password: 'secret1' }, headers: V });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });

  it('is not needed on the GET /verify mail link, but a wrong one is refused there too', async () => {
    const without = await confirmOn.call('GET', `/verify?type=signup&token=${'x'.repeat(43)}`, { apikey: null, headers: V });
    expect([without.status, without.body.code]).toEqual([403, 'otp_expired']);
    const foreign = await confirmOn.call('GET', `/verify?type=signup&token=${'x'.repeat(43)}`, { apikey: other.anonKey, headers: V });
    expect([foreign.status, foreign.body.code]).toEqual([401, 'invalid_api_key']);
  });

  it('may come as a Bearer token instead of the apikey header', async () => {
    const res = await autoconfirm.call('POST', '/signup', { apikey: null, bearer: autoconfirm.anonKey, body: { email: uniqueEmail(), password: 'secret1' } });
    expect(res.status).toBe(200);
  });
});

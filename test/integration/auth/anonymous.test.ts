import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

/** Anonymous sign-ins over HTTP, as GoTrue answers them: POST /signup with neither e-mail nor phone. */

let suite: AuthSuite;
let off: AuthProject;
let confirmOn: AuthProject;
let autoconfirm: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [off, confirmOn, autoconfirm] = await Promise.all([
    suite.project(),
    suite.project({ settings: { 'auth.anonymous_users': true } }),
    suite.project({ autoconfirm: true, settings: { 'auth.anonymous_users': true } }),
  ]);
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

interface Anonymous {
  readonly id: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

async function signInAnonymously(project: AuthProject, data?: Record<string, unknown>): Promise<Anonymous> {
  const res = await project.call('POST', '/signup', { body: data === undefined ? {} : { data } });
  expect(res.status).toBe(200);
  return { id: res.body.user.id, accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

describe('anonymous sign-ins', () => {
  it('are off by default: 422 anonymous_provider_disabled, and /settings says so', async () => {
    const res = await off.call('POST', '/signup', { body: {}, headers: V });
    expect([res.status, res.body]).toEqual([422, { code: 'anonymous_provider_disabled', message: 'Anonymous sign-ins are disabled' }]);
    expect((await off.call('GET', '/settings')).body.external.anonymous_users).toBe(false);
    expect((await confirmOn.call('GET', '/settings')).body.external.anonymous_users).toBe(true);
  });

  it('create a signed-in user with no address, no identity, empty app_metadata, is_anonymous in the row and the token', async () => {
    const res = await confirmOn.call('POST', '/signup', { body: { data: { nickname: 'guest' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, refresh_token: expect.any(String) });
    expect(res.body).not.toHaveProperty('session');
    const user = res.body.user;
    expect(user).toEqual({
      id: expect.any(String),
      aud: 'authenticated',
      role: 'authenticated',
      email: '',
      phone: '',
      last_sign_in_at: expect.any(String),
      app_metadata: {},
      user_metadata: { nickname: 'guest' },
      identities: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      is_anonymous: true,
    });
    expect(decodeJwt(res.body.access_token)).toMatchObject({
      sub: user.id,
      role: 'authenticated',
      aud: 'authenticated',
      email: '',
      phone: '',
      is_anonymous: true,
      app_metadata: {},
      amr: [{ method: 'anonymous', timestamp: expect.any(Number) }],
    });
    expect((await confirmOn.call('GET', '/user', { bearer: res.body.access_token })).body).toEqual(user);
    const { rows } = await confirmOn.db.query('SELECT email, encrypted_password, is_anonymous FROM auth.users WHERE id = $1', [user.id]);
    expect(rows).toEqual([{ email: null, encrypted_password: null, is_anonymous: true }]);

    // The refresh token works as any other; the new access token still says anonymous.
    const refreshed = await confirmOn.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: res.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({ sub: user.id, is_anonymous: true });
  });

  it('are refused with signup_disabled when sign-ups are off, and counted per hour against their own limit', async () => {
    const closed = await suite.project({ settings: { 'auth.anonymous_users': true, 'auth.disable_signup': true } });
    const refused = await closed.call('POST', '/signup', { body: {}, headers: V });
    expect([refused.status, refused.body]).toEqual([422, { code: 'signup_disabled', message: 'Signups not allowed for this instance' }]);

    const limited = await suite.project({ settings: { 'auth.anonymous_users': true, 'auth.rate_limit.anonymous_users': 2 } });
    await signInAnonymously(limited);
    await signInAnonymously(limited);
    const third = await limited.call('POST', '/signup', { body: {}, headers: V });
    expect([third.status, third.body]).toEqual([429, { code: 'over_request_rate_limit', message: 'Request rate limit reached' }]);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(300);
    // E-mail sign-ups count against the OTP limit, not this one.
    expect((await limited.call('POST', '/signup', { body: { email: uniqueEmail('limited'), password: 'secret-pw-1' } })).status).toBe(200);
    limited.clock.advance(3600);
    expect((await limited.call('POST', '/signup', { body: {} })).status).toBe(200);
  });

  it('refuse a password alone for an anonymous user (422 validation_failed)', async () => {
    const guest = await signInAnonymously(confirmOn);
    const res = await confirmOn.call('PUT', '/user', { bearer: guest.accessToken, body: { password: 'secret-pw-1' }, headers: V });
    expect([res.status, res.body]).toEqual([
      422,
      { code: 'validation_failed', message: 'Updating password of an anonymous user without an email or phone is not allowed' },
    ]);
  });

  it('link an address with updateUser({email, password}): anonymous until the link mailed to it is followed, then a permanent user', async () => {
    const guest = await signInAnonymously(confirmOn, { nickname: 'soon' });
    const email = uniqueEmail('linked');
    const res = await confirmOn.call('PUT', '/user', { bearer: guest.accessToken, body: { email, password: 'secret-pw-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: guest.id, email: '', new_email: email, is_anonymous: true, identities: [] });

    const mail = await suite.smtp.waitFor(email, 'Confirm your new e-mail address');
    expect(mail.text).toContain(`a guest account on ${confirmOn.ref} asked to use ${email} as its e-mail address`);
    const followed = await fetch(linkFrom(mail));
    expect(followed.status).toBe(200);
    const session = (await followed.json()) as { access_token: string; user: Record<string, unknown> };
    expect(session.user).toMatchObject({
      id: guest.id,
      email,
      email_confirmed_at: expect.any(String),
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { nickname: 'soon' },
      identities: [expect.objectContaining({ provider: 'email', email })],
    });
    expect(decodeJwt(session.access_token)).toMatchObject({ sub: guest.id, email, is_anonymous: false });

    const login = await confirmOn.call('POST', '/token?grant_type=password', { body: { email, password: 'secret-pw-1' } });
    expect(login.status).toBe(200);
    expect(decodeJwt(login.body.access_token)).toMatchObject({ sub: guest.id, is_anonymous: false, amr: [{ method: 'password' }] });
  });

  it('link at once where sign-ups are autoconfirmed; an address another user has is refused (422 email_exists)', async () => {
    const guest = await signInAnonymously(autoconfirm);
    const email = uniqueEmail('instant');
    const res = await autoconfirm.call('PUT', '/user', { bearer: guest.accessToken, body: { email, password: 'secret-pw-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: guest.id, email, is_anonymous: false, app_metadata: { provider: 'email', providers: ['email'] } });
    expect(suite.smtp.countTo(email)).toBe(0);
    // The access token keeps its claims until it is refreshed, as GoTrue's does.
    expect(decodeJwt(guest.accessToken).is_anonymous).toBe(true);
    const refreshed = await autoconfirm.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: guest.refreshToken } });
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({ email, is_anonymous: false });

    const other = await signInAnonymously(autoconfirm);
    const taken = await autoconfirm.call('PUT', '/user', { bearer: other.accessToken, body: { email }, headers: V });
    expect([taken.status, taken.body]).toEqual([422, { code: 'email_exists', message: 'A user with this email address has already been registered' }]);
  });

  it('are shown by the admin API with is_anonymous, and stop being anonymous when an admin sets a confirmed address', async () => {
    const guest = await signInAnonymously(confirmOn);
    const res = await confirmOn.call('GET', `/admin/users/${guest.id}`, { apikey: confirmOn.serviceKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: guest.id, email: '', is_anonymous: true, identities: [] });

    const unconfirmed = uniqueEmail('admin-set');
    const set = await confirmOn.call('PUT', `/admin/users/${guest.id}`, { apikey: confirmOn.serviceKey, body: { email: unconfirmed } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ email: unconfirmed, is_anonymous: true, app_metadata: { provider: 'email', providers: ['email'] } });
    expect(set.body).not.toHaveProperty('email_confirmed_at');

    const other = await signInAnonymously(confirmOn);
    const confirmed = uniqueEmail('admin-confirmed');
    const body = { email: confirmed, email_confirm: true, app_metadata: { plan: 'pro' } };
    const linked = await confirmOn.call('PUT', `/admin/users/${other.id}`, { apikey: confirmOn.serviceKey, body });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({
      email: confirmed,
      email_confirmed_at: expect.any(String),
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'], plan: 'pro' },
      identities: [expect.objectContaining({ provider: 'email', email: confirmed })],
    });
  });
});

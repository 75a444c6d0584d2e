import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { codeFrom } from '../../helpers/auth/smtp-capture.js';

/** GET /reauthenticate mails a nonce; with auth.update_password_require_reauthentication a day-old session needs it for PUT /user {password}. */

let suite: AuthSuite;
let secure: AuthProject;
let plain: AuthProject;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const DAY = 24 * 3600;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [secure, plain] = await Promise.all([
    suite.project({ settings: { 'auth.update_password_require_reauthentication': true } }),
    suite.project(),
  ]);
});
afterAll(() => suite?.close());

interface Signed {
  readonly id: string;
  readonly email: string;
  accessToken: string;
  refreshToken: string;
}

async function signedIn(project: AuthProject, label: string): Promise<Signed> {
  const email = uniqueEmail(label);
  const created = await project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
  const login = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
  return { id: created.body.id, email, accessToken: login.body.access_token, refreshToken: login.body.refresh_token };
}

/** A day later, the same session with a fresh access token. */
async function aDayLater(project: AuthProject, user: Signed): Promise<void> {
  project.clock.advance(DAY + 1);
  await refresh(project, user);
}

async function refresh(project: AuthProject, user: Signed): Promise<void> {
  const refreshed = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: user.refreshToken } });
  expect(refreshed.status).toBe(200);
  user.accessToken = refreshed.body.access_token;
  user.refreshToken = refreshed.body.refresh_token;
}

function setPassword(project: AuthProject, user: Signed, body: Record<string, unknown>) {
  return project.call('PUT', '/user', { bearer: user.accessToken, body, headers: V });
}

describe('GET /reauthenticate', () => {
  it('mails a 6-digit nonce, records reauthentication_sent_at and refuses another within a minute', async () => {
    const user = await signedIn(secure, 'reauth');
    const res = await secure.call('GET', '/reauthenticate', { bearer: user.accessToken, headers: V });
    expect([res.status, res.body]).toEqual([200, {}]);
    const mail = await suite.smtp.waitFor(user.email, 'Confirm it is you');
    expect(mail.text).toContain(`the account ${user.email} on ${secure.ref} asked to confirm it is you`);
    expect(codeFrom(mail)).toMatch(/^\d{6}$/);
    expect(mail.text).not.toContain('/verify');
    const me = await secure.call('GET', '/user', { bearer: user.accessToken });
    expect(me.body.reauthentication_sent_at).toEqual(expect.any(String));

    const soon = await secure.call('GET', '/reauthenticate', { bearer: user.accessToken, headers: V });
    expect(soon.status).toBe(429);
    expect(soon.body.code).toBe('over_email_send_rate_limit');
    expect(soon.body.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
  });

  it('takes a token without a session (signed with the project jwt_secret by a backend), as GoTrue; a password change with it needs the nonce', async () => {
    const user = await signedIn(secure, 'nosession');
    const iat = Math.floor(secure.clock.now().getTime() / 1000);
    const token = await new SignJWT({ role: 'authenticated', aud: 'authenticated', email: user.email })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 600)
      .sign(new TextEncoder().encode(secure.record.jwtSecret));
    expect((await secure.call('GET', '/user', { bearer: token, headers: V })).body.id).toBe(user.id);
    const needed = await setPassword(secure, { ...user, accessToken: token }, { password: 'changed-1' });
    expect([needed.status, needed.body]).toEqual([400, { code: 'reauthentication_needed', message: 'Password update requires reauthentication' }]);
    const res = await secure.call('GET', '/reauthenticate', { bearer: token, headers: V });
    expect([res.status, res.body]).toEqual([200, {}]);
    const nonce = codeFrom(await suite.smtp.waitFor(user.email, 'Confirm it is you'));
    const changed = await setPassword(secure, { ...user, accessToken: token }, { password: 'changed-1', nonce });
    expect(changed.status).toBe(200);
    // No session to keep: every session of the user ends, as GoTrue's UpdatePassword with no session id.
    const stale = await secure.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: user.refreshToken }, headers: V });
    expect(stale.status).toBe(400);
    expect((await secure.call('POST', '/token?grant_type=password', { body: { email: user.email, password: 'changed-1' } })).status).toBe(200);
  });

  it('needs a signed-in user', async () => {
    const res = await secure.call('GET', '/reauthenticate', { headers: V });
    expect([res.status, res.body.code]).toEqual([401, 'no_authorization']);
  });
});

describe('PUT /user {password} with auth.update_password_require_reauthentication', () => {
  it('needs no nonce within a day of signing in', async () => {
    const user = await signedIn(secure, 'fresh');
    expect((await setPassword(secure, user, { password: 'fresh-pw-1' })).status).toBe(200);
  });

  it('needs a valid nonce from a day-old session, once', async () => {
    const user = await signedIn(secure, 'old');
    await aDayLater(secure, user);
    const without = await setPassword(secure, user, { password: 'new-pw-1' });
    expect([without.status, without.body]).toEqual([400, { code: 'reauthentication_needed', message: 'Password update requires reauthentication' }]);
    const guessed = await setPassword(secure, user, { password: 'new-pw-1', nonce: '000000' });
    expect([guessed.status, guessed.body]).toEqual([422, { code: 'reauthentication_not_valid', message: 'Nonce has expired or is invalid' }]);

    expect((await secure.call('GET', '/reauthenticate', { bearer: user.accessToken })).status).toBe(200);
    const nonce = codeFrom(await suite.smtp.waitFor(user.email, 'Confirm it is you'));
    const changed = await setPassword(secure, user, { password: 'new-pw-1', nonce });
    expect(changed.status).toBe(200);
    expect((await secure.call('POST', '/token?grant_type=password', { body: { email: user.email, password: 'new-pw-1' } })).status).toBe(200);
    const reused = await setPassword(secure, user, { password: 'new-pw-2', nonce });
    expect([reused.status, reused.body.code]).toEqual([422, 'reauthentication_not_valid']);
  });

  it('lets a nonce expire after auth.otp_expiry', async () => {
    const user = await signedIn(secure, 'expired');
    await aDayLater(secure, user);
    await secure.call('GET', '/reauthenticate', { bearer: user.accessToken });
    const nonce = codeFrom(await suite.smtp.waitFor(user.email, 'Confirm it is you'));
    secure.clock.advance(3601);
    await refresh(secure, user);
    const late = await secure.call('PUT', '/user', { bearer: user.accessToken, body: { password: 'late-pw-1', nonce }, headers: V });
    expect([late.status, late.body.code]).toEqual([422, 'reauthentication_not_valid']);
  });

  it('is off by default: a day-old session changes its password without a nonce', async () => {
    const user = await signedIn(plain, 'plain');
    await aDayLater(plain, user);
    expect((await setPassword(plain, user, { password: 'plain-pw-1' })).status).toBe(200);
  });

  it('is told by /settings', async () => {
    expect((await secure.call('GET', '/settings')).body.security_update_password_require_reauthentication).toBe(true);
    expect((await plain.call('GET', '/settings')).body.security_update_password_require_reauthentication).toBe(false);
  });
});

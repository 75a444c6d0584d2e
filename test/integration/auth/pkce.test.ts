import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../../runtime/auth/credentials/pkce.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

/** PKCE: code_challenge on signup, recover, /otp and e-mail change; the link redirects with ?code=; grant_type=pkce. */

let suite: AuthSuite;
let project: AuthProject;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const APP = 'https://app.example.com';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const S256 = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 's256' };

beforeAll(async () => {
  suite = await AuthSuite.open();
  project = await suite.project({ settings: { 'auth.site_url': APP } });
});
afterAll(() => suite?.close());

/** Opens a mail link and returns the auth code its redirect carries. */
async function codeOf(link: URL): Promise<string> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(`${APP}/`);
  expect(location.hash).toBe('');
  const code = location.searchParams.get('code');
  expect(code).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  return code as string;
}

function exchange(authCode: string, verifier: string) {
  return project.call('POST', '/token?grant_type=pkce', { body: { auth_code: authCode, code_verifier: verifier }, headers: V });
}

async function confirmedUser(label: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail(label);
  const created = await project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
  return { id: created.body.id, email };
}

describe('sign-up with a code challenge', () => {
  it('mails a pkce_ link that redirects with ?code=, which S256 exchanges once for a session', async () => {
    const email = uniqueEmail('pkce');
    const signUp = await project.call('POST', '/signup', { body: { email, password: 'secret1', ...S256 } });
    expect(signUp.status).toBe(200);
    const link = linkFrom(await suite.smtp.waitFor(email, 'Confirm your e-mail address'));
    expect(link.searchParams.get('token')).toMatch(/^pkce_[A-Za-z0-9_-]{43}$/);
    const code = await codeOf(link);
    const { rows } = await project.db.query('SELECT auth_code_hash FROM auth.flow_state WHERE user_id = $1', [signUp.body.user.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);

    const session = await exchange(code, VERIFIER);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, user: { email, email_confirmed_at: expect.any(String) } });
    expect(decodeJwt(session.body.access_token).amr).toEqual([{ method: 'email/signup', timestamp: expect.any(Number) }]);
    expect((await project.db.query('SELECT 1 FROM auth.flow_state WHERE user_id = $1', [signUp.body.user.id])).rowCount).toBe(0);

    const again = await exchange(code, VERIFIER);
    expect([again.status, again.body]).toEqual([404, { code: 'flow_state_not_found', message: 'invalid flow state, no valid flow state found' }]);
  });

  it('refuses a wrong verifier with bad_code_verifier and keeps the flow for the right one', async () => {
    const email = uniqueEmail('pkcebad');
    await project.call('POST', '/signup', { body: { email, password: 'secret1', ...S256 } });
    const code = await codeOf(linkFrom(await suite.smtp.waitFor(email, 'Confirm your e-mail address')));
    const wrong = await exchange(code, `${VERIFIER}x`);
    expect([wrong.status, wrong.body]).toEqual([400, { code: 'bad_code_verifier', message: 'code challenge does not match previously saved code verifier' }]);
    expect((await exchange(code, VERIFIER)).status).toBe(200);
  });

  it('expires the auth code 5 minutes after the link was followed', async () => {
    const email = uniqueEmail('pkceexp');
    await project.call('POST', '/signup', { body: { email, password: 'secret1', ...S256 } });
    const code = await codeOf(linkFrom(await suite.smtp.waitFor(email, 'Confirm your e-mail address')));
    project.clock.advance(301);
    const late = await exchange(code, VERIFIER);
    expect([late.status, late.body]).toEqual([422, { code: 'flow_state_expired', message: 'invalid flow state, flow state has expired' }]);
  });

  it('answers a used pkce link with the error in the query and the fragment', async () => {
    const email = uniqueEmail('pkcereuse');
    await project.call('POST', '/signup', { body: { email, password: 'secret1', ...S256 } });
    const link = linkFrom(await suite.smtp.waitFor(email, 'Confirm your e-mail address'));
    await codeOf(link);
    const res = await fetch(link, { redirect: 'manual' });
    const location = new URL(res.headers.get('location') as string);
    const expected = { error: 'access_denied', error_code: 'otp_expired', error_description: 'Email link is invalid or has expired' };
    expect(Object.fromEntries(location.searchParams)).toEqual(expected);
    expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toEqual({ ...expected, sb: '' });
  });

  it('still lets POST /verify redeem a pkce link token for a session, as GoTrue does', async () => {
    const email = uniqueEmail('pkcepost');
    await project.call('POST', '/signup', { body: { email, password: 'secret1', ...S256 } });
    const token = linkFrom(await suite.smtp.waitFor(email, 'Confirm your e-mail address')).searchParams.get('token');
    const verified = await project.call('POST', '/verify', { body: { type: 'signup', token_hash: token } });
    expect([verified.status, verified.body.user.email]).toEqual([200, email]);
  });
});

describe('recover, /otp and e-mail change with a code challenge', () => {
  it('recover with the plain method: the session says recovery', async () => {
    const user = await confirmedUser('pkcerec');
    await project.call('POST', '/recover', { body: { email: user.email, code_challenge: VERIFIER, code_challenge_method: 'plain' } });
    const code = await codeOf(linkFrom(await suite.smtp.waitFor(user.email, 'Reset your password')));
    const session = await exchange(code, VERIFIER);
    expect(session.status).toBe(200);
    expect(decodeJwt(session.body.access_token)).toMatchObject({ sub: user.id, amr: [{ method: 'recovery', timestamp: expect.any(Number) }] });
  });

  it('/otp: the magic link redirects with a code', async () => {
    const user = await confirmedUser('pkceotp');
    await project.call('POST', '/otp', { body: { email: user.email, ...S256 } });
    const code = await codeOf(linkFrom(await suite.smtp.waitFor(user.email, 'Your sign-in link')));
    const session = await exchange(code, VERIFIER);
    expect(decodeJwt(session.body.access_token)).toMatchObject({ sub: user.id, amr: [{ method: 'magiclink', timestamp: expect.any(Number) }] });
  });

  it('PUT /user {email}: the first link (current address) redirects with the message in query and fragment, the second with a code', async () => {
    const user = await confirmedUser('pkcechange');
    const login = await project.call('POST', '/token?grant_type=password', { body: { email: user.email, password: 'secret1' } });
    const newEmail = uniqueEmail('pkcenew');
    const put = await project.call('PUT', '/user', { bearer: login.body.access_token, body: { email: newEmail, ...S256 } });
    expect([put.status, put.body.new_email]).toEqual([200, newEmail]);
    const first = await fetch(linkFrom(await suite.smtp.waitFor(user.email, 'Confirm the change of your e-mail address')), { redirect: 'manual' });
    const message = 'Confirmation+link+accepted.+Please+proceed+to+confirm+link+sent+to+the+other+email';
    expect([first.status, first.headers.get('location')]).toEqual([303, `${APP}/?message=${message}#message=${message}`]);
    const code = await codeOf(linkFrom(await suite.smtp.waitFor(newEmail, 'Confirm your new e-mail address')));
    const session = await exchange(code, VERIFIER);
    expect(session.body.user).toMatchObject({ id: user.id, email: newEmail });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['/signup', { email: 'a@example.com', password: 'secret1', code_challenge: S256.code_challenge }, 'PKCE flow requires code_challenge_method and code_challenge'],
    ['/recover', { email: 'a@example.com', code_challenge: 'short', code_challenge_method: 's256' }, 'code challenge has to be between 43 and 128 characters'],
    ['/otp', { email: 'a@example.com', code_challenge_method: 's256' }, 'PKCE flow requires code_challenge_method and code_challenge'],
  ])('%s refuses a malformed challenge %j', async (path, body, message) => {
    const res = await project.call('POST', path, { body, headers: V });
    expect([res.status, res.body]).toEqual([400, { code: 'validation_failed', message }]);
  });

  it('grant_type=pkce needs both fields', async () => {
    const res = await project.call('POST', '/token?grant_type=pkce', { body: { auth_code: 'x' }, headers: V });
    expect([res.status, res.body]).toEqual([400, { code: 'validation_failed', message: 'invalid request: both auth code and code verifier should be non-empty' }]);
  });
});

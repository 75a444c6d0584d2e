import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, decodeJwt, followToFragment, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { codeFrom, linkFrom } from '../../helpers/auth/smtp-capture.js';

/** Admin: POST /invite (mails an invite) and POST /admin/generate_link (returns link and code, mails nothing). */

let suite: AuthSuite;
let project: AuthProject;
/** No site URL, secure e-mail change off. */
let bare: AuthProject;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const APP = 'https://app.example.com';

beforeAll(async () => {
  suite = await AuthSuite.open();
  [project, bare] = await Promise.all([
    suite.project({ settings: { 'auth.site_url': APP, 'auth.redirect_allow_list': ['https://other.example.com/**'] } }),
    suite.project({ settings: { 'auth.secure_email_change': false } }),
  ]);
});
afterAll(() => suite?.close());

function admin(path: string, body: unknown, headers: Record<string, string> = V) {
  return project.call('POST', path, { bearer: project.serviceKey, body, headers });
}

async function confirmedUser(label: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail(label);
  const created = await admin('/admin/users', { email, password: 'secret1', email_confirm: true });
  return { id: created.body.id, email };
}

describe('POST /invite', () => {
  it('creates an unconfirmed password-less user with invited_at and mails an invite link and code', async () => {
    const email = uniqueEmail('invitee');
    const res = await project.call('POST', `/invite?redirect_to=${encodeURIComponent('https://other.example.com/welcome')}`, {
      bearer: project.serviceKey,
      body: { email, data: { team: 'blue' } },
      headers: V,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email, invited_at: expect.any(String), confirmation_sent_at: expect.any(String), user_metadata: { team: 'blue' } });
    expect(res.body).not.toHaveProperty('email_confirmed_at');
    expect(Object.keys(res.body).slice(0, 7)).toEqual(['id', 'aud', 'role', 'email', 'invited_at', 'phone', 'confirmation_sent_at']);

    const mail = await suite.smtp.waitFor(email, 'You have been invited');
    expect(mail.text).toContain(`you have been invited to create an account on ${project.ref} with ${email}.`);
    const link = linkFrom(mail);
    expect([link.searchParams.get('type'), link.searchParams.get('redirect_to')]).toEqual(['invite', 'https://other.example.com/welcome']);
    const followed = await followToFragment(link);
    expect([followed.status, followed.target, followed.fragment.get('type')]).toEqual([303, 'https://other.example.com/welcome', 'invite']);
    const session = followed.fragment.get('access_token') as string;
    expect(decodeJwt(session).sub).toBe(res.body.id);
    const me = await project.call('GET', '/user', { bearer: session });
    expect(me.body).toMatchObject({ email, email_confirmed_at: expect.any(String), invited_at: res.body.invited_at });
    // An invited user sets a password with the session the link gave.
    expect((await project.call('PUT', '/user', { bearer: session, body: { password: 'chosen-pw' } })).status).toBe(200);
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'chosen-pw' } })).status).toBe(200);
  });

  it('verifies the mailed code with type invite', async () => {
    const email = uniqueEmail('invitecode');
    await admin('/invite', { email });
    const code = codeFrom(await suite.smtp.waitFor(email, 'You have been invited'));
    const verified = await project.call('POST', '/verify', { body: { type: 'invite', email, token: code } });
    expect([verified.status, verified.body.user.email]).toEqual([200, email]);
  });

  it('refuses a confirmed address with email_exists, and non-admins', async () => {
    const user = await confirmedUser('invited');
    const res = await admin('/invite', { email: user.email });
    expect([res.status, res.body]).toEqual([422, { code: 'email_exists', message: 'A user with this email address has already been registered' }]);
    const anon = await project.call('POST', '/invite', { bearer: project.anonKey, body: { email: uniqueEmail() }, headers: V });
    expect([anon.status, anon.body.code]).toEqual([403, 'not_admin']);
    const bad = await admin('/invite', { email: 'nope' });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });
});

describe('POST /admin/generate_link', () => {
  it('magiclink for an account: link, code and hashed token that each sign in, no mail', async () => {
    const user = await confirmedUser('genmagic');
    const res = await admin('/admin/generate_link', { type: 'magiclink', email: user.email, redirect_to: 'https://other.example.com/in' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: user.id,
      email: user.email,
      recovery_sent_at: expect.any(String),
      email_otp: expect.stringMatching(/^\d{6}$/),
      hashed_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      verification_type: 'magiclink',
      redirect_to: 'https://other.example.com/in',
    });
    const link = new URL(res.body.action_link);
    expect([link.pathname, link.searchParams.get('token'), link.searchParams.get('type'), link.searchParams.get('redirect_to')]).toEqual([
      `/v1/${project.ref}/auth/v1/verify`,
      res.body.hashed_token,
      'magiclink',
      'https://other.example.com/in',
    ]);
    const byCode = await project.call('POST', '/verify', { body: { type: 'magiclink', email: user.email, token: res.body.email_otp } });
    expect(byCode.status).toBe(200);
    expect((await project.call('POST', '/verify', { body: { type: 'magiclink', token_hash: res.body.hashed_token } })).status).toBe(403);
    expect(suite.smtp.countTo(user.email)).toBe(0);
  });

  it('magiclink for an unknown address signs it up: verification_type signup, unconfirmed user, redirect_to the site URL', async () => {
    const email = uniqueEmail('genmagicnew');
    const res = await admin('/admin/generate_link', { type: 'magiclink', email, redirect_to: 'https://evil.example.net/' });
    expect(res.body).toMatchObject({ email, verification_type: 'signup', redirect_to: APP, confirmation_sent_at: expect.any(String) });
    expect(res.body).not.toHaveProperty('email_confirmed_at');
    expect(new URL(res.body.action_link).searchParams.get('type')).toBe('signup');
    const followed = await followToFragment(new URL(res.body.action_link));
    expect([followed.target, followed.fragment.get('type')]).toEqual([`${APP}/`, 'signup']);
  });

  it('signup needs a password for a new address and creates the user with it', async () => {
    const email = uniqueEmail('gensignup');
    const missing = await admin('/admin/generate_link', { type: 'signup', email });
    expect([missing.status, missing.body]).toEqual([400, { code: 'validation_failed', message: 'Signup requires a valid password' }]);
    const res = await admin('/admin/generate_link', { type: 'signup', email, password: 'secret1', data: { from: 'admin' } });
    expect(res.body).toMatchObject({ verification_type: 'signup', user_metadata: { from: 'admin' } });
    expect((await project.call('POST', '/verify', { body: { type: 'signup', token_hash: res.body.hashed_token } })).status).toBe(200);
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);
    const again = await admin('/admin/generate_link', { type: 'signup', email, password: 'secret1' });
    expect([again.status, again.body.code]).toEqual([422, 'email_exists']);
  });

  it('invite and recovery', async () => {
    const email = uniqueEmail('geninvite');
    const invited = await admin('/admin/generate_link', { type: 'invite', email });
    expect(invited.body).toMatchObject({ verification_type: 'invite', invited_at: expect.any(String) });
    expect((await project.call('POST', '/verify', { body: { type: 'invite', token_hash: invited.body.hashed_token } })).status).toBe(200);

    const user = await confirmedUser('genrec');
    const recovery = await admin('/admin/generate_link', { type: 'recovery', email: user.email });
    expect(recovery.body).toMatchObject({ verification_type: 'recovery', redirect_to: APP });
    const verified = await project.call('POST', '/verify', { body: { type: 'recovery', email: user.email, token: recovery.body.email_otp } });
    expect(decodeJwt(verified.body.access_token).amr).toEqual([{ method: 'recovery', timestamp: expect.any(Number) }]);
  });

  it('email_change_current and email_change_new (secure e-mail change, the default): the address changes once both are verified', async () => {
    const user = await confirmedUser('genchange');
    const newEmail = uniqueEmail('genchanged');
    const current = await admin('/admin/generate_link', { type: 'email_change_current', email: user.email, new_email: newEmail });
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ id: user.id, email: user.email, new_email: newEmail, verification_type: 'email_change_current', redirect_to: APP });
    const next = await admin('/admin/generate_link', { type: 'email_change_new', email: user.email, new_email: newEmail });
    expect(next.body).toMatchObject({ id: user.id, email: user.email, new_email: newEmail, verification_type: 'email_change_new' });
    for (const generated of [current, next]) {
      const link = new URL(generated.body.action_link);
      expect([link.searchParams.get('token'), link.searchParams.get('type'), link.searchParams.get('redirect_to')]).toEqual([
        generated.body.hashed_token,
        'email_change',
        APP,
      ]);
    }
    // Each code goes with its own address: the new address's code does not verify with the current address.
    const crossed = await project.call('POST', '/verify', { body: { type: 'email_change', email: user.email, token: next.body.email_otp }, headers: V });
    expect([crossed.status, crossed.body]).toEqual([403, { code: 'otp_expired', message: 'Token has expired or is invalid' }]);
    const first = await project.call('POST', '/verify', { body: { type: 'email_change', email: newEmail, token: next.body.email_otp }, headers: V });
    expect([first.status, first.body]).toEqual([200, { msg: 'Confirmation link accepted. Please proceed to confirm link sent to the other email', code: '200' }]);
    const halfway = await project.call('GET', `/admin/users/${user.id}`, { bearer: project.serviceKey });
    expect(halfway.body).toMatchObject({ email: user.email, new_email: newEmail });
    const second = await project.call('POST', '/verify', { body: { type: 'email_change', token_hash: current.body.hashed_token }, headers: V });
    expect(second.status).toBe(200);
    expect(second.body.user).toMatchObject({ id: user.id, email: newEmail });
    expect(second.body.user).not.toHaveProperty('new_email');
  });

  it('email_change_new alone switches the address where secure e-mail change is off; email_change_current is refused there', async () => {
    const email = uniqueEmail('genbare');
    await bare.call('POST', '/admin/users', { bearer: bare.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const newEmail = uniqueEmail('genbarenew');
    const current = await bare.call('POST', '/admin/generate_link', { bearer: bare.serviceKey, body: { type: 'email_change_current', email, new_email: newEmail }, headers: V });
    expect([current.status, current.body]).toEqual([400, { code: 'validation_failed', message: 'Enable secure email change to generate link for current email' }]);
    const res = await bare.call('POST', '/admin/generate_link', { bearer: bare.serviceKey, body: { type: 'email_change_new', email, new_email: newEmail }, headers: V });
    expect(res.body).toMatchObject({ email, new_email: newEmail, verification_type: 'email_change_new' });
    const verified = await bare.call('POST', '/verify', { body: { type: 'email_change', email: newEmail, token: res.body.email_otp } });
    expect(verified.body.user.email).toBe(newEmail);
  });

  it('puts redirect_to in action_link as GoTrue does, also where no site URL is set (PUBLIC_URL stands in)', async () => {
    const email = uniqueEmail('genredirect');
    await bare.call('POST', '/admin/users', { bearer: bare.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const res = await bare.call('POST', '/admin/generate_link', { bearer: bare.serviceKey, body: { type: 'magiclink', email }, headers: V });
    expect(res.status).toBe(200);
    const publicUrl = new URL(res.body.action_link).origin;
    expect(res.body.redirect_to).toBe(publicUrl);
    expect(res.body.action_link).toBe(
      `${publicUrl}/v1/${bare.ref}/auth/v1/verify?token=${res.body.hashed_token}&type=magiclink&redirect_to=${encodeURIComponent(publicUrl)}`,
    );
  });

  it.each<[Record<string, unknown>, number, string, string]>([
    [{ type: 'recovery', email: 'nobody@example.com' }, 404, 'user_not_found', 'User with this email not found'],
    [{ type: 'email_change_new', email: 'nobody@example.com', new_email: 'x@example.com' }, 404, 'user_not_found', 'User with this email not found'],
    [{ type: 'email_change_current', email: 'nobody@example.com' }, 404, 'user_not_found', 'User with this email not found'],
    [{ type: 'sms', email: 'nobody@example.com' }, 400, 'validation_failed', 'Invalid email action link type requested: sms'],
    [{ type: 'magiclink' }, 400, 'validation_failed', 'missing email or phone'],
  ])('%j -> %i %s', async (body, status, code, message) => {
    const res = await admin('/admin/generate_link', body);
    expect([res.status, res.body]).toEqual([status, { code, message }]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, decodeJwt, followToFragment, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { codeFrom, linkFrom } from '../../helpers/auth/smtp-capture.js';

/** Magic links and e-mail OTP codes: POST /otp (and /magiclink), verified by link, token_hash or address + code. */

let suite: AuthSuite;
let project: AuthProject;
let shortLived: AuthProject;
let autoconfirm: AuthProject;
let closed: AuthProject;
let limited: AuthProject;
/** Short-lived codes and room for many verify calls from one address. */
let verifier: AuthProject;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const APP = 'https://app.example.com';

beforeAll(async () => {
  suite = await AuthSuite.open();
  [project, shortLived, autoconfirm, closed, limited, verifier] = await Promise.all([
    suite.project({ settings: { 'auth.site_url': APP } }),
    suite.project({ settings: { 'auth.otp_expiry': 120 } }),
    suite.project({ autoconfirm: true }),
    suite.project({ settings: { 'auth.disable_signup': true } }),
    suite.project({ settings: { 'auth.rate_limit.otp': 2 } }),
    suite.project({ settings: { 'auth.site_url': APP, 'auth.otp_expiry': 120, 'auth.rate_limit.verify': 1000 } }),
  ]);
});
afterAll(() => suite?.close());

async function confirmedUser(target: AuthProject, label: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail(label);
  const created = await target.call('POST', '/admin/users', { apikey: target.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
  expect(created.status).toBe(200);
  return { id: created.body.id, email };
}


function verifyCode(target: AuthProject, body: Record<string, unknown>) {
  return target.call('POST', '/verify', { body, headers: V });
}

async function userRow(target: AuthProject, email: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await target.db.query('SELECT id, email_confirmed_at, encrypted_password, raw_user_meta_data FROM auth.users WHERE email = $1', [email]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe('POST /otp for a confirmed account', () => {
  it('mails a magic link and a 6-digit code; the code signs in once, by address', async () => {
    const user = await confirmedUser(project, 'otp');
    const res = await project.call('POST', '/otp', { body: { email: user.email.toUpperCase(), create_user: true, data: {} }, headers: V });
    expect([res.status, res.body]).toEqual([200, {}]);

    const mail = await suite.smtp.waitFor(user.email, 'Your sign-in link');
    expect(mail.text).toContain(`a sign-in link was requested for ${user.email} on ${project.ref}.`);
    expect(mail.text).toContain('The link and the code are valid for 1 hour and can be used once.');
    const link = linkFrom(mail);
    expect([link.pathname, link.searchParams.get('type'), link.searchParams.get('redirect_to')]).toEqual([`/v1/${project.ref}/auth/v1/verify`, 'magiclink', APP]);
    const code = codeFrom(mail);
    expect(mail.html).toContain(`Or enter this code: <strong>${code}</strong>`);

    const { rows } = await project.db.query(
      `SELECT token_type, expires_at - created_at AS lifetime, otp_hash IS NOT NULL AS has_code FROM auth.one_time_tokens WHERE user_id = $1`,
      [user.id],
    );
    expect(rows).toEqual([{ token_type: 'magiclink', lifetime: { hours: 1 }, has_code: true }]);
    expect(JSON.stringify(await project.db.query('SELECT * FROM auth.one_time_tokens WHERE user_id = $1', [user.id]).then((r) => r.rows))).not.toContain(code);

    const wrong = await verifyCode(project, { type: 'email', email: user.email, token: code === '000000' ? '000001' : '000000' });
    expect([wrong.status, wrong.body]).toEqual([403, { code: 'otp_expired', message: 'Token has expired or is invalid' }]);

    const verified = await verifyCode(project, { type: 'email', email: user.email, token: code });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, user: { id: user.id, email: user.email } });
    expect(decodeJwt(verified.body.access_token)).toMatchObject({ sub: user.id, amr: [{ method: 'otp', timestamp: expect.any(Number) }] });
    const me = await project.call('GET', '/user', { bearer: verified.body.access_token });
    expect(me.body.recovery_sent_at).toEqual(expect.any(String));

    const again = await verifyCode(project, { type: 'email', email: user.email, token: code });
    expect([again.status, again.body]).toEqual([403, { code: 'otp_expired', message: 'Token has expired or is invalid' }]);
    const viaLink = await fetch(link, { redirect: 'manual' });
    expect(viaLink.status).toBe(303);
    const failed = new URL(viaLink.headers.get('location') as string);
    expect(Object.fromEntries(new URLSearchParams(failed.hash.slice(1)))).toEqual({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
      sb: '',
    });
  });

  it('opens a session through the link (303 to the site URL, type=magiclink) and once only', async () => {
    const user = await confirmedUser(project, 'link');
    expect((await project.call('POST', '/otp', { body: { email: user.email } })).status).toBe(200);
    const link = linkFrom(await suite.smtp.waitFor(user.email, 'Your sign-in link'));
    const followed = await followToFragment(link);
    expect([followed.status, followed.target]).toEqual([303, `${APP}/`]);
    expect(followed.fragment.get('type')).toBe('magiclink');
    expect(decodeJwt(followed.fragment.get('access_token') as string).sub).toBe(user.id);
    const again = await followToFragment(link);
    expect(again.fragment.get('error_code')).toBe('otp_expired');
  });

  it('takes the link token as token_hash with type magiclink or email, and no other type', async () => {
    const user = await confirmedUser(project, 'hash');
    await project.call('POST', '/otp', { body: { email: user.email } });
    const token = linkFrom(await suite.smtp.waitFor(user.email, 'Your sign-in link')).searchParams.get('token') as string;
    const asSignup = await verifyCode(project, { type: 'signup', token_hash: token });
    expect([asSignup.status, asSignup.body]).toEqual([403, { code: 'otp_expired', message: 'Email link is invalid or has expired' }]);
    const asRecovery = await verifyCode(project, { type: 'recovery', token_hash: token });
    expect(asRecovery.status).toBe(403);
    const verified = await verifyCode(project, { type: 'magiclink', token_hash: token });
    expect([verified.status, verified.body.user.id]).toEqual([200, user.id]);
  });

  it('leaves only the latest mail valid', async () => {
    const user = await confirmedUser(project, 'latest');
    await project.call('POST', '/otp', { body: { email: user.email } });
    const first = codeFrom(await suite.smtp.waitFor(user.email, 'Your sign-in link'));
    await project.call('POST', '/otp', { body: { email: user.email } });
    const second = codeFrom(await suite.smtp.waitFor(user.email, 'Your sign-in link'));
    if (first !== second) expect((await verifyCode(project, { type: 'magiclink', email: user.email, token: first })).status).toBe(403);
    expect((await verifyCode(project, { type: 'magiclink', email: user.email, token: second })).status).toBe(200);
  });

  it('refuses a banned account at verify', async () => {
    const user = await confirmedUser(project, 'banned');
    await project.call('POST', '/otp', { body: { email: user.email } });
    const code = codeFrom(await suite.smtp.waitFor(user.email, 'Your sign-in link'));
    await project.call('PUT', `/admin/users/${user.id}`, { apikey: project.serviceKey, body: { ban_duration: '24h' } });
    const res = await verifyCode(project, { type: 'email', email: user.email, token: code });
    expect([res.status, res.body]).toEqual([403, { code: 'user_banned', message: 'User is banned' }]);
  });
});

describe('POST /otp for an address without a confirmed account', () => {
  it('signs the address up without a password and mails a confirmation with a code; verify type email confirms and signs in', async () => {
    const email = uniqueEmail('newotp');
    const res = await project.call('POST', '/otp', { body: { email, data: { plan: 'free' } }, headers: V });
    expect([res.status, res.body]).toEqual([200, {}]);
    const mail = await suite.smtp.waitFor(email, 'Confirm your e-mail address');
    expect(linkFrom(mail).searchParams.get('type')).toBe('signup');
    const row = await userRow(project, email);
    expect(row).toMatchObject({ email_confirmed_at: null, encrypted_password: null, raw_user_meta_data: { plan: 'free' } });
    const { rows } = await project.db.query(`SELECT expires_at - created_at AS lifetime FROM auth.one_time_tokens WHERE user_id = $1`, [row?.id]);
    expect(rows).toEqual([{ lifetime: { hours: 1 } }]);

    const verified = await verifyCode(project, { type: 'email', email, token: codeFrom(mail) });
    expect(verified.status).toBe(200);
    expect(verified.body.user).toMatchObject({ email, email_confirmed_at: expect.any(String), user_metadata: { plan: 'free' } });
    const password = await project.call('POST', '/token?grant_type=password', { body: { email, password: '' }, headers: V });
    expect([password.status, password.body.code]).toEqual([400, 'invalid_credentials']);
  });

  it('answers the same {} for an unknown address with create_user false, and neither creates nor mails', async () => {
    const email = uniqueEmail('nocreate');
    const known = await confirmedUser(project, 'known');
    const unknownRes = await project.call('POST', '/otp', { body: { email, create_user: false } });
    const knownRes = await project.call('POST', '/otp', { body: { email: known.email, create_user: false } });
    expect([unknownRes.status, unknownRes.text]).toEqual([knownRes.status, knownRes.text]);
    await suite.smtp.waitFor(known.email, 'Your sign-in link');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await userRow(project, email)).toBeUndefined();
    expect(suite.smtp.countTo(email)).toBe(0);
  });

  it('sends an unconfirmed account its confirmation again even with create_user false', async () => {
    const email = uniqueEmail('pending');
    expect((await project.call('POST', '/signup', { body: { email, password: 'secret1' } })).status).toBe(200);
    await suite.smtp.waitFor(email, 'Confirm your e-mail address');
    await project.call('POST', '/otp', { body: { email, create_user: false } });
    const mail = await suite.smtp.waitFor(email, 'Confirm your e-mail address');
    expect((await verifyCode(project, { type: 'signup', email, token: codeFrom(mail) })).status).toBe(200);
  });

  it('with sign-ups disabled: {} and nothing for a new address, a magic link for an account', async () => {
    const email = uniqueEmail('closed');
    const known = await confirmedUser(closed, 'closedknown');
    expect([(await closed.call('POST', '/otp', { body: { email } })).body, (await closed.call('POST', '/otp', { body: { email: known.email } })).body]).toEqual([{}, {}]);
    await suite.smtp.waitFor(known.email, 'Your sign-in link');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await userRow(closed, email)).toBeUndefined();
  });

  it('with autoconfirm: creates a confirmed account and mails a magic link', async () => {
    const email = uniqueEmail('auto');
    await autoconfirm.call('POST', '/otp', { body: { email } });
    const mail = await suite.smtp.waitFor(email, 'Your sign-in link');
    expect(await userRow(autoconfirm, email)).toMatchObject({ email_confirmed_at: expect.any(Date) });
    expect((await verifyCode(autoconfirm, { type: 'magiclink', email, token: codeFrom(mail) })).status).toBe(200);
  });

  it('/magiclink (the older endpoint) does the same', async () => {
    const email = uniqueEmail('older');
    expect((await project.call('POST', '/magiclink', { body: { email } })).body).toEqual({});
    await suite.smtp.waitFor(email, 'Confirm your e-mail address');
    const blank = await project.call('POST', '/magiclink', { body: {}, headers: V });
    expect([blank.status, blank.body]).toEqual([422, { code: 'validation_failed', message: 'Password recovery requires an email' }]);
  });
});

describe('expiry and rate limit (auth.otp_expiry, auth.rate_limit.otp)', () => {
  it('expires codes and links after auth.otp_expiry seconds, and says so in the mail', async () => {
    const user = await confirmedUser(shortLived, 'expiry');
    await shortLived.call('POST', '/otp', { body: { email: user.email } });
    const mail = await suite.smtp.waitFor(user.email, 'Your sign-in link');
    expect(mail.text).toContain('valid for 2 minutes');
    shortLived.clock.advance(121);
    const res = await verifyCode(shortLived, { type: 'email', email: user.email, token: codeFrom(mail) });
    expect([res.status, res.body]).toEqual([403, { code: 'otp_expired', message: 'Token has expired or is invalid' }]);
    const viaHash = await verifyCode(shortLived, { type: 'magiclink', token_hash: linkFrom(mail).searchParams.get('token') });
    expect(viaHash.body).toEqual({ code: 'otp_expired', message: 'Email link is invalid or has expired' });
    expect((await shortLived.call('GET', '/settings')).body.mailer_otp_exp).toBe(120);
  });

  it('counts /otp per client IP against auth.rate_limit.otp', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i += 1) statuses.push((await limited.call('POST', '/otp', { body: { email: uniqueEmail('rl') }, headers: V })).status);
    const refused = await limited.call('POST', '/otp', { body: { email: uniqueEmail('rl') }, headers: V });
    expect([...statuses, refused.status]).toEqual([200, 200, 429]);
    expect(refused.body).toEqual({ code: 'over_request_rate_limit', message: 'Request rate limit reached' });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // Its own bucket: sign-ups from the same client still go through.
    expect((await limited.call('POST', '/signup', { body: { email: uniqueEmail('rl'), password: 'secret1' } })).status).toBe(200);
  });
});

describe('request validation as GoTrue', () => {
  it.each<[Record<string, unknown>, number, string, string]>([
    [{ email: 'a@example.com', phone: '+15555550100' }, 400, 'validation_failed', 'Only an email address or phone number should be provided'],
    [{ email: 'a@example.com', channel: 'sms' }, 400, 'validation_failed', 'Channel should only be specified with Phone OTP'],
    [{ phone: '+15555550100' }, 400, 'phone_provider_disabled', 'Unsupported phone provider'],
    [{}, 400, 'validation_failed', 'One of email or phone must be set'],
    [{ email: 'not-an-address' }, 400, 'validation_failed', 'Unable to validate email address: invalid format'],
  ])('POST /otp %j -> %i %s', async (body, status, code, message) => {
    const res = await project.call('POST', '/otp', { body, headers: V });
    expect([res.status, res.body]).toEqual([status, { code, message }]);
  });

  it.each<[Record<string, unknown>, number, string, string]>([
    [{ email: 'a@example.com', token: '123456' }, 400, 'validation_failed', 'Verify requires a verification type'],
    [{ type: 'sms_code', token_hash: 'x' }, 400, 'validation_failed', 'Invalid email verification type'],
    [{ type: 'email' }, 400, 'validation_failed', 'Verify requires either a token or a token hash'],
    [{ type: 'email', token: '123456', token_hash: 'x' }, 400, 'validation_failed', 'Verify requires either a token or a token hash'],
    [{ type: 'email', token_hash: 'x', email: 'a@example.com' }, 400, 'validation_failed', 'Only the token_hash and type should be provided'],
    [{ type: 'email', token: '123456' }, 400, 'validation_failed', 'Only an email address or phone number should be provided on verify'],
    [{ type: 'email', token: '123456', email: 'nope' }, 422, 'validation_failed', 'Invalid email format'],
    [{ type: 'email', token: '123456', email: 'nobody@example.com' }, 403, 'otp_expired', 'Token has expired or is invalid'],
    [{ type: 'email', token: '123456', phone: '+15555550100' }, 403, 'otp_expired', 'Token has expired or is invalid'],
  ])('POST /verify %j -> %i %s', async (body, status, code, message) => {
    const res = await verifyCode(project, body);
    expect([res.status, res.body]).toEqual([status, { code, message }]);
  });
});

describe('wrong and expired codes and links answer as GoTrue, on every verify path', () => {
  const WRONG_CODE = { code: 'otp_expired', message: 'Token has expired or is invalid' };
  const WRONG_LINK = { code: 'otp_expired', message: 'Email link is invalid or has expired' };
  const NO_SUCH_TYPE = { code: 'validation_failed', message: 'Invalid email verification type' };

  it.each<[string, number, Record<string, string>, number, Record<string, string>]>([
    ['email', 403, WRONG_CODE, 403, WRONG_LINK],
    ['magiclink', 403, WRONG_CODE, 403, WRONG_LINK],
    ['signup', 403, WRONG_CODE, 403, WRONG_LINK],
    ['recovery', 403, WRONG_CODE, 403, WRONG_LINK],
    ['invite', 403, WRONG_CODE, 403, WRONG_LINK],
    ['email_change', 403, WRONG_CODE, 403, WRONG_LINK],
    // Types no e-mail has: a code finds nothing (as GoTrue), a link's type is refused.
    ['sms', 403, WRONG_CODE, 400, NO_SUCH_TYPE],
    ['phone_change', 403, WRONG_CODE, 400, NO_SUCH_TYPE],
    ['emails', 403, WRONG_CODE, 400, NO_SUCH_TYPE],
  ])('type %s: a wrong code, a wrong token_hash', async (type, codeStatus, codeBody, hashStatus, hashBody) => {
    const user = await confirmedUser(verifier, `wrong-${type}`);
    const byCode = await verifyCode(verifier, { type, email: user.email, token: '000000' });
    expect([byCode.status, byCode.body]).toEqual([codeStatus, codeBody]);
    const byHash = await verifyCode(verifier, { type, token_hash: 'A'.repeat(43) });
    expect([byHash.status, byHash.body]).toEqual([hashStatus, hashBody]);
  });

  it('an expired code and link: 403 otp_expired, by code, token_hash and GET link (redirected to the site URL)', async () => {
    const user = await confirmedUser(verifier, 'expired');
    expect((await verifier.call('POST', '/otp', { body: { email: user.email }, headers: V })).status).toBe(200);
    const mail = await suite.smtp.waitFor(user.email, 'Your sign-in link');
    verifier.clock.advance(121);
    for (const type of ['email', 'magiclink']) {
      const byCode = await verifyCode(verifier, { type, email: user.email, token: codeFrom(mail) });
      expect([byCode.status, byCode.body]).toEqual([403, WRONG_CODE]);
    }
    const link = linkFrom(mail);
    const byHash = await verifyCode(verifier, { type: 'magiclink', token_hash: link.searchParams.get('token') });
    expect([byHash.status, byHash.body]).toEqual([403, WRONG_LINK]);
    const opened = await fetch(link, { headers: V, redirect: 'manual' });
    expect([opened.status, opened.headers.get('location')]).toEqual([
      303,
      `${APP}/#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=`,
    ]);
  });

  it('GET /verify: a missing type or token answers as GoTrue; a type no link has redirects to the site URL with the error', async () => {
    const base = `${verifier.authUrl}/verify`;
    const noType = await fetch(`${base}?token=x`, { headers: V });
    expect([noType.status, await noType.json()]).toEqual([400, { code: 'validation_failed', message: 'Verify requires a verification type' }]);
    const noToken = await fetch(`${base}?type=signup`, { headers: V });
    expect([noToken.status, await noToken.json()]).toEqual([400, { code: 'validation_failed', message: 'Verify requires a token or a token hash' }]);
    const sms = await fetch(`${base}?type=sms&token=x`, { headers: V, redirect: 'manual' });
    expect([sms.status, sms.headers.get('location')]).toEqual([
      303,
      `${APP}#error=invalid_request&error_code=validation_failed&error_description=Invalid+email+verification+type&sb=`,
    ]);
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, decodeJwt, followToFragment, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { codeFrom, linkFrom } from '../../helpers/auth/smtp-capture.js';

let suite: AuthSuite;
/** Secure e-mail change off: the new address alone confirms. */
let confirmOn: AuthProject;
/** The defaults: secure e-mail change on, as GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED. */
let secure: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [confirmOn, secure] = await Promise.all([suite.project({ settings: { 'auth.secure_email_change': false } }), suite.project()]);
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

interface SignedIn {
  readonly id: string;
  readonly email: string;
  readonly accessToken: string;
}

/** A confirmed user (made by the admin API) signed in with a password. */
async function signedIn(project: AuthProject, label: string): Promise<SignedIn> {
  const email = uniqueEmail(label);
  const created = await project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
  expect(created.status).toBe(200);
  const login = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
  expect(login.status).toBe(200);
  return { id: created.body.id, email, accessToken: login.body.access_token };
}

function changeEmail(project: AuthProject, user: SignedIn, email: unknown, path = '/user') {
  return project.call('PUT', path, { bearer: user.accessToken, body: { email }, headers: V });
}

async function signInStatus(project: AuthProject, email: string): Promise<number> {
  return (await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status;
}

const ACCEPTED = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';

describe('PUT /user {email} with secure e-mail change (the default)', () => {
  it('mails a link and code to each address; the first one used only records it, the second changes the address', async () => {
    const user = await signedIn(secure, 'secure');
    const newEmail = uniqueEmail('securenew');
    const res = await changeEmail(secure, user, newEmail);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email, new_email: newEmail });
    const toNew = await suite.smtp.waitFor(newEmail, 'Confirm your new e-mail address');
    const toCurrent = await suite.smtp.waitFor(user.email, 'Confirm the change of your e-mail address');
    expect(toCurrent.text).toContain(`the account ${user.email} on ${secure.ref} asked to change its e-mail address to ${newEmail}`);
    const [newLink, currentLink] = [linkFrom(toNew), linkFrom(toCurrent)];
    expect([newLink.searchParams.get('type'), currentLink.searchParams.get('type')]).toEqual(['email_change', 'email_change']);
    expect(newLink.searchParams.get('token')).not.toBe(currentLink.searchParams.get('token'));

    // The current address's code, with the current address.
    const first = await secure.call('POST', '/verify', { body: { type: 'email_change', email: user.email, token: codeFrom(toCurrent) }, headers: V });
    expect([first.status, first.body]).toEqual([200, { msg: ACCEPTED, code: '200' }]);
    const { rows } = await secure.db.query('SELECT email, new_email, email_change_confirm_status FROM auth.users WHERE id = $1', [user.id]);
    expect(rows).toEqual([{ email: user.email, new_email: newEmail, email_change_confirm_status: 1 }]);
    expect(await signInStatus(secure, user.email)).toBe(200);
    const reused = await fetch(currentLink, { headers: V });
    expect([reused.status, await reused.json()]).toEqual([403, { code: 'otp_expired', message: 'Email link is invalid or has expired' }]);

    const second = await fetch(newLink, { headers: V });
    expect(second.status).toBe(200);
    const session = (await second.json()) as { access_token: string; user: Record<string, unknown> };
    expect(session.user).toMatchObject({ id: user.id, email: newEmail });
    expect(session.user).not.toHaveProperty('new_email');
    expect(await signInStatus(secure, newEmail)).toBe(200);
    expect(await signInStatus(secure, user.email)).toBe(400);
    const { rows: after } = await secure.db.query('SELECT email_change_confirm_status FROM auth.users WHERE id = $1', [user.id]);
    expect(after).toEqual([{ email_change_confirm_status: 0 }]);
  });

  it('with redirect_to: the first link redirects with GoTrue message fragment, the second with the session; in a browser the first shows that message', async () => {
    const user = await signedIn(secure, 'secureredir');
    const newEmail = uniqueEmail('secureredirnew');
    const target = `${new URL(secure.authUrl).origin}/welcome`;
    expect((await changeEmail(secure, user, newEmail, `/user?redirect_to=${encodeURIComponent(target)}`)).status).toBe(200);
    const newLink = linkFrom(await suite.smtp.waitFor(newEmail, 'Confirm your new e-mail address'));
    const currentLink = linkFrom(await suite.smtp.waitFor(user.email, 'Confirm the change of your e-mail address'));
    const first = await fetch(newLink, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`${target}#message=Confirmation+link+accepted.+Please+proceed+to+confirm+link+sent+to+the+other+email`);
    const second = await followToFragment(currentLink);
    expect([second.status, second.target, second.fragment.get('type')]).toEqual([303, target, 'email_change']);
    expect(decodeJwt(second.fragment.get('access_token') as string)).toMatchObject({ email: newEmail });

    const other = await signedIn(secure, 'securepage');
    const otherNew = uniqueEmail('securepagenew');
    expect((await changeEmail(secure, other, otherNew)).status).toBe(200);
    const page = await fetch(linkFrom(await suite.smtp.waitFor(other.email, 'Confirm the change')), { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(ACCEPTED);
  });
});

describe('POST /resend {type: email_change} with secure e-mail change', () => {
  it('mails both addresses again and starts the confirmations over; earlier links stop working', async () => {
    const user = await signedIn(secure, 'secureresend');
    const newEmail = uniqueEmail('secureresendnew');
    expect((await changeEmail(secure, user, newEmail)).status).toBe(200);
    const oldCurrent = linkFrom(await suite.smtp.waitFor(user.email, 'Confirm the change'));
    const oldNew = linkFrom(await suite.smtp.waitFor(newEmail, 'Confirm your new'));
    expect((await fetch(oldCurrent, { headers: V })).status).toBe(200);

    expect((await secure.call('POST', '/resend', { body: { type: 'email_change', email: user.email }, headers: V })).status).toBe(200);
    const current = linkFrom(await suite.smtp.waitFor(user.email, 'Confirm the change'));
    const next = linkFrom(await suite.smtp.waitFor(newEmail, 'Confirm your new'));
    const stale = await fetch(oldNew, { headers: V });
    expect([stale.status, await stale.json()]).toEqual([403, { code: 'otp_expired', message: 'Email link is invalid or has expired' }]);
    const first = await fetch(next, { headers: V });
    expect([first.status, await first.json()]).toEqual([200, { msg: ACCEPTED, code: '200' }]);
    const second = await fetch(current, { headers: V });
    expect(second.status).toBe(200);
    expect(((await second.json()) as { user: { email: string } }).user.email).toBe(newEmail);
  });
});

describe('PUT /user {email} with confirmation on and secure e-mail change off', () => {
  it('keeps the address until the link mailed to the new one is followed, then switches it (single use)', async () => {
    const user = await signedIn(confirmOn, 'change');
    const newEmail = uniqueEmail('changed');
    const res = await changeEmail(confirmOn, user, `  ${newEmail.toUpperCase()} `);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email, new_email: newEmail, email_change_sent_at: expect.any(String) });
    expect(Object.keys(res.body).slice(0, 10)).toEqual(['id', 'aud', 'role', 'email', 'email_confirmed_at', 'phone', 'confirmed_at', 'new_email', 'email_change_sent_at', 'last_sign_in_at']);
    expect((await confirmOn.call('GET', '/user', { bearer: user.accessToken })).body.new_email).toBe(newEmail);

    const mail = await suite.smtp.waitFor(newEmail, 'Confirm your new e-mail address');
    expect(mail.to).toEqual([newEmail]);
    expect(mail.text).toContain(`the account ${user.email} on ${confirmOn.ref} asked to change its e-mail address to ${newEmail}`);
    const link = linkFrom(mail);
    expect(link.pathname).toBe(`/v1/${confirmOn.ref}/auth/v1/verify`);
    expect(link.searchParams.get('type')).toBe('email_change');
    const token = link.searchParams.get('token') as string;
    expect(mail.html).toContain(`token&#x3D;${token}&amp;type&#x3D;email_change`);
    expect(suite.smtp.countTo(user.email)).toBe(0);

    const { rows: tokens } = await confirmOn.db.query(`SELECT token_hash, expires_at - created_at AS lifetime FROM auth.one_time_tokens WHERE user_id = $1 AND token_type = 'email_change'`, [user.id]);
    expect(tokens).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex'), lifetime: { days: 1 } }]);
    expect(JSON.stringify(tokens)).not.toContain(token);

    expect(await signInStatus(confirmOn, newEmail)).toBe(400);
    const followed = await fetch(link);
    expect(followed.status).toBe(200);
    const session = (await followed.json()) as { access_token: string; user: Record<string, unknown> };
    expect(session.user).toMatchObject({ id: user.id, email: newEmail });
    expect(session.user).not.toHaveProperty('new_email');
    expect(session.user).not.toHaveProperty('email_change_sent_at');
    expect(decodeJwt(session.access_token)).toMatchObject({ email: newEmail, amr: [{ method: 'email_change', timestamp: expect.any(Number) }] });

    const again = await fetch(link, { headers: V });
    expect([again.status, await again.json()]).toEqual([403, { code: 'otp_expired', message: 'Email link is invalid or has expired' }]);
    expect(await signInStatus(confirmOn, newEmail)).toBe(200);
    expect(await signInStatus(confirmOn, user.email)).toBe(400);

    const { rows: audit } = await confirmOn.db.query(
      `SELECT event, payload FROM auth.audit_log_entries WHERE user_id = $1 AND event = 'user_modified' ORDER BY id`,
      [user.id],
    );
    expect(audit).toEqual([
      { event: 'user_modified', payload: { fields: ['email'], email_change: 'requested', new_email: newEmail } },
      { event: 'user_modified', payload: { fields: ['email'], email_change: 'confirmed', old_email: user.email, new_email: newEmail } },
    ]);
  });

  it('refuses a taken address (422 email_exists) and an invalid one (400), and ignores the current one', async () => {
    const user = await signedIn(confirmOn, 'taken');
    const other = await signedIn(confirmOn, 'holder');
    const taken = await changeEmail(confirmOn, user, other.email.toUpperCase());
    expect([taken.status, taken.body]).toEqual([422, { code: 'email_exists', message: 'A user with this email address has already been registered' }]);
    const legacy = await confirmOn.call('PUT', '/user', { bearer: user.accessToken, body: { email: other.email } });
    expect([legacy.status, legacy.body]).toEqual([422, { code: 422, error_code: 'email_exists', msg: 'A user with this email address has already been registered' }]);
    const invalid = await changeEmail(confirmOn, user, 'not an address');
    expect([invalid.status, invalid.body]).toEqual([400, { code: 'validation_failed', message: 'Unable to validate email address: invalid format' }]);
    for (const unchanged of [user.email.toUpperCase(), '', null]) {
      const same = await changeEmail(confirmOn, user, unchanged);
      expect(same.status).toBe(200);
      expect(same.body.email).toBe(user.email);
      expect(same.body).not.toHaveProperty('new_email');
    }
    const { rows } = await confirmOn.db.query(`SELECT count(*)::int AS n FROM auth.one_time_tokens WHERE user_id = $1`, [user.id]);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('honours only the latest request, expires links after 24 hours and refuses an address taken meanwhile', async () => {
    const user = await signedIn(confirmOn, 'latest');
    const first = uniqueEmail('first');
    const second = uniqueEmail('second');
    await changeEmail(confirmOn, user, first);
    await changeEmail(confirmOn, user, second);
    const firstLink = linkFrom(await suite.smtp.waitFor(first));
    const secondLink = linkFrom(await suite.smtp.waitFor(second));
    expect((await fetch(firstLink)).status).toBe(403);

    confirmOn.clock.advance(24 * 3600 + 1);
    try {
      expect((await fetch(secondLink)).status).toBe(403);
    } finally {
      confirmOn.clock.advance(-(24 * 3600 + 1));
    }

    const third = uniqueEmail('third');
    await changeEmail(confirmOn, user, third);
    const thirdLink = linkFrom(await suite.smtp.waitFor(third));
    expect((await confirmOn.call('POST', '/admin/users', { apikey: confirmOn.serviceKey, body: { email: third, password: 'secret1' } })).status).toBe(200);
    const raced = await fetch(thirdLink, { headers: V });
    expect([raced.status, await raced.json()]).toEqual([422, { code: 'email_exists', message: 'A user with this email address has already been registered' }]);
    expect((await confirmOn.call('GET', '/user', { bearer: user.accessToken })).body.email).toBe(user.email);
  });

  it('confirms in a browser with a page, or redirects with the session to an allowed redirect_to', async () => {
    const user = await signedIn(confirmOn, 'page');
    const viaPage = uniqueEmail('viapage');
    await changeEmail(confirmOn, user, viaPage);
    const page = await fetch(linkFrom(await suite.smtp.waitFor(viaPage)), { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('E-mail address changed');
    expect(html).toContain(viaPage);
    expect(html).not.toContain('access_token');

    const target = `${new URL(confirmOn.authUrl).origin}/settings`;
    const viaRedirect = uniqueEmail('viaredirect');
    await changeEmail(confirmOn, user, viaRedirect, `/user?redirect_to=${encodeURIComponent(target)}`);
    const link = linkFrom(await suite.smtp.waitFor(viaRedirect));
    expect(link.searchParams.get('redirect_to')).toBe(target);
    const { status, target: location, fragment } = await followToFragment(link);
    expect([status, location]).toEqual([303, target]);
    expect(fragment.get('type')).toBe('email_change');
    expect(decodeJwt(fragment.get('access_token') as string).email).toBe(viaRedirect);

    const outsideEmail = uniqueEmail('x');
    const outside = await changeEmail(confirmOn, user, outsideEmail, `/user?redirect_to=${encodeURIComponent('https://evil.example/')}`);
    expect(outside.status).toBe(200);
    expect(linkFrom(await suite.smtp.waitFor(outsideEmail)).searchParams.has('redirect_to')).toBe(false);
  });

  it('is redeemed by POST /verify {type: email_change, token_hash} and voids recovery links sent to the old address', async () => {
    const user = await signedIn(confirmOn, 'post');
    await confirmOn.call('POST', '/recover', { body: { email: user.email } });
    const recovery = linkFrom(await suite.smtp.waitFor(user.email, 'Reset')).searchParams.get('token');
    const newEmail = uniqueEmail('posted');
    await changeEmail(confirmOn, user, newEmail);
    const token = linkFrom(await suite.smtp.waitFor(newEmail)).searchParams.get('token');
    const verified = await confirmOn.call('POST', '/verify', { body: { type: 'email_change', token_hash: token } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.email).toBe(newEmail);
    const reset = await confirmOn.call('POST', '/reset', { body: { token: recovery, password: 'hijacked' } });
    expect(reset.status).toBe(403);
  });

  it('is cancelled when an admin sets the address', async () => {
    const user = await signedIn(confirmOn, 'admin-set');
    const asked = uniqueEmail('asked');
    await changeEmail(confirmOn, user, asked);
    const link = linkFrom(await suite.smtp.waitFor(asked));
    const chosen = uniqueEmail('chosen');
    const set = await confirmOn.call('PUT', `/admin/users/${user.id}`, { apikey: confirmOn.serviceKey, body: { email: chosen } });
    expect(set.status).toBe(200);
    expect(set.body.email).toBe(chosen);
    expect(set.body).not.toHaveProperty('new_email');
    expect((await fetch(link)).status).toBe(403);
    expect(await signInStatus(confirmOn, chosen)).toBe(200);
  });

  it('is mailed again by POST /resend {type: email_change, email: <current>}: only the newest link works', async () => {
    const user = await signedIn(confirmOn, 'resend');
    const asked = uniqueEmail('resent');
    await changeEmail(confirmOn, user, asked);
    const first = linkFrom(await suite.smtp.waitFor(asked));
    const resent = await confirmOn.call('POST', '/resend', { body: { type: 'email_change', email: user.email.toUpperCase() } });
    expect([resent.status, resent.body]).toEqual([200, { message: 'If this account has an e-mail change waiting, a new link has been sent to the new address' }]);
    const second = linkFrom(await suite.smtp.waitFor(asked));
    expect(second.searchParams.get('token')).not.toBe(first.searchParams.get('token'));
    expect((await fetch(first)).status).toBe(403);
    expect((await fetch(second)).status).toBe(200);

    const nothingPending = await confirmOn.call('POST', '/resend', { body: { type: 'email_change', email: asked } });
    const unknown = await confirmOn.call('POST', '/resend', { body: { type: 'email_change', email: uniqueEmail('ghost') } });
    expect([nothingPending.status, nothingPending.body]).toEqual([unknown.status, unknown.body]);
    const other = await confirmOn.call('POST', '/resend', { body: { type: 'magiclink', email: asked }, headers: V });
    expect([other.status, other.body]).toEqual([400, { code: 'validation_failed', message: 'Missing one of these types: signup, email_change, sms, phone_change' }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(suite.smtp.countTo(asked)).toBe(0);
  });

  it('is cancelled by a new password', async () => {
    const user = await signedIn(confirmOn, 'new-pw');
    const asked = uniqueEmail('dropped');
    await changeEmail(confirmOn, user, asked);
    const link = linkFrom(await suite.smtp.waitFor(asked));
    const changed = await confirmOn.call('PUT', '/user', { bearer: user.accessToken, body: { password: 'secret2' } });
    expect(changed.status).toBe(200);
    expect(changed.body).not.toHaveProperty('new_email');
    expect(changed.body).not.toHaveProperty('email_change_sent_at');
    expect((await fetch(link)).status).toBe(403);
  });
});

describe('PUT /user {email} with autoconfirm on', () => {
  it('changes the address at once, without a mail', async () => {
    const autoconfirm = await suite.project({ autoconfirm: true });
    const user = await signedIn(autoconfirm, 'auto');
    const newEmail = uniqueEmail('autonew');
    const res = await changeEmail(autoconfirm, user, newEmail);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: newEmail, email_confirmed_at: expect.any(String) });
    expect(res.body).not.toHaveProperty('new_email');
    expect(res.body.identities[0]).toMatchObject({ email: newEmail, identity_data: { email: newEmail, email_verified: true } });
    expect(await signInStatus(autoconfirm, newEmail)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(suite.smtp.countTo(newEmail)).toBe(0);
    const { rows } = await autoconfirm.db.query(`SELECT payload FROM auth.audit_log_entries WHERE user_id = $1 AND event = 'user_modified'`, [user.id]);
    expect(rows).toEqual([{ payload: { fields: ['email'], email_change: 'changed', old_email: user.email, new_email: newEmail } }]);
  });
});

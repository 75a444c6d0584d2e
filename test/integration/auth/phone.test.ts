import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSmsSecret } from '../../../runtime/settings/sms-settings.js';
import { resolveSettings } from '../../../runtime/platform/settings.js';
import type { ProjectSettings } from '../../../runtime/platform/project-context.js';
import { FakeSmsProvider } from '../../helpers/fake-sms.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';

/** Phone sign-in over HTTP as GoTrue answers it, texting through a local server speaking Twilio's and Vonage's APIs. */

let suite: AuthSuite;
let sms: FakeSmsProvider;
let twilio: AuthProject;
let vonage: AuthProject;
let autoconfirm: AuthProject;
let limited: AuthProject;
let testOtps: AuthProject;
let mfa: AuthProject;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
let phoneCounter = 0;
/** A fresh E.164 number per test (stored without "+"). */
function newPhone(): string {
  phoneCounter += 1;
  return `1555${String(process.pid % 1000).padStart(3, '0')}${String(phoneCounter).padStart(4, '0')}`;
}

/** The project's SMS settings as the registry keeps them (the provider secret sealed with its JWT secret). */
function smsSettings(project: AuthProject, stored: Record<string, unknown>): Partial<ProjectSettings> {
  const sealed = { ...stored };
  for (const key of ['auth.sms.twilio.auth_token', 'auth.sms.vonage.api_secret'] as const) {
    if (typeof sealed[key] === 'string') sealed[key] = sealSmsSecret(project.record.jwtSecret, key, sealed[key]);
  }
  const resolved = resolveSettings(sealed);
  return {
    'auth.sms': resolved['auth.sms'],
    'auth.rate_limit.sms_sent': resolved['auth.rate_limit.sms_sent'],
    'auth.mfa.phone.enabled': resolved['auth.mfa.phone.enabled'],
    'auth.rate_limit.verify': 1000,
    'auth.rate_limit.otp': 1000,
  };
}

function twilioSettings(base: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'auth.sms.provider': 'twilio',
    'auth.sms.twilio.account_sid': 'AC123',
    'auth.sms.twilio.auth_token': 'twilio-token',
    'auth.sms.twilio.message_service_sid': 'MG456',
    'auth.sms.twilio.base_url': base,
    ...extra,
  };
}

async function served(extra: Record<string, unknown>, provider: 'twilio' | 'vonage' = 'twilio', autoconfirmEmail = false): Promise<AuthProject> {
  const bare = await suite.project({ autoconfirm: autoconfirmEmail });
  const stored =
    provider === 'twilio'
      ? twilioSettings(sms.url, extra)
      : { 'auth.sms.provider': 'vonage', 'auth.sms.vonage.api_key': 'vkey', 'auth.sms.vonage.api_secret': 'vsecret', 'auth.sms.vonage.from': 'Gantry', 'auth.sms.vonage.base_url': sms.url, ...extra };
  return suite.mirror(bare, { autoconfirm: autoconfirmEmail, allowPrivateProviderUrls: true, settings: smsSettings(bare, stored) });
}

beforeAll(async () => {
  suite = await AuthSuite.open();
  sms = await FakeSmsProvider.start();
  twilio = await served({});
  vonage = await served({}, 'vonage');
  autoconfirm = await served({ 'auth.sms.autoconfirm': true });
  limited = await served({ 'auth.rate_limit.sms_sent': 1 });
  testOtps = await served({ 'auth.sms.test_otp': '+15550000001=123456, 15550000002=654321' });
  mfa = await served({ 'auth.mfa.phone.enabled': true });
});
afterAll(async () => {
  await suite?.close();
  await sms?.close();
});

async function signUp(project: AuthProject, phone: string, password = 'secret1') {
  return project.call('POST', '/signup', { body: { phone: `+${phone}`, password }, headers: V });
}

async function verify(project: AuthProject, phone: string, token: string, type = 'sms') {
  return project.call('POST', '/verify', { body: { type, phone: `+${phone}`, token }, headers: V });
}

describe('phone sign-up with a password', () => {
  it('texts a code through Twilio, refuses the password until the number is confirmed, and signs in once it is', async () => {
    const phone = newPhone();
    const signedUp = await signUp(twilio, phone);
    expect(signedUp.status).toBe(200);
    expect(signedUp.body.session).toBeNull();
    expect(signedUp.body.user).toMatchObject({ phone, email: '', app_metadata: { provider: 'phone', providers: ['phone'] } });
    expect(signedUp.body.user.phone_confirmed_at).toBeUndefined();
    const [texted] = sms.to(phone);
    expect(texted).toMatchObject({ provider: 'twilio', path: '/2010-04-01/Accounts/AC123/Messages.json', basic: 'AC123:twilio-token' });
    expect(texted?.form).toEqual({ To: `+${phone}`, Channel: 'sms', From: 'MG456', Body: expect.stringMatching(/^Your code is \d{6}$/) });
    const code = sms.lastCode(phone);

    const early = await twilio.call('POST', '/token?grant_type=password', { body: { phone: `+${phone}`, password: 'secret1' }, headers: V });
    expect([early.status, early.body]).toEqual([400, { code: 'phone_not_confirmed', message: 'Phone not confirmed' }]);

    const wrong = await verify(twilio, phone, code === '000000' ? '111111' : '000000');
    expect([wrong.status, wrong.body]).toEqual([403, { code: 'otp_expired', message: 'Token has expired or is invalid' }]);

    const verified = await verify(twilio, phone, code);
    expect(verified.status).toBe(200);
    expect(verified.body.user).toMatchObject({ phone, phone_confirmed_at: expect.any(String) });
    expect(decodeJwt(verified.body.access_token)).toMatchObject({ phone, amr: [{ method: 'otp' }] });
    const again = await verify(twilio, phone, code);
    expect([again.status, again.body.code]).toEqual([403, 'otp_expired']);

    const { rows } = await twilio.db.query(`SELECT otp_hash, consumed_at FROM auth.one_time_tokens WHERE user_id = $1 AND token_type = 'sms'`, [signedUp.body.user.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].otp_hash).not.toContain(code);
    expect(rows[0].consumed_at).not.toBeNull();

    const login = await twilio.call('POST', '/token?grant_type=password', { body: { phone: phone, password: 'secret1' }, headers: V });
    expect([login.status, login.body.user.phone]).toEqual([200, phone]);
  });

  it('answers GoTrue errors for a malformed number, a bad channel and PKCE', async () => {
    const bad = await twilio.call('POST', '/signup', { body: { phone: '+0123', password: 'secret1' }, headers: V });
    expect([bad.status, bad.body]).toEqual([400, { code: 'validation_failed', message: 'Invalid phone number format (E.164 required)' }]);
    const channel = await twilio.call('POST', '/signup', { body: { phone: `+${newPhone()}`, password: 'secret1', channel: 'pigeon' }, headers: V });
    expect([channel.status, channel.body.code]).toEqual([400, 'validation_failed']);
    expect(channel.body.message).toMatch(/^Invalid channel/);
    const pkce = await twilio.call('POST', '/signup', {
      body: { phone: `+${newPhone()}`, password: 'secret1', code_challenge: 'x'.repeat(43), code_challenge_method: 's256' },
      headers: V,
    });
    expect([pkce.status, pkce.body]).toEqual([400, { code: 'validation_failed', message: 'PKCE not supported for phone signups' }]);
  });

  it('answers 422 sms_send_failed with the provider error and keeps no user when Twilio refuses', async () => {
    const phone = newPhone();
    sms.failNext();
    const refused = await signUp(twilio, phone);
    expect([refused.status, refused.body]).toEqual([
      422,
      { code: 'sms_send_failed', message: "Error sending confirmation OTP to provider: The 'To' number is not a valid phone number. More information: https://www.twilio.com/docs/errors/21211" },
    ]);
    const { rows } = await twilio.db.query('SELECT id FROM auth.users WHERE phone = $1', [phone]);
    expect(rows).toEqual([]);
  });

  it('sends through Vonage with its API key and secret', async () => {
    const phone = newPhone();
    expect((await signUp(vonage, phone)).status).toBe(200);
    expect(sms.to(phone)).toEqual([
      { provider: 'vonage', path: '/sms/json', basic: '', form: { from: 'Gantry', to: phone, text: expect.stringMatching(/^Your code is \d{6}$/), api_key: 'vkey', api_secret: 'vsecret' } },
    ]);
    expect((await verify(vonage, phone, sms.lastCode(phone))).status).toBe(200);
  });

  it('signs in at once with auth.sms.autoconfirm and refuses the number a second time', async () => {
    const phone = newPhone();
    const first = await signUp(autoconfirm, phone);
    expect(first.status).toBe(200);
    expect(first.body.access_token).toEqual(expect.any(String));
    expect(first.body.user).toMatchObject({ phone, phone_confirmed_at: expect.any(String) });
    expect(sms.to(phone)).toEqual([]);
    const second = await signUp(autoconfirm, phone);
    expect([second.status, second.body]).toEqual([422, { code: 'user_already_exists', message: 'User already registered' }]);
  });
});

describe('sign-in by SMS code (POST /otp)', () => {
  it('signs an unknown number up, texts it a code that signs in, and holds the next code back for max_frequency', async () => {
    const phone = newPhone();
    const asked = await twilio.call('POST', '/otp', { body: { phone: `+${phone}` }, headers: V });
    expect([asked.status, asked.body]).toEqual([200, {}]);
    const signedIn = await verify(twilio, phone, sms.lastCode(phone));
    expect([signedIn.status, signedIn.body.user.phone]).toEqual([200, phone]);

    twilio.clock.advance(61);
    const again = await twilio.call('POST', '/otp', { body: { phone: `+${phone}` }, headers: V });
    expect([again.status, again.body]).toEqual([200, {}]);
    expect(sms.to(phone)).toHaveLength(2);
    const tooSoon = await twilio.call('POST', '/otp', { body: { phone: `+${phone}` }, headers: V });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.code).toBe('over_sms_send_rate_limit');
    expect(tooSoon.body.message).toMatch(/^For security purposes, you can only request this after (59|60) seconds\.$/);

    const code = sms.lastCode(phone);
    twilio.clock.advance(61);
    const expired = await verify(twilio, phone, code);
    expect([expired.status, expired.body.code]).toEqual([403, 'otp_expired']);
  });

  it('answers 422 otp_disabled for an unknown number with create_user false', async () => {
    const res = await twilio.call('POST', '/otp', { body: { phone: `+${newPhone()}`, create_user: false }, headers: V });
    expect([res.status, res.body]).toEqual([422, { code: 'otp_disabled', message: 'Signups not allowed for otp' }]);
  });

  it('never texts a test OTP and accepts it', async () => {
    const first = await testOtps.call('POST', '/otp', { body: { phone: '+15550000001' }, headers: V });
    expect([first.status, first.body]).toEqual([200, {}]);
    const signedIn = await verify(testOtps, '15550000001', '123456');
    expect(signedIn.status).toBe(200);
    testOtps.clock.advance(61);
    const second = await testOtps.call('POST', '/otp', { body: { phone: '+15550000001' }, headers: V });
    expect([second.status, second.body]).toEqual([200, { message_id: 'test-otp' }]);
    expect(sms.to('15550000001')).toEqual([]);
    expect((await verify(testOtps, '15550000001', '654321')).status).toBe(403);
  });

  it('answers 429 over_sms_send_rate_limit past auth.rate_limit.sms_sent', async () => {
    expect((await limited.call('POST', '/otp', { body: { phone: `+${newPhone()}` }, headers: V })).status).toBe(200);
    const over = await limited.call('POST', '/otp', { body: { phone: `+${newPhone()}` }, headers: V });
    expect([over.status, over.body]).toEqual([429, { code: 'over_sms_send_rate_limit', message: 'SMS rate limit exceeded' }]);
  });
});

describe('phone change and resend', () => {
  it('texts the new number, moves it on POST /verify type phone_change, and refuses a number another account has', async () => {
    const email = uniqueEmail('phone-change');
    const created = await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    expect(created.status).toBe(200);
    const session = await twilio.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const phone = newPhone();
    const asked = await twilio.call('PUT', '/user', { bearer: session.body.access_token, body: { phone: `+${phone}` }, headers: V });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ phone: '', new_phone: phone, phone_change_sent_at: expect.any(String) });
    const first = sms.lastCode(phone);

    twilio.clock.advance(61);
    const resent = await twilio.call('POST', '/resend', { body: { type: 'phone_change', email }, headers: V });
    expect([resent.status, resent.body]).toEqual([200, {}]);
    expect(sms.to(phone)).toHaveLength(2);
    const code = sms.lastCode(phone);
    if (code !== first) expect((await verify(twilio, phone, first, 'phone_change')).status).toBe(403);

    const moved = await verify(twilio, phone, code, 'phone_change');
    expect(moved.status).toBe(200);
    expect(moved.body.user).toMatchObject({ email, phone, phone_confirmed_at: expect.any(String), app_metadata: { providers: ['email', 'phone'] } });
    expect(moved.body.user.new_phone).toBeUndefined();

    const other = await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { email: uniqueEmail('other'), password: 'secret1' } });
    const otherSession = await twilio.call('POST', '/token?grant_type=password', { body: { email: other.body.email, password: 'secret1' } });
    const taken = await twilio.call('PUT', '/user', { bearer: otherSession.body.access_token, body: { phone: `+${phone}` }, headers: V });
    expect([taken.status, taken.body]).toEqual([422, { code: 'phone_exists', message: 'A user with this phone number has already been registered' }]);
  });

  it('resends a sign-up code for an unconfirmed number and answers {} for anything else', async () => {
    const phone = newPhone();
    await signUp(twilio, phone);
    twilio.clock.advance(61);
    const resent = await twilio.call('POST', '/resend', { body: { type: 'sms', phone: `+${phone}` }, headers: V });
    expect([resent.status, resent.body]).toEqual([200, {}]);
    expect(sms.to(phone)).toHaveLength(2);
    const unknown = await twilio.call('POST', '/resend', { body: { type: 'sms', phone: `+${newPhone()}` }, headers: V });
    expect([unknown.status, unknown.body]).toEqual([200, {}]);
    const noPhone = await twilio.call('POST', '/resend', { body: { type: 'sms' }, headers: V });
    expect([noPhone.status, noPhone.body]).toEqual([400, { code: 'validation_failed', message: 'Type provided requires a phone number' }]);
  });
});

describe('admin users with a phone and /settings', () => {
  it('creates and updates users by phone with phone_confirm, refusing a taken number', async () => {
    const phone = newPhone();
    const created = await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { phone: `+${phone}`, password: 'secret1', phone_confirm: true } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ phone, email: '', phone_confirmed_at: expect.any(String), app_metadata: { provider: 'phone', providers: ['phone'] } });
    expect(created.body.identities).toMatchObject([{ provider: 'phone', identity_data: { phone, phone_verified: true } }]);
    const login = await twilio.call('POST', '/token?grant_type=password', { body: { phone, password: 'secret1' } });
    expect(login.status).toBe(200);
    const twice = await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { phone, password: 'secret1' } });
    expect([twice.status, twice.body]).toEqual([422, { code: 422, error_code: 'phone_exists', msg: 'Phone number already registered by another user' }]);
    const none = await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { password: 'secret1' }, headers: V });
    expect([none.status, none.body]).toEqual([400, { code: 'validation_failed', message: 'Cannot create a user without either an email or phone' }]);

    const next = newPhone();
    const updated = await twilio.call('PUT', `/admin/users/${created.body.id}`, { apikey: twilio.serviceKey, body: { phone: next } });
    expect(updated.status).toBe(200);
    expect(updated.body.phone).toBe(next);
    expect(updated.body.phone_confirmed_at).toBeUndefined();

    const emailUser = await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { email: uniqueEmail('admin-phone'), password: 'secret1' } });
    const third = newPhone();
    const linked = await twilio.call('PUT', `/admin/users/${emailUser.body.id}`, { apikey: twilio.serviceKey, body: { phone: `+${third}`, phone_confirm: true, app_metadata: { plan: 'pro' } } });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ phone: third, phone_confirmed_at: expect.any(String), app_metadata: { provider: 'email', providers: ['email', 'phone'], plan: 'pro' } });
    const taken = await twilio.call('PUT', `/admin/users/${emailUser.body.id}`, { apikey: twilio.serviceKey, body: { phone: next }, headers: V });
    expect([taken.status, taken.body]).toEqual([422, { code: 'phone_exists', message: 'A user with this phone number has already been registered' }]);
  });

  it('texts the reauthentication nonce to a user with a phone number and no address', async () => {
    const phone = newPhone();
    await twilio.call('POST', '/admin/users', { apikey: twilio.serviceKey, body: { phone, password: 'secret1', phone_confirm: true } });
    const session = await twilio.call('POST', '/token?grant_type=password', { body: { phone, password: 'secret1' } });
    const asked = await twilio.call('GET', '/reauthenticate', { bearer: session.body.access_token, headers: V });
    expect([asked.status, asked.body]).toEqual([200, {}]);
    expect(sms.to(phone)).toHaveLength(1);
    const { rows } = await twilio.db.query(`SELECT count(*)::int AS open FROM auth.one_time_tokens WHERE user_id = $1 AND token_type = 'reauthentication' AND consumed_at IS NULL`, [session.body.user.id]);
    expect(rows[0].open).toBe(1);
  });

  it('reports the phone provider, its SMS provider and autoconfirm in /settings', async () => {
    const on = await autoconfirm.call('GET', '/settings');
    expect([on.body.external.phone, on.body.sms_provider, on.body.phone_autoconfirm]).toEqual([true, 'twilio', true]);
    const off = await suite.project();
    const settings = await off.call('GET', '/settings');
    expect([settings.body.external.phone, settings.body.sms_provider, settings.body.phone_autoconfirm]).toEqual([false, '', false]);
  });
});

describe('phone MFA factors', () => {
  it('enrols a number, texts each challenge a code, and raises the session to aal2 with mfa/phone once verified', async () => {
    const email = uniqueEmail('phone-mfa');
    await mfa.call('POST', '/admin/users', { apikey: mfa.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const session = await mfa.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const bearer = session.body.access_token as string;
    const phone = newPhone();
    const enrolled = await mfa.call('POST', '/factors', { bearer, body: { factor_type: 'phone', phone: `+${phone}`, friendly_name: 'work phone' }, headers: V });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body).toEqual({ id: expect.any(String), type: 'phone', friendly_name: 'work phone', phone: `+${phone}` });
    const factorId = enrolled.body.id as string;

    const challenged = await mfa.call('POST', `/factors/${factorId}/challenge`, { bearer, body: { channel: 'sms' }, headers: V });
    expect(challenged.status).toBe(200);
    expect(challenged.body).toEqual({ id: expect.any(String), type: 'phone', expires_at: expect.any(Number) });
    const code = sms.lastCode(phone);
    const { rows } = await mfa.db.query('SELECT otp_hash FROM auth.mfa_challenges WHERE id = $1', [challenged.body.id]);
    expect(rows[0].otp_hash).not.toContain(code);

    const tooSoon = await mfa.call('POST', `/factors/${factorId}/challenge`, { bearer, body: {}, headers: V });
    expect([tooSoon.status, tooSoon.body.code]).toEqual([429, 'over_sms_send_rate_limit']);

    const wrong = await mfa.call('POST', `/factors/${factorId}/verify`, { bearer, body: { challenge_id: challenged.body.id, code: code === '000000' ? '111111' : '000000' }, headers: V });
    expect([wrong.status, wrong.body]).toEqual([422, { code: 'mfa_verification_failed', message: 'Invalid MFA Phone code entered' }]);
    const verified = await mfa.call('POST', `/factors/${factorId}/verify`, { bearer, body: { challenge_id: challenged.body.id, code }, headers: V });
    expect(verified.status).toBe(200);
    const claims = decodeJwt(verified.body.access_token);
    expect(claims.aal).toBe('aal2');
    expect((claims.amr as { method: string }[]).map((entry) => entry.method)).toEqual(['mfa/phone', 'password']);
    expect(verified.body.user.factors).toEqual([expect.objectContaining({ id: factorId, factor_type: 'phone', status: 'verified', phone })]);
    const replay = await mfa.call('POST', `/factors/${factorId}/verify`, { bearer: verified.body.access_token, body: { challenge_id: challenged.body.id, code }, headers: V });
    expect([replay.status, replay.body.code]).toEqual([422, 'mfa_ip_address_mismatch']);

    const again = await mfa.call('POST', '/factors', { bearer: verified.body.access_token, body: { factor_type: 'phone', phone }, headers: V });
    expect([again.status, again.body]).toEqual([422, { code: 'mfa_verified_factor_exists', message: 'A verified phone factor already exists, unenroll the existing factor to continue' }]);
    const missing = await mfa.call('POST', '/factors', { bearer: verified.body.access_token, body: { factor_type: 'phone' }, headers: V });
    expect([missing.status, missing.body]).toEqual([400, { code: 'validation_failed', message: 'Phone number required to enroll Phone factor' }]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../helpers/auth/software-authenticator.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';

/**
 * Passkeys over HTTP with a software authenticator: what auth-js's own suite does not
 * reach — the switch, challenge expiry and single use, the signature counter, origin and
 * relying-party checks, unconfirmed users, the rows kept and the admin's refusals.
 */

let suite: AuthSuite;
let off: AuthProject;
let on: AuthProject;
let limited: AuthProject;

const RP = { rpId: 'localhost', origin: 'http://localhost:5173' };
const V = { 'X-Supabase-Api-Version': '2024-01-01' };

beforeAll(async () => {
  suite = await AuthSuite.open();
  const passkeys = { 'auth.passkey.enabled': true, 'auth.webauthn.rp_id': RP.rpId, 'auth.webauthn.rp_origins': [RP.origin] };
  [off, on, limited] = await Promise.all([
    suite.project({ autoconfirm: true }),
    suite.project({ autoconfirm: true, settings: passkeys }),
    suite.project({ autoconfirm: true, settings: { ...passkeys, 'auth.rate_limit.passkey': 2, 'auth.anonymous_users': true } }),
  ]);
});
afterAll(() => suite?.close());

async function signUp(project: AuthProject): Promise<{ id: string; token: string }> {
  const res = await project.call('POST', '/signup', { body: { email: uniqueEmail('pk'), password: 'secret-pw-1' } });
  expect(res.status).toBe(200);
  return { id: res.body.user.id, token: res.body.access_token };
}

async function register(project: AuthProject, token: string, authenticator: SoftwareAuthenticator): Promise<string> {
  const options = await project.call('POST', '/passkeys/registration/options', { bearer: token, body: {} });
  expect(options.status).toBe(200);
  const verified = await project.call('POST', '/passkeys/registration/verify', {
    bearer: token,
    body: { challenge_id: options.body.challenge_id, credential: authenticator.create(options.body.options) },
  });
  expect(verified.status).toBe(200);
  return verified.body.id;
}

async function signIn(project: AuthProject, authenticator: SoftwareAuthenticator) {
  const options = await project.call('POST', '/passkeys/authentication/options', { body: {} });
  expect(options.status).toBe(200);
  return project.call('POST', '/passkeys/authentication/verify', {
    headers: V,
    body: { challenge_id: options.body.challenge_id, credential: authenticator.get(options.body.options) },
  });
}

describe('passkeys switched off', () => {
  it('answer 404 passkey_disabled, and /settings says passkeys_enabled false', async () => {
    const res = await off.call('POST', '/passkeys/authentication/options', { body: {}, headers: V });
    expect([res.status, res.body]).toEqual([404, { code: 'passkey_disabled', message: 'Passkeys are disabled' }]);
    expect((await off.call('GET', '/settings')).body.passkeys_enabled).toBe(false);
    expect((await on.call('GET', '/settings')).body.passkeys_enabled).toBe(true);
  });
});

describe('passkeys switched on', () => {
  it('keep the credential as GoTrue does and sign in with an amr of passkey', async () => {
    const user = await signUp(on);
    const authenticator = new SoftwareAuthenticator(RP);
    const id = await register(on, user.token, authenticator);
    const { rows } = await on.db.query(
      `SELECT user_id, encode(credential_id, 'base64') AS credential_id, sign_count::int, friendly_name, transports, last_used_at
         FROM auth.webauthn_credentials WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{
      user_id: user.id,
      credential_id: Buffer.from(authenticator.credentialIdBase64Url, 'base64url').toString('base64'),
      sign_count: 0,
      friendly_name: 'Passkey',
      transports: ['usb'],
      last_used_at: null,
    }]);

    const res = await signIn(on, authenticator);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(decodeJwt(res.body.access_token)).toMatchObject({ sub: user.id, aal: 'aal1', amr: [{ method: 'passkey', timestamp: expect.any(Number) }] });
    const after = await on.db.query('SELECT sign_count::int, last_used_at IS NOT NULL AS used FROM auth.webauthn_credentials WHERE id = $1', [id]);
    expect(after.rows).toEqual([{ sign_count: 1, used: true }]);
  });

  it('refuse an assertion whose signature counter does not move forward (a cloned authenticator)', async () => {
    const user = await signUp(on);
    const authenticator = new SoftwareAuthenticator(RP);
    const id = await register(on, user.token, authenticator);
    expect((await signIn(on, authenticator)).status).toBe(200);
    expect((await signIn(on, authenticator)).status).toBe(200);
    // The clone's counter restarts below the 2 the server has seen.
    (authenticator as unknown as { signCount: number }).signCount = 0;
    const res = await signIn(on, authenticator);
    expect([res.status, res.body]).toEqual([400, { code: 'webauthn_verification_failed', message: 'Credential verification failed' }]);
    const { rows } = await on.db.query('SELECT sign_count::int FROM auth.webauthn_credentials WHERE id = $1', [id]);
    expect(rows).toEqual([{ sign_count: 2 }]);
  });

  it('take each challenge once, and refuse it after five minutes', async () => {
    const user = await signUp(on);
    const authenticator = new SoftwareAuthenticator(RP);
    await register(on, user.token, authenticator);

    const options = await on.call('POST', '/passkeys/authentication/options', { body: {} });
    expect(options.body.expires_at).toBe(Math.floor(on.clock.now().getTime() / 1000) + 300);
    const assertion = authenticator.get(options.body.options);
    on.clock.advance(301);
    try {
      const expired = await on.call('POST', '/passkeys/authentication/verify', {
        headers: V,
        body: { challenge_id: options.body.challenge_id, credential: assertion },
      });
      expect([expired.status, expired.body]).toEqual([400, { code: 'webauthn_challenge_expired', message: 'Challenge has expired' }]);
    } finally {
      on.clock.advance(-301);
    }
    const again = await on.call('POST', '/passkeys/authentication/verify', {
      headers: V,
      body: { challenge_id: options.body.challenge_id, credential: assertion },
    });
    expect([again.status, again.body]).toEqual([400, { code: 'webauthn_challenge_not_found', message: 'Challenge not found or already used' }]);
    const { rows } = await on.db.query('SELECT count(*)::int AS n FROM auth.webauthn_challenges WHERE id = $1', [options.body.challenge_id]);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("refuse another user's registration challenge, and a ceremony from an origin not allowed", async () => {
    const [alice, bob] = [await signUp(on), await signUp(on)];
    const options = await on.call('POST', '/passkeys/registration/options', { bearer: alice.token, body: {} });
    const credential = new SoftwareAuthenticator(RP).create(options.body.options);
    const stolen = await on.call('POST', '/passkeys/registration/verify', {
      bearer: bob.token,
      headers: V,
      body: { challenge_id: options.body.challenge_id, credential },
    });
    expect([stolen.status, stolen.body.code]).toEqual([400, 'webauthn_challenge_not_found']);

    const fresh = await on.call('POST', '/passkeys/registration/options', { bearer: alice.token, body: {} });
    const phished = new SoftwareAuthenticator({ rpId: RP.rpId, origin: 'https://evil.example' }).create(fresh.body.options);
    const res = await on.call('POST', '/passkeys/registration/verify', {
      bearer: alice.token,
      headers: V,
      body: { challenge_id: fresh.body.challenge_id, credential: phished },
    });
    expect([res.status, res.body]).toEqual([400, { code: 'webauthn_verification_failed', message: 'Credential verification failed' }]);
    const { rows } = await on.db.query('SELECT count(*)::int AS n FROM auth.webauthn_credentials WHERE user_id = $1', [alice.id]);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('refuse sign-in to a user whose e-mail is not confirmed', async () => {
    const user = await signUp(on);
    const authenticator = new SoftwareAuthenticator(RP);
    await register(on, user.token, authenticator);
    await on.db.query('UPDATE auth.users SET email_confirmed_at = NULL WHERE id = $1', [user.id]);
    const res = await signIn(on, authenticator);
    expect([res.status, res.body]).toEqual([403, { code: 'email_not_confirmed', message: 'Email not confirmed' }]);
  });

  it('need an aal2 session to register, rename or delete once the user has a verified MFA factor', async () => {
    const user = await signUp(on);
    const id = await register(on, user.token, new SoftwareAuthenticator(RP));
    await on.db.query(`INSERT INTO auth.mfa_factors (user_id, factor_type, status, secret_sealed) VALUES ($1, 'totp', 'verified', 'unused')`, [user.id]);
    const refused = { code: 'insufficient_aal', message: 'AAL2 session is required to manage passkeys when MFA is enabled' };
    const options = await on.call('POST', '/passkeys/registration/options', { bearer: user.token, headers: V, body: {} });
    expect([options.status, options.body]).toEqual([403, refused]);
    const rename = await on.call('PATCH', `/passkeys/${id}`, { bearer: user.token, headers: V, body: { friendly_name: 'mine' } });
    expect([rename.status, rename.body]).toEqual([403, refused]);
    const remove = await on.call('DELETE', `/passkeys/${id}`, { bearer: user.token, headers: V });
    expect([remove.status, remove.body]).toEqual([403, refused]);
    const listed = await on.call('GET', '/passkeys', { bearer: user.token });
    expect([listed.status, listed.body.map((p: { id: string }) => p.id)]).toEqual([200, [id]]);
  });

  it('rename checks the name; the admin API needs an admin and an existing user', async () => {
    const user = await signUp(on);
    const id = await register(on, user.token, new SoftwareAuthenticator(RP));
    const blank = await on.call('PATCH', `/passkeys/${id}`, { bearer: user.token, headers: V, body: { friendly_name: ' ' } });
    expect([blank.status, blank.body]).toEqual([400, { code: 'validation_failed', message: 'friendly_name is required' }]);
    const long = await on.call('PATCH', `/passkeys/${id}`, { bearer: user.token, headers: V, body: { friendly_name: 'x'.repeat(121) } });
    expect([long.status, long.body]).toEqual([400, { code: 'validation_failed', message: 'friendly_name must be 120 characters or less' }]);

    const asUser = await on.call('GET', `/admin/users/${user.id}/passkeys`, { bearer: user.token, headers: V });
    expect([asUser.status, asUser.body.code]).toEqual([403, 'not_admin']);
    const missing = await on.call('GET', '/admin/users/00000000-0000-0000-0000-000000000000/passkeys', { bearer: on.serviceKey, headers: V });
    expect([missing.status, missing.body]).toEqual([404, { code: 'user_not_found', message: 'User not found' }]);
    // The admin API stays on with sign-in off, as in GoTrue.
    const listedOff = await off.call('GET', `/admin/users/${(await signUp(off)).id}/passkeys`, { bearer: off.serviceKey });
    expect([listedOff.status, listedOff.body]).toEqual([200, []]);
  });
});

describe('passkey sign-in options, asked by anyone', () => {
  async function storedChallenges(): Promise<number> {
    const { rows } = await limited.db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth.webauthn_challenges');
    return (rows[0] as { n: number }).n;
  }

  it('are limited per client IP as GoTrue limits them (auth.rate_limit.passkey per 5 minutes); a refused ask stores no challenge', async () => {
    for (let i = 0; i < 2; i++) expect((await limited.call('POST', '/passkeys/authentication/options', { body: {} })).status).toBe(200);
    const refused = await limited.call('POST', '/passkeys/authentication/options', { body: {}, headers: V });
    expect([refused.status, refused.body]).toEqual([429, { code: 'over_request_rate_limit', message: 'Request rate limit reached' }]);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(await storedChallenges()).toBe(2);
    // Registration and verify are not counted, as in GoTrue: a signed-in user still registers.
    const user = await signUp(limited);
    await register(limited, user.token, new SoftwareAuthenticator(RP));
  });

  it('leave no expired challenge behind once a new one is asked for', async () => {
    limited.clock.advance(301);
    try {
      const fresh = await limited.call('POST', '/passkeys/authentication/options', { body: {} });
      expect(fresh.status).toBe(200);
      const { rows } = await limited.db.query('SELECT id FROM auth.webauthn_challenges');
      expect(rows).toEqual([{ id: fresh.body.challenge_id }]);
    } finally {
      limited.clock.advance(-301);
    }
  });
});

describe('passkey registration by an anonymous user', () => {
  it('is refused with 403 no_authorization, as GoTrue refuses it, and stores no challenge', async () => {
    const anonymous = await limited.call('POST', '/signup', { body: {} });
    expect([anonymous.status, anonymous.body.user.is_anonymous]).toEqual([200, true]);
    const refusal = { code: 'no_authorization', message: 'Anonymous user not allowed to perform these actions' };
    const options = await limited.call('POST', '/passkeys/registration/options', { bearer: anonymous.body.access_token, headers: V, body: {} });
    expect([options.status, options.body]).toEqual([403, refusal]);
    const verify = await limited.call('POST', '/passkeys/registration/verify', {
      bearer: anonymous.body.access_token,
      headers: V,
      body: { challenge_id: '00000000-0000-0000-0000-000000000000', credential: {} },
    });
    expect([verify.status, verify.body]).toEqual([403, refusal]);
    const { rows } = await limited.db.query('SELECT count(*)::int AS n FROM auth.webauthn_challenges WHERE user_id = $1', [anonymous.body.user.id]);
    expect(rows).toEqual([{ n: 0 }]);
    // The list is theirs to read, as in GoTrue (only registration needs a permanent user).
    const list = await limited.call('GET', '/passkeys', { bearer: anonymous.body.access_token, headers: V });
    expect([list.status, list.body]).toEqual([200, []]);
  });
});

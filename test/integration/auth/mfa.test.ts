import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpCode, totpStep } from '../../../runtime/auth/credentials/totp.js';
import { scanQrSvg } from '../../helpers/qr-svg.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject, type CallResult } from '../../helpers/auth/harness.js';

/** TOTP MFA over HTTP as Supabase Auth answers it: enrol, challenge, verify to aal2, replay, unenrol, admin. */

let suite: AuthSuite;
let project: AuthProject;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

beforeAll(async () => {
  suite = await AuthSuite.open();
  project = await suite.project({ autoconfirm: true });
});
afterAll(() => suite?.close());

interface SignedIn {
  readonly email: string;
  readonly userId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

async function signUp(label: string): Promise<SignedIn> {
  const email = uniqueEmail(label);
  const res = await project.call('POST', '/signup', { body: { email, password: 'secret-pw-1' } });
  expect(res.status).toBe(200);
  return { email, userId: res.body.user.id, accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

async function signIn(email: string): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret-pw-1' } });
  expect(res.status).toBe(200);
  return { accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

const asUser = (token: string, method: string, path: string, body?: unknown): Promise<CallResult> =>
  project.call(method, path, { bearer: token, body, headers: V });

const admin = (method: string, path: string, body?: unknown): Promise<CallResult> =>
  project.call(method, path, { bearer: project.serviceKey, body, headers: V });

function expectError(res: CallResult, status: number, code: string, message: string): void {
  expect([res.status, res.body]).toEqual([status, { code, message }]);
}

/** The project clock's current time in seconds: codes must be those of the server's clock. */
function nowSeconds(): number {
  return Math.floor(project.clock.now().getTime() / 1000);
}

async function enroll(token: string, friendlyName?: string): Promise<{ id: string; secret: string; body: any }> {
  const res = await asUser(token, 'POST', '/factors', { factor_type: 'totp', friendly_name: friendlyName });
  expect(res.status).toBe(200);
  return { id: res.body.id, secret: res.body.totp.secret, body: res.body };
}

async function challenge(token: string, factorId: string): Promise<string> {
  const res = await asUser(token, 'POST', `/factors/${factorId}/challenge`, {});
  expect(res.status).toBe(200);
  return res.body.id;
}

/** Enrols and verifies a factor; returns the aal2 session. */
async function enrollAndVerify(user: SignedIn): Promise<{ factorId: string; secret: string; accessToken: string; refreshToken: string }> {
  const { id, secret } = await enroll(user.accessToken, 'phone app');
  const challengeId = await challenge(user.accessToken, id);
  const res = await asUser(user.accessToken, 'POST', `/factors/${id}/verify`, {
    challenge_id: challengeId,
    code: totpCode(base32Decode(secret), nowSeconds()),
  });
  expect(res.status).toBe(200);
  return { factorId: id, secret, accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

describe('enrol, challenge, verify', () => {
  it('takes a password session from aal1 to aal2 with a TOTP code, and never accepts that code again', async () => {
    const user = await signUp('mfa');
    expect(decodeJwt(user.accessToken)).toMatchObject({ aal: 'aal1', amr: [{ method: 'password', timestamp: expect.any(Number) }] });

    const enrolled = await enroll(user.accessToken, 'my phone');
    const host = new URL(project.authUrl).host;
    expect(enrolled.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'totp',
      friendly_name: 'my phone',
      totp: {
        qr_code: expect.stringMatching(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" .*<\/svg>$/),
        secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
        uri: `otpauth://totp/${host}:${user.email}?algorithm=SHA1&digits=6&issuer=${encodeURIComponent(host)}&period=30&secret=${enrolled.secret}`,
      },
    });
    // What an authenticator app scans is that URI.
    expect(scanQrSvg(enrolled.body.totp.qr_code)).toBe(enrolled.body.totp.uri);
    // The database holds the secret sealed, not in any readable form.
    const stored = await project.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM auth.mfa_factors WHERE id = $1', [enrolled.id]);
    expect(stored.rows[0]?.secret_sealed).not.toContain(enrolled.secret);
    expect(Buffer.from(stored.rows[0]?.secret_sealed ?? '', 'base64url').includes(base32Decode(enrolled.secret))).toBe(false);

    const listed = await asUser(user.accessToken, 'GET', '/user');
    expect(listed.body.factors).toEqual([
      {
        id: enrolled.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        status: 'unverified',
        friendly_name: 'my phone',
        factor_type: 'totp',
        phone: '',
        last_challenged_at: null,
      },
    ]);
    expect(Object.keys(listed.body).indexOf('factors')).toBe(Object.keys(listed.body).indexOf('user_metadata') + 1);

    project.clock.advance(5);
    const challengedFrom = nowSeconds();
    const created = await asUser(user.accessToken, 'POST', `/factors/${enrolled.id}/challenge`, {});
    const challengedBy = nowSeconds();
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      type: 'totp',
      expires_at: expect.toSatisfy((t: number) => t >= challengedFrom + 300 && t <= challengedBy + 300),
    });

    const key = base32Decode(enrolled.secret);
    const step = totpStep(nowSeconds());
    const wrong = String((Number(totpCode(key, nowSeconds())) + 1) % 1_000_000).padStart(6, '0');
    expectError(
      await asUser(user.accessToken, 'POST', `/factors/${enrolled.id}/verify`, { challenge_id: created.body.id, code: wrong }),
      422,
      'mfa_verification_failed',
      'Invalid TOTP code entered',
    );
    expectError(
      await asUser(user.accessToken, 'POST', `/factors/${enrolled.id}/verify`, { challenge_id: created.body.id, code: hotp(key, step - 2) }),
      422,
      'mfa_verification_failed',
      'Invalid TOTP code entered',
    );

    const code = hotp(key, step);
    const verifiedFrom = nowSeconds();
    const verified = await asUser(user.accessToken, 'POST', `/factors/${enrolled.id}/verify`, { challenge_id: created.body.id, code });
    expect(verified.status).toBe(200);
    expect(Object.keys(verified.body)).toEqual(['access_token', 'token_type', 'expires_in', 'expires_at', 'refresh_token', 'user']);
    const claims = decodeJwt(verified.body.access_token);
    expect(claims.aal).toBe('aal2');
    expect(claims.session_id).toBe(decodeJwt(user.accessToken).session_id);
    const verifiedBy = nowSeconds();
    expect(claims.amr).toEqual([
      { method: 'totp', timestamp: expect.toSatisfy((t: number) => t >= verifiedFrom && t <= verifiedBy) },
      { method: 'password', timestamp: (decodeJwt(user.accessToken).amr as { timestamp: number }[])[0]?.timestamp },
    ]);
    expect(verified.body.user.factors).toEqual([expect.objectContaining({ id: enrolled.id, status: 'verified', last_challenged_at: expect.any(String) })]);

    // The spent challenge cannot be verified again (GoTrue words it as an IP mismatch).
    expectError(
      await asUser(verified.body.access_token, 'POST', `/factors/${enrolled.id}/verify`, { challenge_id: created.body.id, code }),
      422,
      'mfa_ip_address_mismatch',
      'Challenge and verify IP addresses mismatch.',
    );
    // The same code on a fresh challenge is a replay; so is the previous step's code.
    const again = await challenge(verified.body.access_token, enrolled.id);
    for (const replayed of [code, hotp(key, step - 1)]) {
      expectError(
        await asUser(verified.body.access_token, 'POST', `/factors/${enrolled.id}/verify`, { challenge_id: again, code: replayed }),
        422,
        'mfa_verification_failed',
        'Invalid TOTP code entered',
      );
    }
    // The next step's code is new, and inside the ±1 step window.
    const next = await asUser(verified.body.access_token, 'POST', `/factors/${enrolled.id}/verify`, { challenge_id: again, code: hotp(key, step + 1) });
    expect([next.status, decodeJwt(next.body.access_token).aal]).toEqual([200, 'aal2']);
  });

  it('keeps aal2 and the totp amr entry on refresh; the refresh token from before the verification is spent', async () => {
    const user = await signUp('mfa-refresh');
    project.clock.advance(2);
    const raised = await enrollAndVerify(user);
    const refreshed = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: raised.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({
      aal: 'aal2',
      amr: [{ method: 'totp' }, { method: 'password' }],
    });
    expect(refreshed.body.user.factors).toEqual([expect.objectContaining({ id: raised.factorId, status: 'verified' })]);

    const stale = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: user.refreshToken }, headers: V });
    expect([stale.status, stale.body.code]).toEqual([400, 'refresh_token_already_used']);
  });

  it("ends the user's other aal1 sessions once a factor is verified, as GoTrue does", async () => {
    const user = await signUp('mfa-others');
    const elsewhere = await signIn(user.email);
    await enrollAndVerify(user);
    const res = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: elsewhere.refreshToken }, headers: V });
    expectError(res, 400, 'session_not_found', 'Invalid Refresh Token: No Valid Session Found');
  });

  it('a new password session of a user with a verified factor is aal1 until it verifies', async () => {
    const user = await signUp('mfa-again');
    const { factorId, secret } = await enrollAndVerify(user);
    project.clock.advance(30);
    const fresh = await signIn(user.email);
    expect(decodeJwt(fresh.accessToken)).toMatchObject({ aal: 'aal1', amr: [{ method: 'password' }] });
    const challengeId = await challenge(fresh.accessToken, factorId);
    const res = await asUser(fresh.accessToken, 'POST', `/factors/${factorId}/verify`, {
      challenge_id: challengeId,
      code: totpCode(base32Decode(secret), nowSeconds()),
    });
    expect([res.status, decodeJwt(res.body.access_token).aal]).toEqual([200, 'aal2']);
  });
});

describe('storage', () => {
  it('the API roles can read neither the factor tables nor auth.user_factors()', async () => {
    const client = await project.db.connect();
    try {
      for (const role of ['anon', 'authenticated']) {
        for (const sql of ['SELECT * FROM auth.mfa_factors', 'SELECT * FROM auth.mfa_challenges', 'SELECT auth.user_factors(gen_random_uuid())']) {
          await client.query('BEGIN');
          await client.query(`SET LOCAL ROLE ${role}`);
          await expect(client.query(sql)).rejects.toMatchObject({ code: '42501' });
          await client.query('ROLLBACK');
        }
      }
    } finally {
      client.release();
    }
  });
});

describe('replay under concurrency', () => {
  it('of two verifications racing with one code on two challenges, exactly one succeeds', async () => {
    const user = await signUp('mfa-race');
    const { id, secret } = await enroll(user.accessToken);
    const [first, second] = await Promise.all([challenge(user.accessToken, id), challenge(user.accessToken, id)]);
    const code = totpCode(base32Decode(secret), nowSeconds());
    const answers = await Promise.all(
      [first, second].map((challengeId) => asUser(user.accessToken, 'POST', `/factors/${id}/verify`, { challenge_id: challengeId, code })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 422]);
    expect(answers.find((res) => res.status === 422)?.body.code).toBe('mfa_verification_failed');
  });
});

describe('refusals', () => {
  it('an expired challenge is refused and removed', async () => {
    const user = await signUp('mfa-expiry');
    const { id, secret } = await enroll(user.accessToken);
    const challengeId = await challenge(user.accessToken, id);
    project.clock.advance(301);
    const code = totpCode(base32Decode(secret), nowSeconds());
    expectError(
      await asUser(user.accessToken, 'POST', `/factors/${id}/verify`, { challenge_id: challengeId, code }),
      422,
      'mfa_challenge_expired',
      `MFA challenge ${challengeId} has expired, verify against another challenge or create a new challenge.`,
    );
    expect((await project.db.query('SELECT 1 FROM auth.mfa_challenges WHERE id = $1', [challengeId])).rowCount).toBe(0);
  });

  it('answers bad parameters, unknown challenges and factors as GoTrue', async () => {
    const user = await signUp('mfa-params');
    const other = await signUp('mfa-params-other');
    const { id } = await enroll(user.accessToken);
    const challengeId = await challenge(user.accessToken, id);
    expectError(await asUser(user.accessToken, 'POST', `/factors/${id}/verify`, { challenge_id: challengeId }), 400, 'validation_failed', 'Code needs to be non-empty');
    expectError(
      await asUser(user.accessToken, 'POST', `/factors/${id}/verify`, { challenge_id: '00000000-0000-4000-8000-000000000000', code: '123456' }),
      422,
      'mfa_factor_not_found',
      'MFA factor with the provided challenge ID not found',
    );
    expectError(await asUser(other.accessToken, 'POST', `/factors/${id}/challenge`, {}), 404, 'mfa_factor_not_found', 'Factor not found');
    expectError(await asUser(other.accessToken, 'DELETE', `/factors/${id}`), 404, 'mfa_factor_not_found', 'Factor not found');
    expectError(await asUser(user.accessToken, 'POST', '/factors/nope/challenge', {}), 404, 'validation_failed', 'factor_id must be an UUID');
    expectError(
      await asUser(user.accessToken, 'POST', '/factors', { factor_type: 'totp', friendly_name: 7 }),
      400,
      'bad_json',
      'Could not parse request body as JSON: json: cannot unmarshal number into Go struct field EnrollFactorParams.friendly_name of type string',
    );
    expectError(await asUser(user.accessToken, 'POST', '/factors', { factor_type: 'phone', phone: '+15555550100' }), 422, 'mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
    expectError(await asUser(user.accessToken, 'POST', '/factors', { factor_type: 'webauthn' }), 422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
  });

  it('anonymous users may not use factors, as GoTrue', async () => {
    const open = await suite.project({ settings: { 'auth.anonymous_users': true } });
    const anonymous = await open.call('POST', '/signup', { body: {} });
    expect([anonymous.status, decodeJwt(anonymous.body.access_token).is_anonymous]).toEqual([200, true]);
    const res = await open.call('POST', '/factors', { bearer: anonymous.body.access_token, body: { factor_type: 'totp' }, headers: V });
    expectError(res, 403, 'no_authorization', 'Anonymous user not allowed to perform these actions');
  });

  it('friendly names are unique per user (the empty name too), and at most 10 factors', async () => {
    const user = await signUp('mfa-names');
    await enroll(user.accessToken, 'laptop');
    expectError(
      await asUser(user.accessToken, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'laptop' }),
      422,
      'mfa_factor_name_conflict',
      'A factor with the friendly name "laptop" for this user already exists',
    );
    await enroll(user.accessToken);
    expectError(
      await asUser(user.accessToken, 'POST', '/factors', { factor_type: 'totp' }),
      422,
      'mfa_factor_name_conflict',
      'A factor with the friendly name "" for this user already exists',
    );
    for (let i = 0; i < 8; i += 1) await enroll(user.accessToken, `device ${i}`);
    expectError(
      await asUser(user.accessToken, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'one too many' }),
      422,
      'too_many_enrolled_mfa_factors',
      'Maximum number of verified factors reached, unenroll to continue',
    );
  });

  it('unverified factors nobody challenged are dropped after 5 minutes', async () => {
    const user = await signUp('mfa-abandoned');
    await enroll(user.accessToken, 'abandoned');
    project.clock.advance(301);
    await enroll(user.accessToken, 'abandoned');
    expect((await project.db.query('SELECT 1 FROM auth.mfa_factors WHERE user_id = $1', [user.userId])).rowCount).toBe(1);
  });

  it('with a verified factor, enrolling another or unenrolling needs aal2', async () => {
    const user = await signUp('mfa-aal');
    const { factorId, accessToken } = await enrollAndVerify(user);
    const aal1 = await signIn(user.email);
    expectError(await asUser(aal1.accessToken, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'second' }), 403, 'insufficient_aal', 'AAL2 required to enroll a new factor');
    expectError(await asUser(aal1.accessToken, 'DELETE', `/factors/${factorId}`), 422, 'insufficient_aal', 'AAL2 required to unenroll verified factor');
    expect((await asUser(accessToken, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'second' })).status).toBe(200);
  });
});

describe('unenrol', () => {
  it('removes the factor and drops the sessions that reached aal2 with it back to aal1', async () => {
    const user = await signUp('mfa-unenroll');
    const raised = await enrollAndVerify(user);
    const res = await asUser(raised.accessToken, 'DELETE', `/factors/${raised.factorId}`);
    expect([res.status, res.body]).toEqual([200, { id: raised.factorId }]);
    const refreshed = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: raised.refreshToken } });
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({ aal: 'aal1', amr: [{ method: 'password' }] });
    expect(refreshed.body.user.factors).toBeUndefined();
    expect((await asUser(refreshed.body.access_token, 'GET', '/user')).body).not.toHaveProperty('factors');
  });

  it('an unverified factor can be unenrolled from aal1', async () => {
    const user = await signUp('mfa-unenroll-unverified');
    const { id } = await enroll(user.accessToken);
    expect((await asUser(user.accessToken, 'DELETE', `/factors/${id}`)).body).toEqual({ id });
  });
});

describe('admin', () => {
  it("lists, renames and deletes a user's factors; deleting downgrades the user's aal2 sessions", async () => {
    const user = await signUp('mfa-admin');
    const raised = await enrollAndVerify(user);
    const listed = await admin('GET', `/admin/users/${user.userId}/factors`);
    expect([listed.status, listed.body]).toEqual([
      200,
      [
        {
          id: raised.factorId,
          created_at: expect.any(String),
          updated_at: expect.any(String),
          status: 'verified',
          friendly_name: 'phone app',
          factor_type: 'totp',
          phone: '',
          last_challenged_at: expect.any(String),
        },
      ],
    ]);
    expect((await admin('GET', `/admin/users/${user.userId}`)).body.factors).toEqual(listed.body);

    const renamed = await admin('PUT', `/admin/users/${user.userId}/factors/${raised.factorId}`, { friendly_name: 'old phone' });
    expect([renamed.status, renamed.body.friendly_name]).toEqual([200, 'old phone']);

    const deleted = await admin('DELETE', `/admin/users/${user.userId}/factors/${raised.factorId}`);
    expect([deleted.status, deleted.body]).toEqual([200, { ...listed.body[0], friendly_name: 'old phone', updated_at: expect.any(String) }]);
    expect((await admin('GET', `/admin/users/${user.userId}/factors`)).body).toEqual([]);
    const refreshed = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: raised.refreshToken } });
    expect(decodeJwt(refreshed.body.access_token).aal).toBe('aal1');

    expectError(await admin('DELETE', `/admin/users/${user.userId}/factors/${raised.factorId}`), 404, 'mfa_factor_not_found', 'Factor not found');
    const notAdmin = await project.call('GET', `/admin/users/${user.userId}/factors`, { bearer: raised.accessToken, headers: V });
    expect([notAdmin.status, notAdmin.body.code]).toEqual([403, 'not_admin']);
  });
});

describe('rate limit', () => {
  it('allows 15 challenges a minute per client, as GoTrue', async () => {
    const limited = await suite.project({ autoconfirm: true });
    const signedUp = await limited.call('POST', '/signup', { body: { email: uniqueEmail('mfa-rate'), password: 'secret-pw-1' } });
    const token = signedUp.body.access_token as string;
    const factor = await limited.call('POST', '/factors', { bearer: token, body: { factor_type: 'totp' } });
    for (let i = 0; i < 15; i += 1) {
      expect((await limited.call('POST', `/factors/${factor.body.id}/challenge`, { bearer: token })).status).toBe(200);
    }
    const refused = await limited.call('POST', `/factors/${factor.body.id}/challenge`, { bearer: token, headers: V });
    expect([refused.status, refused.body.code]).toEqual([429, 'over_request_rate_limit']);
    limited.clock.advance(61);
    expect((await limited.call('POST', `/factors/${factor.body.id}/challenge`, { bearer: token })).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../helpers/auth/software-authenticator.js';
import { hookCalls, pgFunctionHook, recordingHookSql } from '../../helpers/pg-hook-functions.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';

/**
 * WebAuthn MFA factors over HTTP with a software authenticator, as GoTrue's /factors serves
 * them: enrol, a `create` ceremony that verifies the factor, `request` ceremonies after it,
 * each challenge used once, the signature counter checked, and the switch.
 */

let suite: AuthSuite;
let off: AuthProject;
let on: AuthProject;

const RP = { rpId: 'localhost', origin: 'http://localhost:5173' };
const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const PASSWORD = 'secret-pw-1';

beforeAll(async () => {
  suite = await AuthSuite.open();
  [off, on] = await Promise.all([
    suite.project({ autoconfirm: true }),
    suite.project({
      autoconfirm: true,
      settings: { 'auth.mfa.webauthn.enabled': true, 'auth.webauthn.rp_id': RP.rpId, 'auth.webauthn.rp_origins': [RP.origin] },
    }),
  ]);
});
afterAll(() => suite?.close());

async function signUp(project: AuthProject): Promise<{ email: string; token: string }> {
  const email = uniqueEmail('wa');
  const res = await project.call('POST', '/signup', { body: { email, password: PASSWORD } });
  expect(res.status).toBe(200);
  return { email, token: res.body.access_token };
}

async function challenge(project: AuthProject, token: string, factorId: string) {
  const res = await project.call('POST', `/factors/${factorId}/challenge`, { bearer: token, headers: V, body: {} });
  expect(res.status).toBe(200);
  return res.body;
}

function verify(project: AuthProject, token: string, factorId: string, challengeId: string, type: string, credential: unknown) {
  return project.call('POST', `/factors/${factorId}/verify`, {
    bearer: token,
    headers: V,
    body: { challenge_id: challengeId, webauthn: { type, rp_id: RP.rpId, rp_origins: [RP.origin], credential_response: credential } },
  });
}

describe('WebAuthn MFA factors', () => {
  it('are off by default: enrol 422 mfa_webauthn_enroll_not_enabled', async () => {
    const { token } = await signUp(off);
    const res = await off.call('POST', '/factors', { bearer: token, headers: V, body: { factor_type: 'webauthn' } });
    expect([res.status, res.body]).toEqual([422, { code: 'mfa_webauthn_enroll_not_enabled', message: 'MFA enroll is disabled for WebAuthn' }]);
  });

  it('enrol, register with a create ceremony to aal2, then sign in again with request ceremonies', async () => {
    const user = await signUp(on);
    const authenticator = new SoftwareAuthenticator(RP);
    const enrolled = await on.call('POST', '/factors', { bearer: user.token, headers: V, body: { factor_type: 'webauthn', friendly_name: 'Key' } });
    expect([enrolled.status, enrolled.body]).toEqual([200, { id: expect.any(String), type: 'webauthn', friendly_name: 'Key' }]);
    const factorId = enrolled.body.id as string;

    const create = await challenge(on, user.token, factorId);
    expect(create).toMatchObject({ id: expect.any(String), type: 'webauthn', expires_at: expect.any(Number), webauthn: { type: 'create' } });
    expect(create.webauthn.credential_options.publicKey).toMatchObject({ rp: { id: RP.rpId }, challenge: expect.any(String) });
    const registered = await verify(on, user.token, factorId, create.id, 'create', authenticator.create(create.webauthn.credential_options.publicKey));
    expect(registered.status).toBe(200);
    expect(decodeJwt(registered.body.access_token)).toMatchObject({ aal: 'aal2', amr: [{ method: 'mfa/webauthn' }, { method: 'password' }] });
    const { rows } = await on.db.query(`SELECT status, web_authn_credential->>'id' AS credential FROM auth.mfa_factors WHERE id = $1`, [factorId]);
    expect(rows).toEqual([{ status: 'verified', credential: authenticator.credentialIdBase64Url }]);

    const signIn = await on.call('POST', '/token?grant_type=password', { body: { email: user.email, password: PASSWORD } });
    const token = signIn.body.access_token as string;
    const request = await challenge(on, token, factorId);
    expect(request.webauthn.type).toBe('request');
    expect(request.webauthn.credential_options.publicKey.allowCredentials).toEqual([{ id: authenticator.credentialIdBase64Url, type: 'public-key' }]);
    const assertion = authenticator.get(request.webauthn.credential_options.publicKey);
    const raised = await verify(on, token, factorId, request.id, 'request', assertion);
    expect(raised.status).toBe(200);
    expect(decodeJwt(raised.body.access_token)).toMatchObject({ aal: 'aal2' });

    const replay = await verify(on, raised.body.access_token, factorId, request.id, 'request', assertion);
    expect([replay.status, replay.body.code]).toEqual([422, 'mfa_factor_not_found']);

    // A clone of the authenticator: its counter is behind the one the server has seen.
    (authenticator as unknown as { signCount: number }).signCount = 0;
    const cloned = await challenge(on, token, factorId);
    const refused = await verify(on, token, factorId, cloned.id, 'request', authenticator.get(cloned.webauthn.credential_options.publicKey));
    expect([refused.status, refused.body]).toEqual([422, { code: 'mfa_verification_failed', message: 'WebAuthn response could not be verified' }]);
    const counter = await on.db.query(`SELECT (web_authn_credential->>'sign_count')::int AS n FROM auth.mfa_factors WHERE id = $1`, [factorId]);
    expect(counter.rows).toEqual([{ n: 1 }]);
  });

  it('check the verify body as GoTrue does, and refuse a response from an origin not allowed', async () => {
    const user = await signUp(on);
    const enrolled = await on.call('POST', '/factors', { bearer: user.token, body: { factor_type: 'webauthn' } });
    const factorId = enrolled.body.id as string;
    const create = await challenge(on, user.token, factorId);
    const missing = await on.call('POST', `/factors/${factorId}/verify`, { bearer: user.token, headers: V, body: { challenge_id: create.id } });
    expect([missing.status, missing.body]).toEqual([400, { code: 'validation_failed', message: 'WebAuthn config required' }]);
    const badType = await verify(on, user.token, factorId, create.id, 'get', {});
    expect([badType.status, badType.body]).toEqual([400, { code: 'validation_failed', message: 'WebAuthn type must be create or request' }]);

    const phished = new SoftwareAuthenticator({ rpId: RP.rpId, origin: 'https://evil.example' }).create(create.webauthn.credential_options.publicKey);
    const res = await verify(on, user.token, factorId, create.id, 'create', phished);
    expect([res.status, res.body.code]).toEqual([422, 'mfa_verification_failed']);
    const { rows } = await on.db.query('SELECT status FROM auth.mfa_factors WHERE id = $1', [factorId]);
    expect(rows).toEqual([{ status: 'unverified' }]);
  });
});

describe('WebAuthn MFA factors and the MFA verification attempt hook', () => {
  it('are not put to the hook, as GoTrue puts only TOTP and phone verifications to it', async () => {
    const hooked = await suite.project({
      autoconfirm: true,
      settings: {
        'auth.mfa.webauthn.enabled': true,
        'auth.webauthn.rp_id': RP.rpId,
        'auth.webauthn.rp_origins': [RP.origin],
        'auth.hook': pgFunctionHook('mfa_verification_attempt', 'refuse_mfa'),
      },
    });
    await hooked.db.query(recordingHookSql('refuse_mfa', `RETURN '{"decision": "reject", "message": "refused by the hook"}'::jsonb;`));
    const user = await signUp(hooked);
    const enrolled = await hooked.call('POST', '/factors', { bearer: user.token, headers: V, body: { factor_type: 'webauthn' } });
    const create = await challenge(hooked, user.token, enrolled.body.id);
    const registered = await verify(hooked, user.token, enrolled.body.id, create.id, 'create', new SoftwareAuthenticator(RP).create(create.webauthn.credential_options.publicKey));
    expect(registered.status).toBe(200);
    expect(await hookCalls(hooked, 'refuse_mfa')).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';

/** Endpoints of Supabase Auth features Gantry lacks answer as Supabase Auth does with the feature off, never a bare 404. */

let suite: AuthSuite;
let project: AuthProject;
let accessToken: string;
let userId: string;

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const FACTOR = '00000000-0000-4000-8000-000000000001';

beforeAll(async () => {
  suite = await AuthSuite.open();
  project = await suite.project({ autoconfirm: true });
  const signedUp = await project.call('POST', '/signup', { body: { email: uniqueEmail('feat'), password: 'secret1' } });
  accessToken = signedUp.body.access_token;
  userId = signedUp.body.user.id;
});
afterAll(() => suite?.close());

type Case = readonly [string, string, Record<string, unknown> | undefined, number, string, string];

function expectAnswer(res: { status: number; body: unknown; headers: Headers }, status: number, code: string, message: string): void {
  expect([res.status, res.body]).toEqual([status, { code, message }]);
  expect(res.headers.get('x-sb-error-code')).toBe(code);
}

describe('public endpoints', () => {
  it.each<Case>([
    ['GET', '/authorize?provider=github', undefined, 400, 'validation_failed', 'Unsupported provider: provider is not enabled'],
    ['GET', '/authorize?provider=Google', undefined, 400, 'validation_failed', 'Unsupported provider: provider is not enabled'],
    ['GET', '/authorize?provider=nope', undefined, 400, 'validation_failed', 'Unsupported provider: Provider nope could not be found'],
    ['POST', '/otp', { phone: '+15555550100' }, 400, 'phone_provider_disabled', 'Unsupported phone provider'],
    ['POST', '/otp', { email: 'a@example.com', phone: '+15555550100' }, 400, 'validation_failed', 'Only an email address or phone number should be provided'],
    ['POST', '/otp', {}, 400, 'validation_failed', 'One of email or phone must be set'],
    ['POST', '/sso', { domain: 'example.com' }, 404, 'saml_provider_disabled', 'SAML 2.0 is disabled'],
    ['GET', '/sso/saml/metadata', undefined, 404, 'saml_provider_disabled', 'SAML 2.0 is disabled'],
    ['POST', '/passkeys/authentication/options', {}, 404, 'passkey_disabled', 'Passkeys are disabled'],
    ['GET', '/oauth/authorize?client_id=x', undefined, 404, 'feature_disabled', 'OAuth server is disabled'],
    ['POST', '/token?grant_type=id_token', { provider: 'google', id_token: 'x.y.z' }, 400, 'provider_disabled', 'Provider (issuer "https://accounts.google.com") is not enabled'],
    ['POST', '/token?grant_type=id_token', { provider: 'apple', id_token: 'x.y.z' }, 400, 'validation_failed', 'Unable to detect issuer in ID token for Apple provider'],
    ['POST', '/token?grant_type=id_token', { provider: 'acme', id_token: 'x.y.z' }, 400, 'validation_failed', 'Custom OIDC provider "acme" not allowed'],
    ['POST', '/token?grant_type=web3', { chain: 'solana' }, 422, 'web3_provider_disabled', 'Web3 provider is disabled'],
    ['POST', '/token?grant_type=password', { phone: '+15555550100', password: 'secret1' }, 422, 'phone_provider_disabled', 'Phone logins are disabled'],
  ])('%s %s %j -> %i %s', async (method, path, body, status, code, message) => {
    expectAnswer(await project.call(method, path, { body, headers: V }), status, code, message);
  });

  it('still needs the API key', async () => {
    const res = await project.call('POST', '/sso', { apikey: null, body: { domain: 'example.com' }, headers: V });
    expect([res.status, res.body.code]).toEqual([401, 'no_api_key']);
  });
});

describe('endpoints for a signed-in user', () => {
  it.each<Case>([
    ['GET', '/user/identities/authorize?provider=github', undefined, 404, 'manual_linking_disabled', 'Manual linking is disabled'],
    ['DELETE', `/user/identities/${FACTOR}`, undefined, 404, 'manual_linking_disabled', 'Manual linking is disabled'],
    ['POST', '/factors', { factor_type: 'phone', phone: '+15555550100' }, 422, 'mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone'],
    ['POST', '/factors', { factor_type: 'sms' }, 400, 'validation_failed', 'factor_type needs to be totp, phone, or webauthn'],
    ['POST', `/factors/${FACTOR}/challenge`, {}, 404, 'mfa_factor_not_found', 'Factor not found'],
    ['POST', `/factors/${FACTOR}/verify`, { challenge_id: FACTOR, code: '123456' }, 404, 'mfa_factor_not_found', 'Factor not found'],
    ['DELETE', '/factors/not-a-uuid', undefined, 404, 'validation_failed', 'factor_id must be an UUID'],
  ])('%s %s %j -> %i %s', async (method, path, body, status, code, message) => {
    expectAnswer(await project.call(method, path, { bearer: accessToken, body, headers: V }), status, code, message);
  });

  it('authenticates first, as GoTrue: no token is 401 no_authorization', async () => {
    const res = await project.call('POST', '/factors', { body: { factor_type: 'totp' }, headers: V });
    expect([res.status, res.body.code]).toEqual([401, 'no_authorization']);
  });
});

describe('admin endpoints', () => {
  const admin = (method: string, path: string, body?: unknown) =>
    project.call(method, path, { bearer: project.serviceKey, body, headers: V });

  it('lists no factors for a user, and finds none to change', async () => {
    expect(await admin('GET', `/admin/users/${userId}/factors`).then((res) => [res.status, res.body])).toEqual([200, []]);
    expectAnswer(await admin('DELETE', `/admin/users/${userId}/factors/${FACTOR}`), 404, 'mfa_factor_not_found', 'Factor not found');
    expectAnswer(await admin('GET', `/admin/users/${FACTOR}/factors`), 404, 'user_not_found', 'User not found');
  });
});

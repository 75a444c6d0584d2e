import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { JwtError, signAccessToken, signJwt, verifyProjectToken, type AccessTokenClaims } from '../../../runtime/tokens/jwt.js';
import { buildKeyring, jwksOf, type StoredSigningKey } from '../../../runtime/tokens/keyring.js';
import { generateSigningKey, type NewSigningKey } from '../../../runtime/platform/signing-keys.js';

const secret = 'unit-test-secret-0123456789abcdef0123';
const now = 1_800_000_000;

function claims(sub: string): AccessTokenClaims {
  return {
    iss: 'http://localhost/v1/demo/auth/v1',
    sub,
    aud: 'authenticated',
    exp: now + 3600,
    iat: now,
    email: 'a@example.com',
    phone: '',
    app_metadata: {},
    user_metadata: {},
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method: 'password', timestamp: now }],
    session_id: '00000000-0000-4000-8000-000000000001',
    is_anonymous: false,
  };
}

function stored(key: NewSigningKey, status: 'current' | 'previous', expiresAt: number | null = null): StoredSigningKey {
  return { ...key, status, expiresAt: expiresAt === null ? null : new Date(expiresAt * 1000) };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof JwtError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('asymmetric signing keys', () => {
  it('signs access tokens with the current key (ES256, kid in the header) and verifies them; API keys stay HS256', async () => {
    const key = await generateSigningKey('ES256');
    const keyring = buildKeyring(secret, [stored(key, 'current')], 'ES256');
    const token = signAccessToken(keyring, claims('u1'));
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: key.kid, typ: 'JWT' });
    expect(verifyProjectToken(token, keyring, now).sub).toBe('u1');
    expect(verifyProjectToken(signJwt(secret, { role: 'anon', exp: now + 60 }), keyring, now).role).toBe('anon');
    // The same token against a bare secret (no signing keys) names the kid it cannot find, as GoTrue does.
    expect(codeOf(() => verifyProjectToken(token, secret, now))).toBe(`jwt_unknown_key: unrecognized JWT kid ${key.kid} for algorithm ES256`);
  });

  it('publishes only public members in the JWKS, which jose uses to verify a token', async () => {
    const key = await generateSigningKey('ES256');
    const keyring = buildKeyring(secret, [stored(key, 'current')], 'ES256');
    const jwks = jwksOf(keyring, now);
    expect(jwks.keys).toHaveLength(1);
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(['alg', 'crv', 'key_ops', 'kid', 'kty', 'use', 'x', 'y']);
    expect(jwks.keys[0]).toMatchObject({ kid: key.kid, alg: 'ES256', kty: 'EC', crv: 'P-256', use: 'sig', key_ops: ['verify'] });
    const token = signAccessToken(keyring, claims('u2'));
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as never), { currentDate: new Date(now * 1000), audience: 'authenticated' });
    expect(payload.sub).toBe('u2');
  });

  it('signs and verifies with RS256 keys too', async () => {
    const key = await generateSigningKey('RS256');
    const keyring = buildKeyring(secret, [stored(key, 'current')], 'RS256');
    const token = signAccessToken(keyring, claims('u3'));
    expect(decodeProtectedHeader(token).alg).toBe('RS256');
    expect(verifyProjectToken(token, keyring, now).sub).toBe('u3');
    expect(Object.keys(jwksOf(keyring, now).keys[0]!).sort()).toEqual(['alg', 'e', 'key_ops', 'kid', 'kty', 'n', 'use']);
  });

  it('refuses a tampered signature, an alg that does not match the kid, and a token of another project key', async () => {
    const [key, other] = await Promise.all([generateSigningKey('ES256'), generateSigningKey('ES256')]);
    const keyring = buildKeyring(secret, [stored(key, 'current')], 'ES256');
    const token = signAccessToken(keyring, claims('u4'));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(codeOf(() => verifyProjectToken(`${header}.${payload}.${flipped}`, keyring, now))).toBe('jwt_bad_signature: signature is invalid');
    const asRs = Buffer.from(JSON.stringify({ alg: 'RS256', kid: key.kid, typ: 'JWT' })).toString('base64url');
    expect(codeOf(() => verifyProjectToken(`${asRs}.${payload}.${signature}`, keyring, now))).toBe(
      `jwt_unknown_key: unrecognized JWT kid ${key.kid} for algorithm RS256`,
    );
    const foreign = signAccessToken(buildKeyring(secret, [stored(other, 'current')], 'ES256'), claims('u4'));
    expect(codeOf(() => verifyProjectToken(foreign, keyring, now))).toBe(`jwt_unknown_key: unrecognized JWT kid ${other.kid} for algorithm ES256`);
  });

  it('accepts a previous key until its grace period ends, even for a token verified (and cached) before', async () => {
    const [old, fresh] = await Promise.all([generateSigningKey('ES256'), generateSigningKey('ES256')]);
    const before = buildKeyring(secret, [stored(old, 'current')], 'ES256');
    const token = signAccessToken(before, claims('u5'));
    const after = buildKeyring(secret, [stored(old, 'previous', now + 60), stored(fresh, 'current')], 'ES256');
    expect(decodeProtectedHeader(signAccessToken(after, claims('u6'))).kid).toBe(fresh.kid);
    expect(verifyProjectToken(token, after, now + 60).sub).toBe('u5');
    expect(jwksOf(after, now + 60).keys.map((key) => key.kid)).toEqual([old.kid, fresh.kid]);
    expect(codeOf(() => verifyProjectToken(token, after, now + 61))).toBe(`jwt_unknown_key: unrecognized JWT kid ${old.kid} for algorithm ES256`);
    expect(jwksOf(after, now + 61).keys.map((key) => key.kid)).toEqual([fresh.kid]);
  });

  it('with auth.signing_alg HS256 signs with the secret (jose verifies it with the secret alone) and keeps a current key verifying', async () => {
    const key = await generateSigningKey('ES256');
    const asymmetric = signAccessToken(buildKeyring(secret, [stored(key, 'current')], 'ES256'), claims('u7'));
    const keyring = buildKeyring(secret, [stored(key, 'current')], 'HS256');
    const token = signAccessToken(keyring, claims('u8'));
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ['HS256'], currentDate: new Date(now * 1000) });
    expect(payload.sub).toBe('u8');
    expect(verifyProjectToken(asymmetric, keyring, now).sub).toBe('u7');
    expect(jwksOf(keyring, now).keys.map((published) => published.kid)).toEqual([key.kid]);
    // GoTrue never publishes a symmetric key: a project with no asymmetric key has an empty JWKS.
    expect(jwksOf(buildKeyring(secret, [], 'HS256'), now)).toEqual({ keys: [] });
  });
});

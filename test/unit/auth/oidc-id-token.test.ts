import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyIdToken } from '../../../runtime/auth/external/oidc.js';

/** The checks an ID token passes before its audience, subject and nonce are read: a table of claim sets signed RS256. */

const ISSUER = 'https://idp.example.com';
const NOW = new Date('2026-03-01T12:00:00Z');
const SECONDS = Math.floor(NOW.getTime() / 1000);
const COMPLETE: JWTPayload = { iss: ISSUER, sub: 'user-1', aud: 'app', iat: SECONDS - 60, exp: SECONDS + 600, email: 'u@example.com' };

let keys: ReturnType<typeof createLocalJWKSet>;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
});

const signed = (claims: Record<string, unknown>, key: CryptoKey = signingKey): Promise<string> =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(key);

function without(...names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(COMPLETE).filter(([name]) => !names.includes(name)));
}

/** What jose says of a refused token: its error code, and for a claim, which one and why. */
async function refusal(token: string): Promise<unknown> {
  return verifyIdToken(keys, ISSUER, token, NOW).then(
    () => 'accepted',
    (error: { code?: string; claim?: string; reason?: string }) => [error.code, error.claim, error.reason],
  );
}

describe('verifyIdToken', () => {
  it('accepts a token with every claim OpenID Connect requires, and returns its claims', async () => {
    expect(await verifyIdToken(keys, ISSUER, await signed(COMPLETE), NOW)).toEqual(COMPLETE);
  });

  const CLAIMED = 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  it.each<[string, Record<string, unknown>, unknown]>([
    ['no exp', without('exp'), [CLAIMED, 'exp', 'missing']],
    ['no iat', without('iat'), [CLAIMED, 'iat', 'missing']],
    ['no iss', without('iss'), [CLAIMED, 'iss', 'missing']],
    ['neither exp nor iat', without('exp', 'iat'), [CLAIMED, 'iat', 'missing']],
    ['exp as a string', { ...COMPLETE, exp: String(SECONDS + 600) }, [CLAIMED, 'exp', 'invalid']],
    ['iat as a string', { ...COMPLETE, iat: String(SECONDS) }, [CLAIMED, 'iat', 'invalid']],
    ['exp passed', { ...COMPLETE, exp: SECONDS - 1 }, ['ERR_JWT_EXPIRED', 'exp', 'check_failed']],
    ['exp now', { ...COMPLETE, exp: SECONDS }, ['ERR_JWT_EXPIRED', 'exp', 'check_failed']],
    ['nbf ahead', { ...COMPLETE, nbf: SECONDS + 60 }, [CLAIMED, 'nbf', 'check_failed']],
    ['another issuer', { ...COMPLETE, iss: 'https://evil.example.com' }, [CLAIMED, 'iss', 'check_failed']],
  ])('refuses a token with %s', async (_label, claims, expected) => {
    expect(await refusal(await signed(claims))).toEqual(expected);
  });

  it('refuses a token signed with a key the issuer does not publish, and one with alg none', async () => {
    expect(await refusal(await signed(COMPLETE, strangerKey))).toEqual(['ERR_JWS_SIGNATURE_VERIFICATION_FAILED', undefined, undefined]);
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(COMPLETE)).toString('base64url')}.`;
    expect(await refusal(unsigned)).toEqual(['ERR_JOSE_NOT_SUPPORTED', undefined, undefined]);
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LIFETIME_SECONDS,
  CLOCK_SKEW_SECONDS,
  JwtError,
  signApiKey,
  signJwt,
  verifyProjectToken,
} from '../../../runtime/tokens/jwt.js';

const secret = 'a-project-secret-of-sufficient-length-0001';

function forge(header: object, payload: object, key: string): string {
  const h = Buffer.from(JSON.stringify(header)).toString('base64url');
  const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const s = createHmac('sha256', key).update(`${h}.${p}`).digest('base64url');
  return `${h}.${p}.${s}`;
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof JwtError) return error.code;
    throw error;
  }
  return 'no error';
}

describe('signApiKey', () => {
  it('signs {role, iss, ref, iat, exp} with HS256', () => {
    const key = signApiKey(secret, 'anon', 'demo', 1_700_000_000);
    const [header, payload] = key.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toEqual({
      role: 'anon',
      iss: 'gantry',
      ref: 'demo',
      iat: 1_700_000_000,
      exp: 1_700_000_000 + API_KEY_LIFETIME_SECONDS,
    });
    expect(verifyProjectToken(key, secret, 1_700_000_001)).toMatchObject({ role: 'anon', ref: 'demo' });
  });

  it('produces a token jose-compatible verifiers accept (standard HMAC over header.payload)', () => {
    const key = signApiKey(secret, 'service_role', 'demo', 1_700_000_000);
    const payload = { role: 'service_role', iss: 'gantry', ref: 'demo', iat: 1_700_000_000, exp: 1_700_000_000 + API_KEY_LIFETIME_SECONDS };
    expect(key).toBe(forge({ alg: 'HS256', typ: 'JWT' }, payload, secret));
  });
});

describe('verifyProjectToken', () => {
  const now = 1_800_000_000;

  it('rejects another secret, also after the token was cached for the right one', () => {
    const token = signJwt(secret, { role: 'authenticated', sub: 'u1', exp: now + 60 });
    expect(verifyProjectToken(token, secret, now).sub).toBe('u1');
    expect(codeOf(() => verifyProjectToken(token, 'another-secret', now))).toBe('jwt_bad_signature');
  });

  it('enforces exp with the documented skew, also for cached tokens', () => {
    const token = signJwt(secret, { role: 'authenticated', exp: now });
    expect(verifyProjectToken(token, secret, now + CLOCK_SKEW_SECONDS).role).toBe('authenticated');
    expect(codeOf(() => verifyProjectToken(token, secret, now + CLOCK_SKEW_SECONDS + 1))).toBe('jwt_expired');
    const fresh = signJwt(secret, { role: 'authenticated', exp: now + 1 });
    expect(codeOf(() => verifyProjectToken(fresh, secret, now + 1000))).toBe('jwt_expired');
  });

  it('honours nbf', () => {
    const token = signJwt(secret, { role: 'anon', exp: now + 3600, nbf: now + 600 });
    expect(codeOf(() => verifyProjectToken(token, secret, now))).toBe('jwt_not_yet_valid');
  });

  it('refuses alg none, other algorithms and tampered payloads', () => {
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ role: 'service_role', exp: now + 60 }),
    ).toString('base64url')}.`;
    expect(codeOf(() => verifyProjectToken(none, secret, now))).toBe('jwt_unsupported_alg');
    expect(codeOf(() => verifyProjectToken(forge({ alg: 'HS512' }, { role: 'anon', exp: now + 60 }, secret), secret, now))).toBe(
      'jwt_unsupported_alg',
    );
    const good = signJwt(secret, { role: 'anon', exp: now + 60 });
    const [h, , s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ role: 'service_role', exp: now + 60 })).toString('base64url')}.${s}`;
    expect(codeOf(() => verifyProjectToken(tampered, secret, now))).toBe('jwt_bad_signature');
  });

  it('requires exp and role, and a three-part token', () => {
    expect(codeOf(() => verifyProjectToken(signJwt(secret, { role: 'anon' }), secret, now))).toBe('jwt_missing_claim');
    expect(codeOf(() => verifyProjectToken(signJwt(secret, { exp: now + 5 }), secret, now))).toBe('jwt_missing_claim');
    expect(codeOf(() => verifyProjectToken('abc.def', secret, now))).toBe('jwt_malformed');
    expect(codeOf(() => verifyProjectToken('!!!.???.x', secret, now))).toBe('jwt_malformed');
  });

  it('answers a repeated token from the cache: the same frozen claims object, not a fresh decode', () => {
    // A decode builds a new object each time, so identity shows the second call skipped it.
    const token = signJwt(secret, { role: 'authenticated', sub: 'cached', exp: now + 60 });
    const first = verifyProjectToken(token, secret, now);
    expect(verifyProjectToken(token, secret, now)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const sameClaimsOtherToken = signJwt(secret, { sub: 'cached', role: 'authenticated', exp: now + 60 });
    const other = verifyProjectToken(sameClaimsOtherToken, secret, now);
    expect(other).toEqual(first);
    expect(other).not.toBe(first);
  });

  it('keeps a token in use cached while 12,000 others pass through the 10,000-token cache, and evicts one left unused', () => {
    const inUse = signJwt(secret, { role: 'authenticated', sub: 'in-use', exp: now + 600 });
    const unused = signJwt(secret, { role: 'authenticated', sub: 'unused', exp: now + 600 });
    const inUseClaims = verifyProjectToken(inUse, secret, now);
    const unusedClaims = verifyProjectToken(unused, secret, now);
    for (let i = 0; i < 12_000; i++) {
      verifyProjectToken(signJwt(secret, { role: 'anon', sub: `passing-${i}`, exp: now + 600 }), secret, now);
      if (i % 1_000 === 0) expect(verifyProjectToken(inUse, secret, now)).toBe(inUseClaims);
    }
    expect(verifyProjectToken(inUse, secret, now)).toBe(inUseClaims);
    const decodedAgain = verifyProjectToken(unused, secret, now);
    expect(decodedAgain).toEqual(unusedClaims);
    expect(decodedAgain).not.toBe(unusedClaims);
  });
});

describe('interoperability with jose', () => {
  it('jose verifies our tokens, and we verify tokens jose signs', async () => {
    const { jwtVerify, SignJWT } = await import('jose');
    const key = new TextEncoder().encode(secret);
    const ours = signApiKey(secret, 'anon', 'demo');
    const { payload } = await jwtVerify(ours, key, { algorithms: ['HS256'], issuer: 'gantry' });
    expect(payload).toMatchObject({ role: 'anon', ref: 'demo' });
    const theirs = await new SignJWT({ role: 'authenticated', sub: 'u2' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);
    expect(verifyProjectToken(theirs, secret)).toMatchObject({ role: 'authenticated', sub: 'u2' });
    const other = await new SignJWT({ role: 'service_role' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode('x'.repeat(40)));
    expect(codeOf(() => verifyProjectToken(other, secret))).toBe('jwt_bad_signature');
  });
});

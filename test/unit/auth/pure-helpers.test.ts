import { describe, expect, it } from 'vitest';
import { HUNDRED_YEARS_MS, parseBanDuration } from '../../../runtime/auth/input/ban-duration.js';
import { normaliseEmail } from '../../../runtime/auth/input/email-address.js';
import { AuthError, authErrorBody, authErrors, wantsVersionedErrors } from '../../../runtime/auth/http/errors.js';
import {
  generateOpaqueToken,
  hashToken,
  looksLikeOpaqueToken,
  openChildToken,
  sealChildToken,
  tokenHashesEqual,
} from '../../../runtime/auth/credentials/opaque-tokens.js';
import { redirectWithFragment, verifyLink } from '../../../runtime/auth/flows/redirects.js';
import { mergeMetadata } from '../../../runtime/auth/storage/users.js';

describe('error bodies', () => {
  it('uses the legacy shape without the version header and the 2024 shape with it', () => {
    const error = authErrors.invalidCredentials();
    expect(authErrorBody(error, false)).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    expect(authErrorBody(error, true)).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
  });

  it('carries weak_password reasons in both shapes', () => {
    const error = authErrors.weakPassword('Password should be at least 6 characters.', ['length']);
    expect(authErrorBody(error, true)).toEqual({
      code: 'weak_password',
      message: 'Password should be at least 6 characters.',
      weak_password: { reasons: ['length'] },
    });
    expect(authErrorBody(error, false)).toMatchObject({ code: 422, error_code: 'weak_password' });
  });

  it('recognises API versions from 2024-01-01 on', () => {
    expect(wantsVersionedErrors('2024-01-01')).toBe(true);
    expect(wantsVersionedErrors(' 2025-06-30 ')).toBe(true);
    expect(wantsVersionedErrors('2023-12-31')).toBe(false);
    expect(wantsVersionedErrors('latest')).toBe(false);
    expect(wantsVersionedErrors(undefined)).toBe(false);
  });

  it('rate-limit errors carry Retry-After', () => {
    const error = authErrors.rateLimited(42);
    expect(error).toBeInstanceOf(AuthError);
    expect([error.status, error.code, error.headers]).toEqual([429, 'over_request_rate_limit', { 'Retry-After': '42' }]);
  });
});

describe('opaque tokens', () => {
  it('are 256-bit base64url strings, distinct, stored as SHA-256 hex', () => {
    const a = generateOpaqueToken();
    const b = generateOpaqueToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(looksLikeOpaqueToken(a)).toBe(true);
    expect(looksLikeOpaqueToken(`${a}x`)).toBe(false);
    expect(looksLikeOpaqueToken(42)).toBe(false);
  });

  it('compares hashes in constant time and only equal-length ones', () => {
    expect(tokenHashesEqual(hashToken('x'), hashToken('x'))).toBe(true);
    expect(tokenHashesEqual(hashToken('x'), hashToken('y'))).toBe(false);
    expect(tokenHashesEqual('ab', 'abc')).toBe(false);
  });

  it('seals a successor so that only the holder of the parent can open it', () => {
    const parent = generateOpaqueToken();
    const child = generateOpaqueToken();
    const sealed = sealChildToken(parent, child);
    expect(sealed).not.toContain(child);
    expect(openChildToken(parent, sealed)).toBe(child);
    expect(openChildToken(generateOpaqueToken(), sealed)).toBeNull();
    expect(openChildToken(parent, `${sealed.slice(0, -2)}AA`)).toBeNull();
    expect(openChildToken(parent, 'short')).toBeNull();
  });
});

describe('normaliseEmail', () => {
  it('trims and lower-cases', () => {
    expect(normaliseEmail('  Alice.Smith+tag@Example.COM ')).toBe('alice.smith+tag@example.com');
  });

  it.each([['no-at-sign'], ['a@b'], ['a b@example.com'], ['a@exa mple.com'], ['@example.com'], ['a@@example.com'], [''], ['a@-x.com']])(
    'refuses %j',
    (input) => {
      expect(normaliseEmail(input)).toBeNull();
    },
  );

  it('refuses non-strings and over-long addresses', () => {
    expect(normaliseEmail(42)).toBeNull();
    expect(normaliseEmail(`${'a'.repeat(250)}@example.com`)).toBeNull();
  });
});

describe('parseBanDuration', () => {
  it('parses Go durations and none', () => {
    expect(parseBanDuration('24h')).toBe(86_400_000);
    expect(parseBanDuration('1h30m')).toBe(5_400_000);
    expect(parseBanDuration('1.5s')).toBe(1500);
    expect(parseBanDuration('876000h')).toBe(HUNDRED_YEARS_MS);
    expect(parseBanDuration('none')).toBe(0);
  });

  it.each([['forever'], ['-1h'], ['10'], ['h'], ['']])('refuses %j', (input) => {
    expect(parseBanDuration(input)).toBeNull();
  });
});

describe('redirects', () => {
  it('puts GoTrue fragment parameters in sorted order with the sb marker', () => {
    expect(redirectWithFragment('http://h/app#old', { type: 'signup', access_token: 'a b', expires_in: '3600' })).toBe(
      'http://h/app#access_token=a+b&expires_in=3600&sb=&type=signup',
    );
  });

  it('builds the contract verify link', () => {
    expect(verifyLink('http://h:1', 'demo', 'tok', 'recovery', null)).toBe('http://h:1/v1/demo/auth/v1/verify?token=tok&type=recovery');
    expect(verifyLink('http://h:1', 'demo', 'tok', 'signup', 'http://h:1/a?b=c')).toBe(
      'http://h:1/v1/demo/auth/v1/verify?token=tok&type=signup&redirect_to=http%3A%2F%2Fh%3A1%2Fa%3Fb%3Dc',
    );
  });
});

describe('mergeMetadata', () => {
  it('merges shallowly and deletes keys set to null', () => {
    expect(mergeMetadata({ a: 1, b: { c: 2 }, d: 4 }, { b: { e: 5 }, d: null, f: 'x' })).toEqual({ a: 1, b: { e: 5 }, f: 'x' });
  });

  it('keeps a "__proto__" key from JSON as data instead of changing the prototype', () => {
    const merged = mergeMetadata({}, JSON.parse('{"__proto__": {"admin": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect((merged as { admin?: unknown }).admin).toBeUndefined();
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"admin":true}}');
  });
});

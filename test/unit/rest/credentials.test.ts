import { describe, expect, it } from 'vitest';
import { signJwt } from '../../../runtime/tokens/jwt.js';
import { authenticate } from '../../../runtime/rest/credentials.js';

/** What the data API answers for tokens that do not verify, in PostgREST's words (its AuthSpec and ErrorSpec). */

const SECRET = 'a-project-secret-of-at-least-thirty-two-characters';
const NOW = 1_800_000_000;
const base = { role: 'authenticated', exp: NOW + 3600 };

function refusal(authorization: string): unknown {
  try {
    authenticate({ authorization }, SECRET, null, NOW);
  } catch (error) {
    const { status, code, message, details, hint } = error as { status: number; code: string; message: string; details: unknown; hint: unknown };
    return { status, body: { code, message, details, hint }, wwwAuthenticate: (error as { headers: Record<string, string> }).headers['WWW-Authenticate'] };
  }
  return 'accepted';
}

const answer = (code: string, message: string, details: string | null = null) => ({
  status: 401,
  body: { code, message, details, hint: null },
  wwwAuthenticate: `Bearer error="invalid_token", error_description="${message}"`,
});

describe('tokens the data API refuses', () => {
  it('refuses registered claims of the wrong type with 401 PGRST303', () => {
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, exp: 'invalid' })}`)).toEqual(answer('PGRST303', "The JWT 'exp' claim must be a number"));
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, nbf: 'invalid' })}`)).toEqual(answer('PGRST303', "The JWT 'nbf' claim must be a number"));
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, iat: 'invalid' })}`)).toEqual(answer('PGRST303', "The JWT 'iat' claim must be a number"));
    const audMessage = "The JWT 'aud' claim must be a string or an array of strings";
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, aud: { invalid: 'value' } })}`)).toEqual(answer('PGRST303', audMessage));
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, aud: [{ invalid: 'value' }, 'test'] })}`)).toEqual(answer('PGRST303', audMessage));
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, aud: ['authenticated', 'other'] })}`)).toBe('accepted');
    // AudienceJwtSecretSpec: an empty or null audience is none.
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, aud: [] })}`)).toBe('accepted');
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, aud: null })}`)).toBe('accepted');
  });

  it('refuses tokens used too early or issued in the future, beyond 30 s of clock skew', () => {
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, nbf: NOW + 35 })}`)).toEqual(answer('PGRST303', 'JWT not yet valid'));
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, iat: NOW + 35 })}`)).toEqual(answer('PGRST303', 'JWT issued at future'));
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, iat: NOW + 25, nbf: NOW + 25 })}`)).toBe('accepted');
    expect(refusal(`Bearer ${signJwt(SECRET, { ...base, exp: NOW - 35 })}`)).toEqual(answer('PGRST303', 'JWT expired'));
  });

  it('words malformed tokens as PostgREST', () => {
    expect(refusal('Bearer ')).toEqual(answer('PGRST301', 'Empty JWT is sent in Authorization header'));
    expect(refusal('Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.bm90IGFuIG9iamVjdA')).toEqual(answer('PGRST301', 'Expected 3 parts in JWT; got 2'));
    expect(refusal('Bearer quifquirndsjagnrgniur.fonvoienqhhdj.iuqvnvhojah')).toEqual(answer('PGRST301', 'JWT cryptographic operation failed'));
    expect(refusal('Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.e30.yOBhlOIqn56T-4NvyEXCjfi3UmyQZ-BzXtePMO2NgRI')).toEqual(
      answer('PGRST301', 'Wrong or unsupported encoding algorithm', "JWT is unsecured but expected 'alg' was not 'none'"));
    expect(refusal(`Bearer ${signJwt('another secret of at least thirty-two characters', base)}`)).toEqual(
      answer('PGRST301', 'No suitable key or wrong key type', 'None of the keys was able to decode the JWT'));
  });
});

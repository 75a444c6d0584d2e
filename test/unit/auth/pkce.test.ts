import { describe, expect, it } from 'vitest';
import { acceptPkceParams, s256Challenge, verifierMatches } from '../../../runtime/auth/credentials/pkce.js';

// RFC 7636 appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE', () => {
  it('computes the S256 challenge of RFC 7636 appendix B', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
    expect(verifierMatches({ challenge: RFC_CHALLENGE, method: 's256' }, RFC_VERIFIER)).toBe(true);
    expect(verifierMatches({ challenge: RFC_CHALLENGE, method: 's256' }, `${RFC_VERIFIER.slice(0, -1)}Y`)).toBe(false);
    expect(verifierMatches({ challenge: RFC_CHALLENGE, method: 'plain' }, RFC_VERIFIER)).toBe(false);
  });

  it('compares plain challenges as they are', () => {
    expect(verifierMatches({ challenge: RFC_VERIFIER, method: 'plain' }, RFC_VERIFIER)).toBe(true);
    expect(verifierMatches({ challenge: RFC_VERIFIER, method: 'plain' }, RFC_VERIFIER.toUpperCase())).toBe(false);
  });

  it('reads the request fields as GoTrue validates them', () => {
    expect(acceptPkceParams({})).toBeNull();
    expect(acceptPkceParams({ code_challenge: null, code_challenge_method: null })).toBeNull();
    expect(acceptPkceParams({ code_challenge: RFC_CHALLENGE, code_challenge_method: 'S256' })).toEqual({ challenge: RFC_CHALLENGE, method: 's256' });
    expect(acceptPkceParams({ code_challenge: RFC_VERIFIER, code_challenge_method: 'PLAIN' })).toEqual({ challenge: RFC_VERIFIER, method: 'plain' });
    expect(() => acceptPkceParams({ code_challenge: RFC_CHALLENGE })).toThrow('PKCE flow requires code_challenge_method and code_challenge');
    expect(() => acceptPkceParams({ code_challenge_method: 's256' })).toThrow('PKCE flow requires code_challenge_method and code_challenge');
    expect(() => acceptPkceParams({ code_challenge: 'short', code_challenge_method: 's256' })).toThrow('code challenge has to be between 43 and 128 characters');
    expect(() => acceptPkceParams({ code_challenge: 'x'.repeat(129), code_challenge_method: 's256' })).toThrow('between 43 and 128');
    expect(() => acceptPkceParams({ code_challenge: `${'x'.repeat(42)}+`, code_challenge_method: 's256' })).toThrow(
      'code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes',
    );
    expect(() => acceptPkceParams({ code_challenge: RFC_CHALLENGE, code_challenge_method: 's512' })).toThrow('unsupported code_challenge method "s512"');
  });
});

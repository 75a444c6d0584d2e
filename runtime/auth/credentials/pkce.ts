import { createHash, timingSafeEqual } from 'node:crypto';
import { authErrors } from '../http/errors.js';

/**
 * PKCE (RFC 7636) as Supabase Auth checks it: a challenge of 43 to 128 unreserved
 * characters with method `s256` or `plain` (any case), verified in constant time.
 */

export type CodeChallengeMethod = 's256' | 'plain';

export interface PkceChallenge {
  readonly challenge: string;
  readonly method: CodeChallengeMethod;
}

const CHALLENGE_PATTERN = /^[a-zA-Z._~0-9-]+$/;

function blank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** `code_challenge`/`code_challenge_method` of a request body: null for the implicit flow (both absent). */
export function acceptPkceParams(body: Readonly<Record<string, unknown>>): PkceChallenge | null {
  const challenge = body.code_challenge;
  const method = body.code_challenge_method;
  if (blank(challenge) !== blank(method)) throw authErrors.validation('PKCE flow requires code_challenge_method and code_challenge');
  if (blank(challenge)) return null;
  if (typeof challenge !== 'string' || challenge.length < 43 || challenge.length > 128) {
    throw authErrors.validation('code challenge has to be between 43 and 128 characters');
  }
  if (!CHALLENGE_PATTERN.test(challenge)) {
    throw authErrors.validation('code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes');
  }
  const normalised = typeof method === 'string' ? method.toLowerCase() : '';
  if (normalised !== 's256' && normalised !== 'plain') throw authErrors.validation(`unsupported code_challenge method "${String(method)}"`);
  return { challenge, method: normalised };
}

/** RFC 7636 §4.2: S256 is BASE64URL(SHA256(ASCII(code_verifier))), without padding. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifierMatches(pkce: PkceChallenge, verifier: string): boolean {
  const expected = Buffer.from(pkce.challenge, 'utf8');
  const actual = Buffer.from(pkce.method === 's256' ? s256Challenge(verifier) : verifier, 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

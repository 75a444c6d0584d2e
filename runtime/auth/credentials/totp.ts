import { timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';

/**
 * TOTP (RFC 6238) over HOTP (RFC 4226) as authenticator apps and Supabase Auth use it:
 * HMAC-SHA1, 30-second steps, 6 digits, 20-byte secrets in unpadded base32. The codes, base32
 * and random secrets come from `otpauth`; the window, replay rule and key URI are Supabase Auth's.
 */

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one, for clock drift and typing time (Supabase Auth's skew of 1). */
export const TOTP_SKEW_STEPS = 1;
const SECRET_BYTES = 20;

function secretOf(key: Uint8Array): Secret {
  return new Secret({ buffer: Uint8Array.from(key).buffer });
}

/** RFC 4648 base32, unpadded. */
export function base32Encode(bytes: Uint8Array): string {
  return secretOf(bytes).base32;
}

/** RFC 4648 base32, padding and case ignored; throws on any other character. */
export function base32Decode(text: string): Buffer {
  return Buffer.from(Secret.fromBase32(text).bytes);
}

/** A new random secret, base32 as authenticator apps take it. */
export function generateTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** RFC 4226: the `digits`-digit code of `counter`. */
export function hotp(key: Uint8Array, counter: number, digits: number = TOTP_DIGITS): string {
  return HOTP.generate({ secret: secretOf(key), algorithm: 'SHA1', digits, counter });
}

export function totpStep(unixSeconds: number): number {
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: unixSeconds * 1000 });
}

/** The code of the step that holds `unixSeconds`. */
export function totpCode(key: Uint8Array, unixSeconds: number, digits: number = TOTP_DIGITS): string {
  return hotp(key, totpStep(unixSeconds), digits);
}

/**
 * The time step whose code `code` is, looked for within ±TOTP_SKEW_STEPS of now and
 * only among steps after `afterStep` (the last one accepted), so no code is accepted
 * twice; null when none matches. Every candidate is compared in constant time. Not otpauth's
 * `validate`: it stops at the first step that matches, which may be one already used.
 */
export function matchTotpStep(key: Uint8Array, code: string, unixSeconds: number, afterStep: number | null): number | null {
  if (!/^\d+$/.test(code) || code.length !== TOTP_DIGITS) return null;
  const given = Buffer.from(code, 'utf8');
  const current = totpStep(unixSeconds);
  let matched: number | null = null;
  for (let step = current - TOTP_SKEW_STEPS; step <= current + TOTP_SKEW_STEPS; step += 1) {
    const expected = Buffer.from(hotp(key, step), 'utf8');
    if (timingSafeEqual(expected, given) && (afterStep === null || step > afterStep) && matched === null) matched = step;
  }
  return matched;
}

/** Percent-encodes UTF-8 bytes outside `keep` (upper-case hex), as Go's net/url does. */
function escapeExcept(text: string, keep: RegExp): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && keep.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const PATH_SAFE = /^[A-Za-z0-9\-_.~$&+,/:;=@]$/;
const QUERY_SAFE = /^[A-Za-z0-9\-_.~ ]$/;

function queryEscape(value: string): string {
  return escapeExcept(value, QUERY_SAFE).replace(/ /g, '+');
}

/**
 * The key URI authenticator apps scan, worded as Supabase Auth's TOTP library writes
 * it: label `issuer:account` in the path, parameters sorted by name. otpauth's `toString`
 * orders and escapes them otherwise (`localhost%3A3000:ann%2Bmfa%40…?issuer=…&secret=…`).
 */
export function otpauthUri(issuer: string, accountName: string, secret: string): string {
  const params: ReadonlyArray<readonly [string, string]> = [
    ['algorithm', 'SHA1'],
    ['digits', String(TOTP_DIGITS)],
    ['issuer', issuer],
    ['period', String(TOTP_PERIOD_SECONDS)],
    ['secret', secret],
  ];
  const query = params.map(([name, value]) => `${name}=${queryEscape(value)}`).join('&');
  return `otpauth://totp/${escapeExcept(`${issuer}:${accountName}`, PATH_SAFE)}?${query}`;
}

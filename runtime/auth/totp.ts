import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * TOTP (RFC 6238) over HOTP (RFC 4226) as authenticator apps and Supabase Auth use
 * it: HMAC-SHA1, 30-second steps, 6 digits, 20-byte secrets in unpadded base32.
 */

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one, for clock drift and typing time (Supabase Auth's skew of 1). */
export const TOTP_SKEW_STEPS = 1;
const SECRET_BYTES = 20;
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** RFC 4648 base32, padding and case ignored; throws on any other character. */
export function base32Decode(text: string): Buffer {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text.toUpperCase().replace(/=+$/, '')) {
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) throw new RangeError(`not a base32 character: ${JSON.stringify(char)}`);
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** A new random secret, base32 as authenticator apps take it. */
export function generateTotpSecret(): string {
  return base32Encode(randomBytes(SECRET_BYTES));
}

/** RFC 4226: HMAC over the 8-byte big-endian counter, dynamic truncation, `digits` decimal digits. */
export function hotp(key: Uint8Array, counter: number, digits: number = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export function totpStep(unixSeconds: number): number {
  return Math.floor(unixSeconds / TOTP_PERIOD_SECONDS);
}

/** The code of the step that holds `unixSeconds`. */
export function totpCode(key: Uint8Array, unixSeconds: number, digits: number = TOTP_DIGITS): string {
  return hotp(key, totpStep(unixSeconds), digits);
}

/**
 * The time step whose code `code` is, looked for within ±TOTP_SKEW_STEPS of now and
 * only among steps after `afterStep` (the last one accepted), so no code is accepted
 * twice; null when none matches. Every candidate is compared in constant time.
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
 * it: label `issuer:account` in the path, parameters sorted by name.
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

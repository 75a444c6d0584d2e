import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Refresh, confirmation and recovery tokens: 256 random bits, handed out once and
 * stored only as their SHA-256, so a copy of the database yields no usable token.
 */

const TOKEN_BYTES = 32;

export function generateOpaqueToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time equality of two hex hashes (a row found by hash is re-checked with this). */
export function tokenHashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A token we generate is 43 base64url characters; anything else is refused before a lookup. */
export function looksLikeOpaqueToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

function sealKey(parentToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', parentToken, Buffer.alloc(0), 'gantry refresh-token child', 32));
}

/**
 * Encrypts a rotated refresh token's successor under a key derived from the
 * rotated token itself. Only someone who presents the old token can recover the
 * successor, which lets the reuse grace window answer with the current token
 * although the database never holds a token in the clear.
 */
export function sealChildToken(parentToken: string, childToken: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(parentToken), iv);
  const body = Buffer.concat([cipher.update(childToken, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

export function openChildToken(parentToken: string, sealed: string): string | null {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 12 + 16 + 1) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(parentToken), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

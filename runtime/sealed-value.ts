import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A 32-byte key for one purpose, derived from a root secret, so one root seals several kinds of value apart. */
export function purposeKey(root: string | Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), purpose, 32));
}

/**
 * A secret stored at rest: AES-256-GCM, `iv | ciphertext | tag` in base64url, bound to `context`
 * (the row and field it belongs to) so a sealed value copied elsewhere does not open.
 */
export function sealValue(key: Buffer, context: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** Throws when `sealed` was not made by sealValue with this key and context. */
export function openValue(key: Buffer, context: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}

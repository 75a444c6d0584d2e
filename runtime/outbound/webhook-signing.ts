import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks (v1.0.0) signing: `webhook-signature: v1,<base64 HMAC-SHA256>` over
 * `${id}.${timestamp}.${body}`, keyed by the base64 payload of a `whsec_` secret.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Consumers reject timestamps further than this from their clock (the spec's recommended window). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookSignatureErrorCode = 'invalid_secret' | 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature';

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  constructor(
    readonly code: WebhookSignatureErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// A type alias, not an interface, so it can be passed wherever plain header records are expected.
export type WebhookHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key inside a secret. Accepts the bare base64 form too, as the reference library does. */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  // Buffer.from ignores stray characters; a secret that does not survive the round trip is not base64.
  if (key.length < 16 || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    throw new WebhookSignatureError('invalid_secret', 'webhook secret is not whsec_ followed by base64 of at least 16 bytes');
  }
  return key;
}

function mac(key: Buffer, id: string, timestamp: number, payload: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(payload).digest();
}

/** `v1,<base64>` for one message attempt; `timestamp` in Unix seconds. */
export function signWebhook(secret: string, id: string, timestamp: number, payload: string | Uint8Array): string {
  return `v1,${mac(webhookSecretKey(secret), id, timestamp, payload).toString('base64')}`;
}

/**
 * The three headers of one delivery attempt. Several secrets give several space-separated
 * signatures: during a rotation both the old and the new secret sign, so consumers holding either
 * one verify.
 */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, payload: string | Uint8Array): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signWebhook(secret, id, timestamp, payload)).join(' '),
  };
}

function header(headers: Readonly<Record<string, string | readonly string[] | undefined>>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

export interface VerifyOptions {
  readonly toleranceSeconds?: number;
  /** Defaults to the current time. */
  readonly nowSeconds?: number;
}

/**
 * Checks a received webhook against one or more secrets: headers present, timestamp within the
 * tolerance, and at least one `v1` signature matching (compared in constant time). Throws
 * `WebhookSignatureError`; returns nothing on success. `payload` must be the raw body bytes.
 */
export function verifyWebhook(
  secrets: string | readonly string[],
  payload: string | Uint8Array,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  options: VerifyOptions = {},
): void {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) throw new WebhookSignatureError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
  if (!/^\d{1,12}$/.test(timestampText)) throw new WebhookSignatureError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  const timestamp = Number(timestampText);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookSignatureError('timestamp_out_of_tolerance', 'webhook-timestamp is too far from the current time');
  }
  const received = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map(webhookSecretKey);
  const matched = keys.some((key) => {
    const expected = mac(key, id, timestamp, payload);
    return received.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
  });
  if (!matched) throw new WebhookSignatureError('invalid_signature', 'no webhook signature matches');
}

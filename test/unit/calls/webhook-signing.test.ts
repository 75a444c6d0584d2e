import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  WebhookSignatureError,
} from '../../../runtime/outbound/webhook-signing.js';

const body = JSON.stringify({ type: 'call.analysis.completed', timestamp: '2026-11-22T02:00:00.000Z', data: { id: 'call_1' } });
const now = Math.floor(Date.now() / 1000);

function failure(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).code;
  }
  throw new Error('verification succeeded');
}

describe('Standard Webhooks signing', () => {
  it('generates distinct whsec_ secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('produces the same signature as the standardwebhooks package', () => {
    const secret = generateWebhookSecret();
    const reference = new Webhook(secret).sign('msg_1', new Date(now * 1000), body);
    expect(signWebhook(secret, 'msg_1', now, body)).toBe(reference);
    expect(signWebhook(secret, 'msg_1', now, Buffer.from(body))).toBe(reference);
  });

  it('signs deliveries the reference verifier accepts, including during a rotation', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const headers = webhookHeaders([oldSecret, newSecret], 'msg_2', now, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow('No matching signature found');
  });

  it('verifies what the reference signer produced', () => {
    const secret = generateWebhookSecret();
    const signature = new Webhook(secret).sign('msg_3', new Date(now * 1000), body);
    const headers = { 'webhook-id': 'msg_3', 'webhook-timestamp': String(now), 'webhook-signature': `v1a,ignored ${signature}` };
    expect(() => verifyWebhook(secret, body, headers)).not.toThrow();
    expect(() => verifyWebhook([generateWebhookSecret(), secret], Buffer.from(body), headers)).not.toThrow();
  });

  it('rejects tampering, stale timestamps, missing headers and other secrets', () => {
    const secret = generateWebhookSecret();
    const headers = webhookHeaders([secret], 'msg_4', now, body);
    expect(failure(() => verifyWebhook(secret, body.replace('call_1', 'call_2'), headers))).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(secret, body, { ...headers, 'webhook-id': 'msg_5' }))).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(generateWebhookSecret(), body, headers))).toBe('invalid_signature');
    expect(failure(() => verifyWebhook(secret, body, headers, { nowSeconds: now + 301 }))).toBe('timestamp_out_of_tolerance');
    expect(failure(() => verifyWebhook(secret, body, { ...headers, 'webhook-timestamp': '12.5' }))).toBe('invalid_timestamp');
    expect(failure(() => verifyWebhook(secret, body, { 'webhook-id': 'msg_4' }))).toBe('missing_headers');
    expect(failure(() => verifyWebhook('whsec_not*base64', body, headers))).toBe('invalid_secret');
  });
});

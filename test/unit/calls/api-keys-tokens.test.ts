import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isValidTenantId, isWellFormedApiKey } from '../../../runtime/calls/keys.js';
import { issueAccessToken, verifyAccessToken } from '../../../runtime/calls/tokens.js';

describe('API keys', () => {
  it('are prefixed, 190 random bits of base62 plus a checksum, and differ every time', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^ca_live_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(200);
  });

  it('the checksum catches a changed character', () => {
    const key = generateApiKey();
    const typo = key.slice(0, 12) + (key[12] === 'a' ? 'b' : 'a') + key.slice(13);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`sk_live_${key.slice(8)}`)).toBe(false);
  });

  it('is stored as its SHA-256', () => {
    expect(hashApiKey('ca_live_x').toString('hex')).toBe('c108560b00e5ffefa72b89d22d611bcc70342f02303beb0185b04722f36baf05');
  });

  it('tenant ids', () => {
    expect(isValidTenantId('acme')).toBe(true);
    expect(isValidTenantId('acme:eu-1.prod_2')).toBe(true);
    expect(isValidTenantId('-acme')).toBe(false);
    expect(isValidTenantId('a b')).toBe(false);
    expect(isValidTenantId('a'.repeat(65))).toBe(false);
  });
});

describe('access tokens', () => {
  const key = new Uint8Array(32).fill(7);

  it('round-trip the tenant, client and scopes', async () => {
    const token = await issueAccessToken(key, { keyId: 'key_1', tenantId: 'acme', scopes: ['calls:read'] }, 60);
    expect(await verifyAccessToken(key, token)).toEqual({ ok: true, claims: { keyId: 'key_1', tenantId: 'acme', scopes: ['calls:read'] } });
    expect(await verifyAccessToken(new Uint8Array(32).fill(8), token)).toEqual({ ok: false, reason: 'invalid_token' });
  });

  it('an expired token still names its tenant, for the access.denied event', async () => {
    const token = await issueAccessToken(key, { keyId: 'key_1', tenantId: 'acme', scopes: [] }, 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await verifyAccessToken(key, token)).toEqual({ ok: false, reason: 'token_expired', tenantId: 'acme', keyId: 'key_1' });
  });
});

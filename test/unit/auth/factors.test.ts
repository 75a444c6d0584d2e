import { describe, expect, it } from 'vitest';
import { amrClaims } from '../../../runtime/auth/credentials/amr.js';
import { factorJson, openTotpSecret, sealTotpSecret } from '../../../runtime/auth/storage/factors.js';
import type { SessionRow } from '../../../runtime/auth/storage/sessions.js';

const jwtSecret = 'a-project-secret-of-sufficient-length-0001';
const factorId = '00000000-0000-4000-8000-000000000001';
const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('TOTP secret sealing', () => {
  it('opens what it sealed, and the sealed text carries no trace of the secret', () => {
    const sealed = sealTotpSecret(jwtSecret, factorId, secret);
    expect(sealed).not.toContain(secret);
    expect(sealTotpSecret(jwtSecret, factorId, secret)).not.toBe(sealed);
    expect(openTotpSecret(jwtSecret, factorId, sealed)).toBe(secret);
  });

  it('refuses another project secret, another factor, or a changed byte', () => {
    const sealed = sealTotpSecret(jwtSecret, factorId, secret);
    expect(() => openTotpSecret(`${jwtSecret}x`, factorId, sealed)).toThrow();
    expect(() => openTotpSecret(jwtSecret, '00000000-0000-4000-8000-000000000002', sealed)).toThrow();
    const raw = Buffer.from(sealed, 'base64url');
    raw[14] = (raw[14] as number) ^ 1;
    expect(() => openTotpSecret(jwtSecret, factorId, raw.toString('base64url'))).toThrow();
  });
});

describe('factorJson', () => {
  const listed = {
    id: factorId,
    created_at: '2026-11-23T21:00:00.123456+00:00',
    updated_at: new Date('2026-11-23T21:01:00Z'),
    status: 'verified',
    friendly_name: 'phone',
    factor_type: 'totp',
    last_challenged_at: null,
  };

  it("has GoTrue's keys in its order, phone always a string", () => {
    expect(Object.entries(factorJson(listed))).toEqual([
      ['id', factorId],
      ['created_at', '2026-11-23T21:00:00.123Z'],
      ['updated_at', '2026-11-23T21:01:00.000Z'],
      ['status', 'verified'],
      ['friendly_name', 'phone'],
      ['factor_type', 'totp'],
      ['phone', ''],
      ['last_challenged_at', null],
    ]);
  });

  it('leaves an empty friendly_name out (omitempty)', () => {
    expect(factorJson({ ...listed, friendly_name: '' })).not.toHaveProperty('friendly_name');
  });
});

describe('amrClaims', () => {
  const session: SessionRow = {
    id: factorId,
    user_id: factorId,
    aal: 'aal1',
    amr_method: 'password',
    created_at: new Date('2026-11-23T21:00:00Z'),
    revoked_at: null,
    revoked_reason: null,
  };
  const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

  it('is the sign-in method alone before a factor is verified', () => {
    expect(amrClaims(session)).toEqual([{ method: 'password', timestamp: at('2026-11-23T21:00:00Z') }]);
    expect(amrClaims({ ...session, mfa_verified_at: null })).toEqual([{ method: 'password', timestamp: at('2026-11-23T21:00:00Z') }]);
  });

  it('puts the totp entry first once verified (most recent first)', () => {
    expect(amrClaims({ ...session, aal: 'aal2', mfa_verified_at: new Date('2026-11-23T21:05:00Z') })).toEqual([
      { method: 'totp', timestamp: at('2026-11-23T21:05:00Z') },
      { method: 'password', timestamp: at('2026-11-23T21:00:00Z') },
    ]);
  });

  it('orders by the exact times when both fall in one second', () => {
    const quick = { ...session, created_at: new Date('2026-11-23T21:00:00.100Z'), aal: 'aal2', mfa_verified_at: new Date('2026-11-23T21:00:00.900Z') };
    expect(amrClaims(quick).map((e) => e.method)).toEqual(['totp', 'password']);
  });
});

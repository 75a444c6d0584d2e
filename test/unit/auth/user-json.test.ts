import { describe, expect, it } from 'vitest';
import { decoyUserJson, userJson, type UserRow } from '../../../runtime/auth/storage/user-json.js';

const created = new Date('2026-01-01T10:00:00.000Z');
const row: UserRow = {
  id: '0b7c4f0e-8d7e-4a57-a3b3-0f6f4a8b6c11',
  aud: 'authenticated',
  role: 'authenticated',
  email: 'a@example.com',
  encrypted_password: '$2b$10$secret',
  email_confirmed_at: new Date('2026-01-01T10:05:00.000Z'),
  confirmation_sent_at: null,
  recovery_sent_at: null,
  last_sign_in_at: new Date('2026-01-02T08:00:00.000Z'),
  raw_app_meta_data: { provider: 'email', providers: ['email'] },
  raw_user_meta_data: { name: 'A' },
  banned_until: null,
  created_at: created,
  updated_at: created,
  is_anonymous: false,
};

describe('userJson', () => {
  it('writes GoTrue fields, omits null timestamps and never the password hash', () => {
    expect(userJson(row)).toEqual({
      id: row.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: 'a@example.com',
      email_confirmed_at: '2026-01-01T10:05:00.000Z',
      phone: '',
      confirmed_at: '2026-01-01T10:05:00.000Z',
      last_sign_in_at: '2026-01-02T08:00:00.000Z',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { name: 'A' },
      identities: [
        {
          identity_id: row.id,
          id: row.id,
          user_id: row.id,
          identity_data: { sub: row.id, email: 'a@example.com', email_verified: true, phone_verified: false },
          provider: 'email',
          last_sign_in_at: '2026-01-02T08:00:00.000Z',
          created_at: '2026-01-01T10:00:00.000Z',
          updated_at: '2026-01-01T10:00:00.000Z',
          email: 'a@example.com',
        },
      ],
      created_at: '2026-01-01T10:00:00.000Z',
      updated_at: '2026-01-01T10:00:00.000Z',
      is_anonymous: false,
    });
    expect(JSON.stringify(userJson(row))).not.toContain('secret');
  });

  it('shows a pending e-mail change after recovery_sent_at, as GoTrue orders it', () => {
    const json = userJson({ ...row, recovery_sent_at: created, new_email: 'b@example.com', email_change_sent_at: new Date('2026-01-03T00:00:00.000Z') });
    expect(Object.keys(json).slice(6, 11)).toEqual(['confirmed_at', 'recovery_sent_at', 'new_email', 'email_change_sent_at', 'last_sign_in_at']);
    expect([json.new_email, json.email_change_sent_at]).toEqual(['b@example.com', '2026-01-03T00:00:00.000Z']);
    expect(userJson({ ...row, new_email: null, email_change_sent_at: null })).not.toHaveProperty('new_email');
  });

  it('shows banned_until when set', () => {
    expect(userJson({ ...row, banned_until: new Date('2126-01-01T00:00:00.000Z') }).banned_until).toBe('2126-01-01T00:00:00.000Z');
  });
});

describe('decoyUserJson', () => {
  it('has exactly the keys and shape of a freshly signed-up unconfirmed user', () => {
    const now = new Date('2026-03-01T00:00:00.000Z');
    const fresh = userJson({
      ...row,
      email_confirmed_at: null,
      last_sign_in_at: null,
      confirmation_sent_at: now,
      created_at: now,
      updated_at: now,
      raw_user_meta_data: { x: 1 },
    });
    const decoy = decoyUserJson(row.id, 'a@example.com', { x: 1 }, now);
    expect(decoy).toEqual(fresh);
  });
});

import { describe, expect, it } from 'vitest';
import { rateLimitsFrom } from '../../../runtime/auth/flows/rate-limits.js';
import { parseSetting, resolveSettings, SettingsError } from '../../../runtime/platform/settings.js';

describe('rate limit settings', () => {
  it('default to GoTrue’s limits per 5 minutes', () => {
    const settings = resolveSettings({});
    expect([settings['auth.rate_limit.token_refresh'], settings['auth.rate_limit.verify'], settings['auth.rate_limit.otp']]).toEqual([150, 30, 30]);
  });

  it('parse whole numbers of requests from 1 to 1000000', () => {
    expect(parseSetting('auth.rate_limit.otp=5')).toEqual({ key: 'auth.rate_limit.otp', value: 5 });
    expect(parseSetting('auth.rate_limit.token_refresh=1000000')).toEqual({ key: 'auth.rate_limit.token_refresh', value: 1_000_000 });
    for (const bad of ['0', '-1', '2.5', 'ten', '', '1000001', '1e3']) {
      expect(() => parseSetting(`auth.rate_limit.verify=${bad}`)).toThrow(
        new SettingsError(`auth.rate_limit.verify: expected a whole number of requests per 5 minutes from 1 to 1000000, got "${bad}"`),
      );
    }
  });

  it('count passkey sign-in options per 5 minutes, 30 by default as GoTrue', () => {
    expect(resolveSettings({})['auth.rate_limit.passkey']).toBe(30);
    expect(parseSetting('auth.rate_limit.passkey=2')).toEqual({ key: 'auth.rate_limit.passkey', value: 2 });
  });

  it('count anonymous sign-ins per hour, 30 by default as GoTrue', () => {
    expect(resolveSettings({})['auth.rate_limit.anonymous_users']).toBe(30);
    expect(parseSetting('auth.rate_limit.anonymous_users=5')).toEqual({ key: 'auth.rate_limit.anonymous_users', value: 5 });
    expect(() => parseSetting('auth.rate_limit.anonymous_users=0')).toThrow(
      new SettingsError('auth.rate_limit.anonymous_users: expected a whole number of requests per hour from 1 to 1000000, got "0"'),
    );
  });

  it('keep stored values of the right type and fall back otherwise', () => {
    const settings = resolveSettings({ 'auth.rate_limit.verify': 7, 'auth.rate_limit.otp': 'many' });
    expect([settings['auth.rate_limit.verify'], settings['auth.rate_limit.otp']]).toEqual([7, 30]);
  });
});

describe('rateLimitsFrom', () => {
  it('maps the settings onto the buckets as GoTrue groups them, each over 5 minutes but anonymous sign-ins and SMS sent over an hour, the passkey sign-in options over 5 minutes, MFA challenge and verify at 15 a minute, and OAuth dynamic client registration at 10 per 5 minutes, as GoTrue defaults it', () => {
    const limits = rateLimitsFrom({
      ...resolveSettings({}),
      'auth.rate_limit.token_refresh': 11,
      'auth.rate_limit.verify': 12,
      'auth.rate_limit.otp': 13,
      'auth.rate_limit.anonymous_users': 14,
      'auth.rate_limit.passkey': 16,
      'auth.rate_limit.sms_sent': 17,
    });
    const rule = (limit: number) => ({ limit, windowSeconds: 300 });
    const mfa = { limit: 15, windowSeconds: 60 };
    expect(limits).toEqual({ token: rule(11), verify: rule(12), signup: rule(13), recover: rule(13), resend: rule(13), otp: rule(13), magiclink: rule(13), user: rule(13), anonymous: { limit: 14, windowSeconds: 3600 }, mfa_challenge: mfa, mfa_verify: mfa, passkey: rule(16), sms_sent: { limit: 17, windowSeconds: 3600 }, oauth_client_register: rule(10) });
  });
});

describe('auth.rate_limit.sms_sent', () => {
  it("defaults to GoTrue's 30 an hour and takes whole numbers per hour", () => {
    expect(resolveSettings({})['auth.rate_limit.sms_sent']).toBe(30);
    expect(parseSetting('auth.rate_limit.sms_sent=5')).toEqual({ key: 'auth.rate_limit.sms_sent', value: 5 });
    expect(() => parseSetting('auth.rate_limit.sms_sent=0')).toThrow('auth.rate_limit.sms_sent: expected a whole number of requests per hour from 1 to 1000000, got "0"');
  });
});

describe('auth.otp_expiry', () => {
  it("defaults to an hour and takes whole seconds up to a day, as Supabase's dashboard caps it", () => {
    expect(resolveSettings({})['auth.otp_expiry']).toBe(3600);
    expect(parseSetting('auth.otp_expiry=600')).toEqual({ key: 'auth.otp_expiry', value: 600 });
    expect(() => parseSetting('auth.otp_expiry=86401')).toThrow('auth.otp_expiry: expected a whole number of seconds from 1 to 86400, got "86401"');
    expect(() => parseSetting('auth.otp_expiry=0')).toThrow(SettingsError);
  });
});

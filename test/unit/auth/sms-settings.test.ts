import { describe, expect, it } from 'vitest';
import { acceptPhone } from '../../../runtime/auth/input/phone-number.js';
import { formatPhone } from '../../../runtime/settings/phone-format.js';
import { frequencyLimitMessage } from '../../../runtime/auth/flows/phone-otp.js';
import { renderSmsTemplate } from '../../../runtime/auth/sms/sms-sender.js';
import { displaySmsSettings, openSmsSecret, parseTestOtps, resolveSmsSettings, sealSmsSecret, testOtpFor } from '../../../runtime/settings/sms-settings.js';
import { parseSetting, SettingsError } from '../../../runtime/platform/settings.js';

describe('phone numbers', () => {
  it("keeps GoTrue's stored form (no '+', no spaces) and refuses what is not E.164 with its message", () => {
    expect(formatPhone('+1 555 555 0100')).toBe('15555550100');
    expect(acceptPhone('+15555550100')).toBe('15555550100');
    for (const bad of ['+0123', '1', '+1234567890123456', 'phone', '', null, '+1-555-555']) {
      expect(() => acceptPhone(bad)).toThrow('Invalid phone number format (E.164 required)');
    }
  });
});

describe('auth.sms settings', () => {
  it('parses each field, refusing values GoTrue would not take', () => {
    expect(parseSetting('auth.sms.provider=twilio')).toEqual({ key: 'auth.sms.provider', value: 'twilio' });
    expect(parseSetting('auth.sms.otp_length=8')).toEqual({ key: 'auth.sms.otp_length', value: 8 });
    expect(parseSetting('auth.sms.autoconfirm=true')).toEqual({ key: 'auth.sms.autoconfirm', value: true });
    expect(parseSetting('auth.sms.twilio.base_url=http://127.0.0.1:9999/')).toEqual({ key: 'auth.sms.twilio.base_url', value: 'http://127.0.0.1:9999' });
    expect(() => parseSetting('auth.sms.provider=messagebird')).toThrow(new SettingsError('auth.sms.provider: expected twilio or vonage, or nothing for none, got "messagebird"'));
    expect(() => parseSetting('auth.sms.otp_length=5')).toThrow('auth.sms.otp_length: expected a number of digits from 6 to 10, got "5"');
    expect(() => parseSetting('auth.sms.test_otp=+0123=123456')).toThrow(SettingsError);
    expect(() => parseSetting('auth.sms.test_otp_valid_until=soon')).toThrow(SettingsError);
    expect(() => parseSetting('auth.sms.nope=1')).toThrow('unknown setting "auth.sms.nope"');
  });

  it("takes GoTrue's test OTP map with or without '+' and honours its expiry", () => {
    expect(parseTestOtps('+1 555 000 0001=123456, 15550000002=654321')).toEqual({ '15550000001': '123456', '15550000002': '654321' });
    const sms = resolveSmsSettings({ 'auth.sms.test_otp': '15550000001=123456', 'auth.sms.test_otp_valid_until': '2030-01-01T00:00:00.000Z' });
    expect(testOtpFor(sms, '15550000001', new Date('2029-12-31T23:59:59Z'))).toBe('123456');
    expect(testOtpFor(sms, '15550000001', new Date('2030-01-01T00:00:00Z'))).toBeNull();
    expect(testOtpFor(sms, '15550000002', new Date('2029-01-01T00:00:00Z'))).toBeNull();
  });

  it('keeps provider secrets sealed, bound to their key, and shows only that one is set', () => {
    const sealed = sealSmsSecret('jwt-secret-of-the-project-32-bytes!', 'auth.sms.twilio.auth_token', 'tok');
    expect(sealed).not.toContain('tok');
    expect(openSmsSecret('jwt-secret-of-the-project-32-bytes!', 'auth.sms.twilio.auth_token', sealed)).toBe('tok');
    expect(() => openSmsSecret('jwt-secret-of-the-project-32-bytes!', 'auth.sms.vonage.api_secret', sealed)).toThrow();
    const shown = displaySmsSettings(resolveSmsSettings({ 'auth.sms.provider': 'twilio', 'auth.sms.twilio.auth_token': sealed }));
    expect([shown['auth.sms.provider'], shown['auth.sms.twilio.auth_token'], shown['auth.sms.vonage.api_secret']]).toEqual(['twilio', '(sealed)', '']);
  });

  it("renders GoTrue's template variable and its frequency message", () => {
    expect(renderSmsTemplate('Your code is {{ .Code }} ({{.Code}})', '123456')).toBe('Your code is 123456 (123456)');
    const sentAt = new Date('2030-01-01T00:00:00Z');
    expect(frequencyLimitMessage(sentAt, 60, new Date('2030-01-01T00:00:00.500Z'))).toBe('For security purposes, you can only request this after 59 seconds.');
  });
});

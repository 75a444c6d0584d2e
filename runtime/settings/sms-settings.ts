import { openValue, purposeKey, sealValue } from '../sealed-value.js';
import { formatPhone, isE164 } from './phone-format.js';
import { CodedError } from '../coded-error.js';

/**
 * Phone sign-in's SMS settings per project, `auth.sms.<field>` (GoTrue's SMS_* and Supabase's
 * `[auth.sms]` section): which provider sends (Twilio or Vonage through their HTTP APIs at a
 * configurable base URL; the send-SMS hook, when enabled, takes precedence as in GoTrue), the
 * message template, the code's length and lifetime, how often one phone may be sent a code, and
 * test OTPs that are never sent. Stored flat in the registry; the provider secrets only sealed.
 */

export const SMS_PROVIDERS = ['twilio', 'vonage'] as const;
export type SmsProviderName = (typeof SMS_PROVIDERS)[number];

const FIELDS = [
  'provider',
  'autoconfirm',
  'template',
  'otp_exp',
  'otp_length',
  'max_frequency',
  'test_otp',
  'test_otp_valid_until',
  'twilio.account_sid',
  'twilio.auth_token',
  'twilio.message_service_sid',
  'twilio.base_url',
  'vonage.api_key',
  'vonage.api_secret',
  'vonage.from',
  'vonage.base_url',
] as const;
type SmsField = (typeof FIELDS)[number];
export type SmsSettingKey = `auth.sms.${SmsField}`;

/** The fields kept only sealed. */
const SECRET_FIELDS: ReadonlySet<SmsField> = new Set(['twilio.auth_token', 'vonage.api_secret']);

export interface SmsSettings {
  /** '' when no provider is set: phone sign-in is then off unless the send-SMS hook is on. */
  readonly provider: SmsProviderName | '';
  /** GoTrue's SMS_AUTOCONFIRM: a phone sign-up is confirmed at once. */
  readonly autoconfirm: boolean;
  /** Go template text; `{{ .Code }}` is the code. */
  readonly template: string;
  readonly otp_exp: number;
  readonly otp_length: number;
  readonly max_frequency: number;
  /** Phone (E.164 digits, no "+") to its fixed code. */
  readonly test_otp: Readonly<Record<string, string>>;
  /** Test OTPs stop working at this instant; null: they do not expire. */
  readonly test_otp_valid_until: Date | null;
  readonly twilio: { readonly account_sid: string; readonly auth_token_sealed: string; readonly message_service_sid: string; readonly base_url: string };
  readonly vonage: { readonly api_key: string; readonly api_secret_sealed: string; readonly from: string; readonly base_url: string };
}

export class SmsSettingError extends CodedError {
  readonly code = 'invalid_setting';
}

/** GoTrue's defaults. */
export const DEFAULT_SMS_TEMPLATE = 'Your code is {{ .Code }}';
export const TWILIO_API_BASE = 'https://api.twilio.com';
export const VONAGE_API_BASE = 'https://rest.nexmo.com';
const MAX_SECONDS = 86400;

export function isSmsSettingKey(key: string): key is SmsSettingKey {
  return key.startsWith('auth.sms.') && (FIELDS as readonly string[]).includes(key.slice('auth.sms.'.length));
}

function wholeNumber(raw: string, min: number, max: number, what: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new SmsSettingError(`expected ${what} from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** `phone=code,phone=code` (GoTrue's SMS_TEST_OTP); phones as E.164 with or without "+", codes of digits. */
export function parseTestOtps(raw: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of raw.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const eq = pair.indexOf('=');
    const phone = formatPhone(eq < 0 ? pair : pair.slice(0, eq));
    const code = eq < 0 ? '' : pair.slice(eq + 1).trim();
    if (!isE164(phone)) throw new SmsSettingError(`test OTP "${pair}": expected an E.164 phone number before "="`);
    if (!/^\d{4,10}$/.test(code)) throw new SmsSettingError(`test OTP "${pair}": expected a code of 4 to 10 digits after "="`);
    map[phone] = code;
  }
  return map;
}

function baseUrl(raw: string): string {
  if (raw !== '' && !(URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol))) throw new SmsSettingError(`expected an http(s) URL, or nothing, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** Checks `auth.sms.<field>=<raw>`; the value as stored (secrets still in the clear: the caller seals them). */
export function parseSmsSetting(key: SmsSettingKey, raw: string): string | boolean | number {
  const field = key.slice('auth.sms.'.length) as SmsField;
  try {
    switch (field) {
      case 'provider':
        if (raw === '' || (SMS_PROVIDERS as readonly string[]).includes(raw)) return raw;
        throw new SmsSettingError(`expected ${SMS_PROVIDERS.join(' or ')}, or nothing for none, got "${raw}"`);
      case 'autoconfirm':
        if (raw === 'true' || raw === 'false') return raw === 'true';
        throw new SmsSettingError(`expected true or false, got "${raw}"`);
      case 'otp_exp':
        return wholeNumber(raw, 1, MAX_SECONDS, 'a whole number of seconds');
      case 'max_frequency':
        return wholeNumber(raw, 1, MAX_SECONDS, 'a whole number of seconds');
      case 'otp_length':
        return wholeNumber(raw, 6, 10, 'a number of digits');
      case 'test_otp':
        parseTestOtps(raw);
        return raw;
      case 'test_otp_valid_until':
        if (raw !== '' && Number.isNaN(Date.parse(raw))) throw new SmsSettingError(`expected an ISO 8601 time such as 2030-01-01T00:00:00Z, or nothing, got "${raw}"`);
        return raw === '' ? '' : new Date(raw).toISOString();
      case 'twilio.base_url':
      case 'vonage.base_url':
        return baseUrl(raw);
      default:
        return raw;
    }
  } catch (error) {
    throw new SmsSettingError(`${key}: ${(error as Error).message}`);
  }
}

export function isSmsSecretKey(key: string): boolean {
  return isSmsSettingKey(key) && SECRET_FIELDS.has(key.slice('auth.sms.'.length) as SmsField);
}

const secretKey = (jwtSecret: string): Buffer => purposeKey(jwtSecret, 'gantry auth sms secrets');

/** A provider secret as the registry keeps it, bound to its key. */
export function sealSmsSecret(jwtSecret: string, key: SmsSettingKey, raw: string): string {
  return raw === '' ? '' : sealValue(secretKey(jwtSecret), key, raw);
}

export function openSmsSecret(jwtSecret: string, key: SmsSettingKey, sealed: string): string {
  return sealed === '' ? '' : openValue(secretKey(jwtSecret), key, sealed);
}

/** The settings from the registry's flat keys, GoTrue's defaults where unset or unusable. */
export function resolveSmsSettings(stored: Readonly<Record<string, unknown>>): SmsSettings {
  const text = (field: SmsField): string => {
    const value = stored[`auth.sms.${field}`];
    return typeof value === 'string' ? value : '';
  };
  const number = (field: SmsField, min: number, max: number, fallback: number): number => {
    const value = stored[`auth.sms.${field}`];
    return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
  };
  const provider = text('provider');
  let testOtp: Record<string, string> = {};
  try {
    testOtp = parseTestOtps(text('test_otp'));
  } catch {
    testOtp = {};
  }
  const validUntil = text('test_otp_valid_until');
  return {
    provider: (SMS_PROVIDERS as readonly string[]).includes(provider) ? (provider as SmsProviderName) : '',
    autoconfirm: stored['auth.sms.autoconfirm'] === true,
    template: text('template') === '' ? DEFAULT_SMS_TEMPLATE : text('template'),
    otp_exp: number('otp_exp', 1, MAX_SECONDS, 60),
    otp_length: number('otp_length', 6, 10, 6),
    max_frequency: number('max_frequency', 1, MAX_SECONDS, 60),
    test_otp: testOtp,
    test_otp_valid_until: validUntil === '' || Number.isNaN(Date.parse(validUntil)) ? null : new Date(validUntil),
    twilio: {
      account_sid: text('twilio.account_sid'),
      auth_token_sealed: text('twilio.auth_token'),
      message_service_sid: text('twilio.message_service_sid'),
      base_url: text('twilio.base_url') === '' ? TWILIO_API_BASE : text('twilio.base_url'),
    },
    vonage: {
      api_key: text('vonage.api_key'),
      api_secret_sealed: text('vonage.api_secret'),
      from: text('vonage.from'),
      base_url: text('vonage.base_url') === '' ? VONAGE_API_BASE : text('vonage.base_url'),
    },
  };
}

/** The settings as `project config` shows them: flat keys, the secrets only as whether one is set. */
export function displaySmsSettings(sms: SmsSettings): Record<string, string | boolean | number> {
  const sealed = (value: string): string => (value === '' ? '' : '(sealed)');
  return {
    'auth.sms.provider': sms.provider,
    'auth.sms.autoconfirm': sms.autoconfirm,
    'auth.sms.template': sms.template,
    'auth.sms.otp_exp': sms.otp_exp,
    'auth.sms.otp_length': sms.otp_length,
    'auth.sms.max_frequency': sms.max_frequency,
    'auth.sms.test_otp': Object.entries(sms.test_otp).map(([phone, code]) => `${phone}=${code}`).join(','),
    'auth.sms.test_otp_valid_until': sms.test_otp_valid_until?.toISOString() ?? '',
    'auth.sms.twilio.account_sid': sms.twilio.account_sid,
    'auth.sms.twilio.auth_token': sealed(sms.twilio.auth_token_sealed),
    'auth.sms.twilio.message_service_sid': sms.twilio.message_service_sid,
    'auth.sms.twilio.base_url': sms.twilio.base_url,
    'auth.sms.vonage.api_key': sms.vonage.api_key,
    'auth.sms.vonage.api_secret': sealed(sms.vonage.api_secret_sealed),
    'auth.sms.vonage.from': sms.vonage.from,
    'auth.sms.vonage.base_url': sms.vonage.base_url,
  };
}

/** The code the project gives this phone for development, while test OTPs are valid (GoTrue's GetTestOTP). */
export function testOtpFor(sms: SmsSettings, phone: string, now: Date): string | null {
  if (sms.test_otp_valid_until !== null && now.getTime() >= sms.test_otp_valid_until.getTime()) return null;
  return Object.hasOwn(sms.test_otp, phone) ? (sms.test_otp[phone] as string) : null;
}

import { timingSafeEqual } from 'node:crypto';
import type { AuthDeps } from '../auth-deps.js';
import type { Queryable } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { generateOtpCode, issueOneTimeToken } from '../storage/one-time-tokens.js';
import { hitRateLimit } from './rate-limits.js';
import { SmsSendError, renderSmsTemplate, sendThroughProvider, type OutgoingSms, type SmsChannel } from '../sms/sms-sender.js';
import { openSmsSecret, testOtpFor } from '../../settings/sms-settings.js';
import { phoneProviderEnabled } from '../sms/phone-provider.js';
import { userJson, type UserRow } from '../storage/user-json.js';
import { updateUser } from '../storage/users.js';
import { isBlank } from '../http/request-fields.js';

/** GoTrue's InvalidChannelError. */
const INVALID_CHANNEL = "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.";

export function phoneEnabled(deps: AuthDeps): boolean {
  return phoneProviderEnabled(deps.ctx.settings);
}

/** GoTrue's IsValidMessageChannel, `sms` when none is given; with the send-SMS hook any channel goes to the hook. */
export function acceptChannel(deps: AuthDeps, value: unknown): SmsChannel {
  if (isBlank(value)) return 'sms';
  if (hookEnabled(deps, 'send_sms')) return value === 'whatsapp' ? 'whatsapp' : 'sms';
  if (value === 'sms') return 'sms';
  if (value === 'whatsapp' && deps.ctx.settings['auth.sms'].provider === 'twilio') return 'whatsapp';
  throw authErrors.validation(INVALID_CHANNEL);
}

/** GoTrue's generateFrequencyLimitErrorMessage: whole seconds left, rounded down as Go's Duration division. */
export function frequencyLimitMessage(sentAt: Date, maxFrequencySeconds: number, now: Date): string {
  const left = Math.trunc((sentAt.getTime() + maxFrequencySeconds * 1000 - now.getTime()) / 1000);
  return `For security purposes, you can only request this after ${left} seconds.`;
}

/** What an SMS code is for: a phone's confirmation or sign-in, or a change to a new number. */
export type PhoneOtpType = 'sms' | 'phone_change';

/** GoTrue's otpType wording in "Error sending … OTP to provider". */
const OTP_WORDING: Readonly<Record<PhoneOtpType, string>> = { sms: 'confirmation', phone_change: 'phone_change' };

export interface TextedCode {
  /** The provider's message id; "test-otp" for a test OTP, '' when the hook sent it (as GoTrue answers). */
  readonly messageId: string;
}

/**
 * Texts a code and gives the user a usable one-time token for it, as GoTrue's
 * sendPhoneConfirmation: refused within max_frequency of the last code of that kind,
 * a test OTP is never sent (nor counted), others count against the project's hourly SMS
 * limit and go to the send-SMS hook when enabled, else to the provider. Runs in the
 * caller's transaction, so a code the provider refused leaves nothing behind.
 */
export async function textCode(
  deps: AuthDeps,
  db: Queryable,
  user: UserRow,
  phone: string,
  type: PhoneOtpType,
  channel: SmsChannel,
  ip: string | null,
): Promise<TextedCode> {
  const sms = deps.ctx.settings['auth.sms'];
  const now = deps.now();
  const sentAt = type === 'sms' ? user.confirmation_sent_at : (user.phone_change_sent_at ?? null);
  if (sentAt !== null && sentAt.getTime() + sms.max_frequency * 1000 >= now.getTime()) {
    throw authErrors.overSmsSendRateLimit(frequencyLimitMessage(sentAt, sms.max_frequency, now));
  }
  const testOtp = testOtpFor(sms, phone, now);
  let code: string;
  let messageId = '';
  if (testOtp !== null) {
    code = testOtp;
    messageId = 'test-otp';
  } else {
    // GoTrue does not count codes of autoconfirmed projects against the limit.
    if (!sms.autoconfirm) {
      const verdict = await hitRateLimit(deps.ctx.adminPool, 'sms_sent', 'project', deps.rateLimits.sms_sent, now);
      if (!verdict.allowed) throw authErrors.overSmsSendRateLimit('SMS rate limit exceeded');
    }
    code = generateOtpCode(sms.otp_length);
    try {
      await deliverCode(deps, user, { phone, message: renderSmsTemplate(sms.template, code), channel }, { otp: code, phone }, ip);
    } catch (error) {
      if (error instanceof SmsSendError) throw authErrors.smsSendFailed(`Error sending ${OTP_WORDING[type]} OTP to provider: ${error.message}`);
      throw error;
    }
  }
  await issueOneTimeToken(db, user.id, type, now, { lifetimeSeconds: sms.otp_exp, code });
  await updateUser(db, user.id, type === 'sms' ? { confirmation_sent_at: now } : { phone_change: phone, phone_change_sent_at: now }, now);
  return { messageId };
}

/** GoTrue's phone reauthentication: the nonce texted to the account's number (a provider's refusal is 422 sms_send_failed). */
export async function textNonce(deps: AuthDeps, user: UserRow, phone: string, code: string, ip: string | null): Promise<void> {
  try {
    await deliverCode(deps, user, { phone, message: renderSmsTemplate(deps.ctx.settings['auth.sms'].template, code), channel: 'sms' }, { otp: code, phone }, ip);
  } catch (error) {
    if (error instanceof SmsSendError) throw authErrors.smsSendFailed(`Error sending reauthentication OTP to provider: ${error.message}`);
    throw error;
  }
}

/**
 * To the send-SMS hook when enabled (GoTrue's payload: the account and `sms`, with `sms_type:
 * "mfa"` for a factor's code), else through the provider; a provider's refusal is an SmsSendError.
 */
export async function deliverCode(
  deps: AuthDeps,
  user: UserRow,
  out: OutgoingSms,
  hookSms: Readonly<Record<string, string>>,
  ip: string | null,
): Promise<void> {
  if (hookEnabled(deps, 'send_sms')) {
    await runHook(deps, 'send_sms', { user: userJson(user), sms: hookSms }, ip);
    return;
  }
  const sms = deps.ctx.settings['auth.sms'];
  const secretKey = sms.provider === 'twilio' ? 'auth.sms.twilio.auth_token' : 'auth.sms.vonage.api_secret';
  const sealed = sms.provider === 'twilio' ? sms.twilio.auth_token_sealed : sms.vonage.api_secret_sealed;
  await sendThroughProvider(sms, openSmsSecret(deps.ctx.keyring.secret, secretKey, sealed), out, { allowPrivate: deps.ctx.config.authAllowPrivateProviderUrls });
}

/** A project's test OTP for this phone, compared in constant time; GoTrue accepts it without a stored code. */
export function matchesTestOtp(deps: AuthDeps, phone: string, code: string): boolean {
  const testOtp = testOtpFor(deps.ctx.settings['auth.sms'], phone, deps.now());
  if (testOtp === null) return false;
  const given = Buffer.from(code);
  const expected = Buffer.from(testOtp);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

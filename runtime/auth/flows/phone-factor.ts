import { randomUUID } from 'node:crypto';
import type { AuthDeps } from '../auth-deps.js';
import { AuthError, authErrors } from '../http/errors.js';
import type { FactorRow } from '../storage/factors.js';
import { generateOtpCode } from '../storage/one-time-tokens.js';
import { hashToken, tokenHashesEqual } from '../credentials/opaque-tokens.js';
import { acceptPhone } from '../input/phone-number.js';
import { deliverCode, frequencyLimitMessage } from './phone-otp.js';
import { SmsSendError, renderSmsTemplate, type SmsChannel } from '../sms/sms-sender.js';
import type { UserRow } from '../storage/user-json.js';

/** GoTrue's answers for phone MFA factors (auth.mfa.phone.enabled: its MFA_PHONE_ENROLL_ENABLED and _VERIFY_ENABLED). */
export const phoneFactorErrors = {
  enrollDisabled: (): AuthError => new AuthError(422, 'mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone'),
  verifyDisabled: (): AuthError => new AuthError(422, 'mfa_phone_verify_not_enabled', 'MFA verification is disabled for Phone'),
  verifiedExists: (): AuthError =>
    new AuthError(422, 'mfa_verified_factor_exists', 'A verified phone factor already exists, unenroll the existing factor to continue'),
  verificationFailed: (): AuthError => new AuthError(422, 'mfa_verification_failed', 'Invalid MFA Phone code entered'),
} as const;

/** The number of a phone factor to enrol, GoTrue's checks in its order. */
export function acceptFactorPhone(raw: string): string {
  if (raw === '') throw authErrors.validation('Phone number required to enroll Phone factor');
  return acceptPhone(raw);
}

/**
 * GoTrue's enrolment clean-up for a number: a verified factor with it refuses the enrolment,
 * unverified ones with it are replaced (returned for deletion).
 */
export function replacedPhoneFactors(factors: readonly FactorRow[], phone: string): FactorRow[] {
  const same = factors.filter((factor) => factor.factor_type === 'phone' && factor.phone === phone);
  if (same.some((factor) => factor.status === 'verified')) throw phoneFactorErrors.verifiedExists();
  return same;
}

/** A texted factor code is kept only hashed, bound to its challenge. */
function challengeCodeHash(challengeId: string, code: string): string {
  return hashToken(`${challengeId}:${code}`);
}

export function phoneCodeMatches(otpHash: string | null, challengeId: string, code: string): boolean {
  return otpHash !== null && tokenHashesEqual(otpHash, challengeCodeHash(challengeId, code));
}

export interface TextedChallenge {
  readonly id: string;
  readonly otpHash: string;
}

/**
 * GoTrue's challengePhoneFactor before it stores the challenge: no new code within max_frequency of
 * the factor's last challenge (429 over_sms_send_rate_limit), then a code of auth.sms.otp_length
 * digits texted to the factor's number (the hook is told `sms_type: "mfa"`); a provider's refusal
 * is GoTrue's 500 "error sending message".
 */
export async function textChallengeCode(deps: AuthDeps, user: UserRow, factor: FactorRow, channel: SmsChannel, ip: string | null): Promise<TextedChallenge> {
  const sms = deps.ctx.settings['auth.sms'];
  const now = deps.now();
  const last = factor.last_challenged_at;
  if (last !== null && last.getTime() + sms.max_frequency * 1000 >= now.getTime()) {
    throw authErrors.overSmsSendRateLimit(frequencyLimitMessage(last, sms.max_frequency, now));
  }
  const phone = factor.phone ?? '';
  const code = generateOtpCode(sms.otp_length);
  const id = randomUUID();
  try {
    await deliverCode(deps, user, { phone, message: renderSmsTemplate(sms.template, code), channel }, { otp: code, sms_type: 'mfa', phone }, ip);
  } catch (error) {
    if (error instanceof SmsSendError) throw new AuthError(500, 'unexpected_failure', 'error sending message');
    throw error;
  }
  return { id, otpHash: challengeCodeHash(id, code) };
}

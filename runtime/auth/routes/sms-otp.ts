import type { Request, Response } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AuthError, authErrors } from '../http/errors.js';
import { optionalObject } from '../http/handler.js';
import { acceptPhone } from '../input/phone-number.js';
import { acceptChannel, phoneEnabled, textCode } from '../flows/phone-otp.js';
import { clientIp } from '../http/request-auth.js';
import { findUserByPhone } from '../storage/users.js';
import { isBlank } from '../http/request-fields.js';
import { signUpPhone } from './phone-signup.js';
import type { OtpFields } from './session-endpoints.js';

/** GoTrue's SmsOtpResponse: `message_id` only when there is one. */
function otpAnswer(messageId: string): Record<string, string> {
  return messageId === '' ? {} : { message_id: messageId };
}

/**
 * auth-js `signInWithOtp({phone})`, GoTrue's SmsOtp: a confirmed number is texted a sign-in
 * code; an unknown or unconfirmed one is signed up (password-less) and texted its
 * confirmation code, which signs in as well. Sent before answering, as GoTrue does, so a
 * provider's refusal is the answer.
 */
export async function signInWithSms(req: Request, res: Response, deps: AuthDeps, body: OtpFields): Promise<void> {
  const phone = acceptPhone(body.phone);
  if (body.create_user === false && (await findUserByPhone(deps.ctx.adminPool, phone)) === null) {
    throw new AuthError(422, 'otp_disabled', 'Signups not allowed for otp');
  }
  if (!phoneEnabled(deps)) throw authErrors.phoneDisabled(400, 'Unsupported phone provider');
  const channel = acceptChannel(deps, body.channel);
  const ip = clientIp(req);
  const existing = await findUserByPhone(deps.ctx.adminPool, phone);
  if (existing === null || existing.phone_confirmed_at === null || existing.phone_confirmed_at === undefined) {
    const data = optionalObject(body.data, 'data') ?? {};
    const outcome = await signUpPhone(deps, { phone, passwordHash: null, data, channel, ip }, false);
    // GoTrue answers a sign-up by code with {}, an autoconfirmed one with the sign-in code's answer.
    res.status(200).json(outcome.kind === 'texted' && deps.ctx.settings['auth.sms'].autoconfirm ? otpAnswer(outcome.messageId) : {});
    return;
  }
  const texted = await inTransaction(deps.ctx.adminPool, async (db) => {
    const user = (await findUserByPhone(db, phone, true)) ?? existing;
    await writeAudit(db, { event: 'user_recovery_requested', userId: user.id, ip, payload: { channel }, at: deps.now() });
    return textCode(deps, db, user, phone, 'sms', channel, ip);
  });
  res.status(200).json(otpAnswer(texted.messageId));
}

/** Whether /otp is asked for a phone code: a phone and no e-mail address. */
export function wantsSms(body: OtpFields): boolean {
  return isBlank(body.email) && !isBlank(body.phone);
}

import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import type { ResendFields } from './session-endpoints.js';
import { bodyOf, enforceRateLimit, handle, inBackground } from '../http/handler.js';
import { mailEmailChange, mailLink } from '../flows/mail-out.js';
import { issueOneTimeToken } from '../storage/one-time-tokens.js';
import { reissueEmailChange } from '../flows/email-change.js';
import { clientIp, requireApiKey } from '../http/request-auth.js';
import { findUserByEmail, findUserByPhone, updateUser } from '../storage/users.js';
import { acceptEmail, acceptRedirect, isBlank } from '../http/request-fields.js';
import { acceptPhone } from '../input/phone-number.js';
import { phoneEnabled, textCode, type PhoneOtpType } from '../flows/phone-otp.js';

export const RESEND_MESSAGE = 'If this e-mail address awaits confirmation, a new confirmation link has been sent to it';
export const RESEND_EMAIL_CHANGE_MESSAGE = 'If this account has an e-mail change waiting, a new link has been sent to the new address';

type ResendType = 'signup' | 'email_change' | PhoneOtpType;

function acceptResendType(value: unknown): ResendType {
  if (value === 'signup' || value === 'email_change' || value === 'sms' || value === 'phone_change') return value;
  throw authErrors.validation('Missing one of these types: signup, email_change, sms, phone_change');
}

/**
 * A texted code again, as GoTrue's Resend: `sms` for a number that awaits confirmation,
 * `phone_change` to the pending new number of the account with this phone (or address).
 * Sent before answering; `{}` (or `{message_id}`) whether or not there was anything to send.
 */
async function resendText(deps: AuthDeps, type: PhoneOtpType, body: ResendFields, ip: string | null): Promise<Record<string, string>> {
  const byPhone = isBlank(body.email);
  if (byPhone && !phoneEnabled(deps)) throw authErrors.phoneDisabled(400, 'Phone logins are disabled');
  const phone = byPhone ? acceptPhone(body.phone) : null;
  const email = byPhone ? null : acceptEmail(body.email);
  const texted = await inTransaction(deps.ctx.adminPool, async (db) => {
    const user = phone !== null ? await findUserByPhone(db, phone, true) : await findUserByEmail(db, email ?? '');
    if (user === null) return null;
    if (type === 'sms') {
      if (phone === null || (user.phone_confirmed_at ?? null) !== null) return null;
      await writeAudit(db, { event: 'user_recovery_requested', userId: user.id, ip, payload: { via: 'resend' }, at: deps.now() });
      return textCode(deps, db, user, phone, 'sms', 'sms', ip);
    }
    const pending = user.phone_change ?? '';
    return pending === '' ? null : textCode(deps, db, user, pending, 'phone_change', 'sms', ip);
  });
  return texted === null || texted.messageId === '' ? {} : { message_id: texted.messageId };
}

/** Confirmation link again for a still unconfirmed address. */
async function resendConfirmation(deps: AuthDeps, email: string, redirectTo: string | null, ip: string | null, now: Date): Promise<void> {
  const token = await inTransaction(deps.ctx.adminPool, async (db) => {
    const user = await findUserByEmail(db, email);
    if (user === null || user.email_confirmed_at !== null) return null;
    await updateUser(db, user.id, { confirmation_sent_at: now }, now);
    await writeAudit(db, { event: 'user_confirmation_requested', userId: user.id, ip, payload: { email, via: 'resend' }, at: now });
    return issueOneTimeToken(db, user.id, 'confirmation', now);
  });
  if (token !== null) mailLink(deps, { kind: 'confirmation', to: email, issued: token, redirectTo });
}

/** E-mail change link again, to the pending new address of the account with this (current) address, as GoTrue. */
async function resendEmailChange(deps: AuthDeps, email: string, redirectTo: string | null, ip: string | null, now: Date): Promise<void> {
  const reissued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const user = await findUserByEmail(db, email);
    return user === null ? null : reissueEmailChange(db, user, deps.ctx.settings['auth.secure_email_change'], ip, now);
  });
  if (reissued !== null) mailEmailChange(deps, { account: email, ...reissued, redirectTo });
}

/**
 * auth-js `resend({type, email})`: a fresh link for a pending sign-up or e-mail
 * change, answered the same whatever the address, like /recover; `resend({type, phone})`
 * a fresh texted code.
 */
export function registerResend(router: Router, deps: AuthDeps): void {
  router.post(
    '/resend',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'resend');
      const body: ResendFields = bodyOf(req);
      const type = acceptResendType(body.type);
      if (type === 'sms' && isBlank(body.phone)) throw authErrors.validation('Type provided requires a phone number');
      if (!isBlank(body.email) && !isBlank(body.phone)) throw authErrors.validation('Only an email address or phone number should be provided.');
      if (type === 'sms' || type === 'phone_change') {
        res.status(200).json(await resendText(deps, type, body, clientIp(req)));
        return;
      }
      const email = acceptEmail(body.email);
      const redirectTo = acceptRedirect(req, deps);
      const ip = clientIp(req);
      const now = deps.now();
      if (type === 'signup') {
        inBackground(deps, 'confirmation resend', () => resendConfirmation(deps, email, redirectTo, ip, now));
        res.status(200).json({ message: RESEND_MESSAGE });
        return;
      }
      inBackground(deps, 'e-mail change resend', () => resendEmailChange(deps, email, redirectTo, ip, now));
      res.status(200).json({ message: RESEND_EMAIL_CHANGE_MESSAGE });
    }),
  );
}

import type { Router } from 'express';
import { writeAudit } from '../audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { authErrors } from '../errors.js';
import { bodyOf, enforceRateLimit, handle, inBackground } from '../http.js';
import { mailEmailChange, mailLink } from '../mail-out.js';
import { issueOneTimeToken } from '../one-time-tokens.js';
import { reissueEmailChange } from '../email-change.js';
import { clientIp, requireApiKey } from '../request-auth.js';
import { findUserByEmail, updateUser } from '../users.js';
import { acceptEmail, acceptRedirect } from './signup.js';

export const RESEND_MESSAGE = 'If this e-mail address awaits confirmation, a new confirmation link has been sent to it';
export const RESEND_EMAIL_CHANGE_MESSAGE = 'If this account has an e-mail change waiting, a new link has been sent to the new address';

type ResendType = 'signup' | 'email_change';

function acceptResendType(value: unknown): ResendType {
  if (value === 'signup' || value === 'email_change') return value;
  throw authErrors.validation('Resend supports type signup or email_change');
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
 * change, answered the same whatever the address, like /recover.
 */
export function registerResend(router: Router, deps: AuthDeps): void {
  router.post(
    '/resend',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'resend');
      const body = bodyOf(req);
      const type = acceptResendType(body.type);
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

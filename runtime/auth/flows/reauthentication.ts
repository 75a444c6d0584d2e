import type { Queryable } from '../../db/transaction.js';
import type { ProjectSettings } from '../../platform/project-context.js';
import { writeAudit } from '../storage/audit.js';
import { AuthError } from '../http/errors.js';
import { consumeUserTokens, findOneTimeTokenByCode, issueOneTimeToken, type IssuedOneTimeToken } from '../storage/one-time-tokens.js';
import type { SessionRow } from '../storage/sessions.js';
import type { UserRow } from '../storage/user-json.js';
import { updateUser } from '../storage/users.js';

/**
 * Reauthentication as GoTrue does it: GET /reauthenticate mails a nonce (a code);
 * with the setting on, a session older than a day changes its password only with it.
 */

/** GoTrue's SMTP_MAX_FREQUENCY default: one nonce mail per user and minute. */
export const NONCE_MAIL_INTERVAL_SECONDS = 60;
/** A session this young counts as a recent sign-in and needs no nonce. */
export const RECENT_SIGN_IN_SECONDS = 24 * 3600;

export const reauthenticationErrors = {
  notConfirmed: (): AuthError => new AuthError(422, 'email_not_confirmed', 'Please verify your email first.'),
  phoneNotConfirmed: (): AuthError => new AuthError(422, 'phone_not_confirmed', 'Please verify your phone first.'),
  tooSoon: (seconds: number, texted = false): AuthError =>
    new AuthError(429, texted ? 'over_sms_send_rate_limit' : 'over_email_send_rate_limit', `For security purposes, you can only request this after ${seconds} seconds.`),
  needed: (): AuthError => new AuthError(400, 'reauthentication_needed', 'Password update requires reauthentication'),
  notValid: (): AuthError => new AuthError(422, 'reauthentication_not_valid', 'Nonce has expired or is invalid'),
} as const;

/**
 * Issues a nonce for the user (earlier ones stop working), refusing a second one within the mail
 * interval; a user without an address gets it by text, so its number must be confirmed (GoTrue).
 */
export async function issueNonce(db: Queryable, user: UserRow, settings: ProjectSettings, ip: string | null, now: Date): Promise<IssuedOneTimeToken> {
  const texted = (user.email ?? '') === '';
  if (texted && (user.phone_confirmed_at ?? null) === null) throw reauthenticationErrors.phoneNotConfirmed();
  if (!texted && user.email_confirmed_at === null) throw reauthenticationErrors.notConfirmed();
  const last = user.reauthentication_sent_at ?? null;
  if (last !== null) {
    const left = Math.trunc((last.getTime() + NONCE_MAIL_INTERVAL_SECONDS * 1000 - now.getTime()) / 1000);
    if (left > 0) throw reauthenticationErrors.tooSoon(left, texted);
  }
  await updateUser(db, user.id, { reauthentication_sent_at: now }, now);
  await writeAudit(db, { event: 'user_reauthenticate_requested', userId: user.id, ip, at: now });
  return issueOneTimeToken(db, user.id, 'reauthentication', now, { lifetimeSeconds: settings['auth.otp_expiry'] });
}

/** Whether this password change must carry a nonce. */
export function nonceRequired(settings: ProjectSettings, session: SessionRow | null, now: Date): boolean {
  // GoTrue: without a session there is no recent sign-in to rely on.
  if (!settings['auth.update_password_require_reauthentication']) return false;
  return session === null || session.created_at.getTime() + RECENT_SIGN_IN_SECONDS * 1000 < now.getTime();
}

/** Uses up the nonce inside the password change's transaction: valid once. */
export async function consumeNonce(db: Queryable, userId: string, nonce: string, now: Date): Promise<void> {
  if ((await findOneTimeTokenByCode(db, userId, nonce, 'reauthentication', now)) === null) throw reauthenticationErrors.notValid();
  await consumeUserTokens(db, userId, now, 'reauthentication');
}

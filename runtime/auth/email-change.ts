import type { Queryable } from '../db/transaction.js';
import { writeAudit } from './audit.js';
import { authErrors } from './errors.js';
import { createFlowState } from './flow-state.js';
import { consumeUserTokens, issueOneTimeToken, type IssuedOneTimeToken } from './one-time-tokens.js';
import type { PkceChallenge } from './pkce.js';
import type { UserRow } from './user-json.js';
import { DuplicateEmailError, findUserByEmail, linkAnonymous, updateUser, type UserChange } from './users.js';

/**
 * Changing a signed-in user's e-mail address (PUT /user {email}), as GoTrue does
 * with "secure email change" off: only the new address confirms. The request
 * needs a live session of the account, and the link proves the new address.
 */

export interface EmailChangeRequest {
  readonly newEmail: string;
  /** The project's `auth.autoconfirm`: change at once, no mail. */
  readonly immediate: boolean;
  /** The PKCE flow the client started with the request, ended by the link. */
  readonly pkce: PkceChallenge | null;
  readonly ip: string | null;
  readonly now: Date;
}

export interface EmailChangeOutcome {
  readonly user: UserRow;
  /** The link token to mail to the new address; null when the change is already done. */
  readonly token: IssuedOneTimeToken | null;
}

type Step = 'requested' | 'resent' | 'changed' | 'confirmed';

function audit(db: Queryable, user: UserRow, step: Step, newEmail: string, ip: string | null, now: Date): Promise<void> {
  const done = step === 'changed' || step === 'confirmed';
  return writeAudit(db, {
    event: 'user_modified',
    userId: user.id,
    ip,
    payload: { fields: ['email'], email_change: step, ...(done ? { old_email: user.email } : {}), new_email: newEmail },
    at: now,
  });
}

async function change(db: Queryable, userId: string, columns: UserChange, now: Date): Promise<UserRow | null> {
  try {
    return await updateUser(db, userId, columns, now);
  } catch (error) {
    throw error instanceof DuplicateEmailError ? authErrors.emailExists() : error;
  }
}

/** Sets the new address: the change is proven, so pending links (also recovery links to the old address) stop working. */
async function apply(db: Queryable, user: UserRow, newEmail: string, ip: string | null, now: Date, via: 'immediate' | 'link'): Promise<UserRow> {
  const updated = await change(
    db,
    user.id,
    { email: newEmail, new_email: null, email_change_sent_at: null, email_confirmed_at: user.email_confirmed_at ?? now, ...linkAnonymous(user, true) },
    now,
  );
  await consumeUserTokens(db, user.id, now);
  await audit(db, user, via === 'immediate' ? 'changed' : 'confirmed', newEmail, ip, now);
  return updated ?? user;
}

export async function requestEmailChange(db: Queryable, user: UserRow, request: EmailChangeRequest): Promise<EmailChangeOutcome> {
  const { newEmail, ip, now } = request;
  const holder = await findUserByEmail(db, newEmail);
  if (holder !== null && holder.id !== user.id) throw authErrors.emailExists();
  if (request.immediate) return { user: await apply(db, user, newEmail, ip, now, 'immediate'), token: null };
  const updated = await change(db, user.id, { new_email: newEmail, email_change_sent_at: now }, now);
  await audit(db, user, 'requested', newEmail, ip, now);
  const flowStateId = request.pkce === null ? null : await createFlowState(db, user.id, 'email_change', request.pkce, now);
  return { user: updated ?? user, token: await issueOneTimeToken(db, user.id, 'email_change', now, { flowStateId }) };
}

export interface ReissuedEmailChange {
  readonly newEmail: string;
  readonly token: IssuedOneTimeToken;
}

/** A fresh link for a pending change (auth-js `resend({type: 'email_change'})`); null when none is pending. */
export async function reissueEmailChange(db: Queryable, user: UserRow, ip: string | null, now: Date): Promise<ReissuedEmailChange | null> {
  const newEmail = user.new_email ?? null;
  if (newEmail === null) return null;
  await change(db, user.id, { email_change_sent_at: now }, now);
  await audit(db, user, 'resent', newEmail, ip, now);
  return { newEmail, token: await issueOneTimeToken(db, user.id, 'email_change', now) };
}

/**
 * Columns that drop a pending change whose link was voided (a new password or an
 * admin-set address voids pending links). Empty when nothing is pending, so it
 * never names columns an older database may lack.
 */
export function cancelPendingEmailChange(user: UserRow): UserChange {
  return user.new_email ? { new_email: null, email_change_sent_at: null } : {};
}

/** The e-mail change link was followed: the pending address becomes the account's. */
export async function confirmEmailChange(db: Queryable, user: UserRow, ip: string | null, now: Date): Promise<UserRow> {
  const newEmail = user.new_email ?? null;
  if (newEmail === null) throw authErrors.otpExpired();
  return apply(db, user, newEmail, ip, now, 'link');
}

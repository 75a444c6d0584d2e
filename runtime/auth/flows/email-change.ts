import type { Queryable } from '../../db/transaction.js';
import { writeAudit } from '../storage/audit.js';
import { authErrors } from '../http/errors.js';
import { createFlowState } from '../storage/flow-state.js';
import { consumeUserTokens, issueOneTimeToken, type IssuedOneTimeToken } from '../storage/one-time-tokens.js';
import type { PkceChallenge } from '../credentials/pkce.js';
import type { UserRow } from '../storage/user-json.js';
import { DuplicateEmailError, findUserByEmail, linkAnonymous, updateUser, type UserChange } from '../storage/users.js';

/**
 * Changing a signed-in user's e-mail address (PUT /user {email}), as GoTrue does. With
 * secure e-mail change (`auth.secure_email_change`, GoTrue's default) an account that has
 * an address gets a token at each address, and the change happens once both are used;
 * otherwise (or for an anonymous account linking its first address) the new one alone confirms.
 */

export interface EmailChangeRequest {
  readonly newEmail: string;
  /** The project's `auth.autoconfirm`: change at once, no mail. */
  readonly immediate: boolean;
  /** The project's `auth.secure_email_change`. */
  readonly secure: boolean;
  /** admin/generate_link: issue this one token and leave the other address's (if any) valid, as GoTrue. */
  readonly only?: ChangeTokenType;
  /** The PKCE flow the client started with the request, ended by the link. */
  readonly pkce: PkceChallenge | null;
  readonly ip: string | null;
  readonly now: Date;
}

export interface EmailChangeOutcome {
  readonly user: UserRow;
  /** The link token to mail to the new address; null when the change is already done. */
  readonly token: IssuedOneTimeToken | null;
  /** The link token to mail to the current address (secure e-mail change); null when it does not confirm. */
  readonly currentToken: IssuedOneTimeToken | null;
}

export type ChangeTokenType = 'email_change' | 'email_change_current';

type Step = 'requested' | 'resent' | 'changed' | 'confirmed_one' | 'confirmed';

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
    {
      email: newEmail,
      new_email: null,
      email_change_sent_at: null,
      email_change_confirm_status: 0,
      email_confirmed_at: user.email_confirmed_at ?? now,
      ...linkAnonymous(user, true),
    },
    now,
  );
  await consumeUserTokens(db, user.id, now);
  await audit(db, user, via === 'immediate' ? 'changed' : 'confirmed', newEmail, ip, now);
  return updated ?? user;
}

/** Whether the current address confirms the change too: it needs one to receive a token. */
function currentConfirms(user: UserRow, secure: boolean): boolean {
  return secure && user.email !== null && user.email !== '';
}

/** Both tokens of a pending change (earlier ones stop working), and the confirmations start over. */
async function issueChangeTokens(
  db: Queryable,
  user: UserRow,
  secure: boolean,
  flowStateId: string | null,
  now: Date,
): Promise<{ readonly token: IssuedOneTimeToken; readonly currentToken: IssuedOneTimeToken | null }> {
  const token = await issueOneTimeToken(db, user.id, 'email_change', now, { flowStateId });
  const currentToken = currentConfirms(user, secure) ? await issueOneTimeToken(db, user.id, 'email_change_current', now, { flowStateId }) : null;
  return { token, currentToken };
}

export async function requestEmailChange(db: Queryable, user: UserRow, request: EmailChangeRequest): Promise<EmailChangeOutcome> {
  const { newEmail, ip, now } = request;
  const holder = await findUserByEmail(db, newEmail);
  if (holder !== null && holder.id !== user.id) throw authErrors.emailExists();
  if (request.immediate) return { user: await apply(db, user, newEmail, ip, now, 'immediate'), token: null, currentToken: null };
  const updated = await change(db, user.id, { new_email: newEmail, email_change_sent_at: now, email_change_confirm_status: 0 }, now);
  await audit(db, user, 'requested', newEmail, ip, now);
  const flowStateId = request.pkce === null ? null : await createFlowState(db, user.id, 'email_change', request.pkce, now);
  if (request.only !== undefined) {
    const issued = await issueOneTimeToken(db, user.id, request.only, now, { flowStateId });
    return { user: updated ?? user, token: request.only === 'email_change' ? issued : null, currentToken: request.only === 'email_change' ? null : issued };
  }
  return { user: updated ?? user, ...(await issueChangeTokens(db, user, request.secure, flowStateId, now)) };
}

export interface ReissuedEmailChange {
  readonly newEmail: string;
  readonly token: IssuedOneTimeToken;
  readonly currentToken: IssuedOneTimeToken | null;
}

/** Fresh links for a pending change (auth-js `resend({type: 'email_change'})`); null when none is pending. */
export async function reissueEmailChange(db: Queryable, user: UserRow, secure: boolean, ip: string | null, now: Date): Promise<ReissuedEmailChange | null> {
  const newEmail = user.new_email ?? null;
  if (newEmail === null) return null;
  await change(db, user.id, { email_change_sent_at: now, email_change_confirm_status: 0 }, now);
  await audit(db, user, 'resent', newEmail, ip, now);
  const { token, currentToken } = await issueChangeTokens(db, user, secure, null, now);
  return { newEmail, token, currentToken };
}

/**
 * Columns that drop a pending change whose link was voided (a new password or an
 * admin-set address voids pending links). Empty when nothing is pending, so it
 * never names columns an older database may lack.
 */
export function cancelPendingEmailChange(user: UserRow): UserChange {
  return user.new_email ? { new_email: null, email_change_sent_at: null, email_change_confirm_status: 0 } : {};
}

/** What following one e-mail change token did. */
export interface EmailChangeConfirmation {
  readonly user: UserRow;
  /** False: this address confirmed, the other one has yet to (GoTrue's "Confirmation link accepted" answer). */
  readonly changed: boolean;
}

/**
 * An e-mail change token was followed. With secure e-mail change the first of the two
 * tokens only records the confirmation (that token is used up); the second makes the
 * pending address the account's, as GoTrue's emailChangeVerify.
 */
export async function confirmEmailChange(
  db: Queryable,
  user: UserRow,
  used: ChangeTokenType,
  secure: boolean,
  ip: string | null,
  now: Date,
): Promise<EmailChangeConfirmation> {
  const newEmail = user.new_email ?? null;
  if (newEmail === null) throw authErrors.otpExpired();
  if (currentConfirms(user, secure) && (user.email_change_confirm_status ?? 0) === 0) {
    await consumeUserTokens(db, user.id, now, used);
    const updated = await change(db, user.id, { email_change_confirm_status: 1 }, now);
    await audit(db, user, 'confirmed_one', newEmail, ip, now);
    return { user: updated ?? user, changed: false };
  }
  return { user: await apply(db, user, newEmail, ip, now, 'link'), changed: true };
}

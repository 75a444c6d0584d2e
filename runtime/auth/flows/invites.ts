import type { Queryable } from '../../db/transaction.js';
import { writeAudit } from '../storage/audit.js';
import { authErrors } from '../http/errors.js';
import { issueOneTimeToken, type IssuedOneTimeToken } from '../storage/one-time-tokens.js';
import type { UserRow } from '../storage/user-json.js';
import { DuplicateEmailError, EMAIL_APP_METADATA, findUserByEmail, insertUser, updateUser } from '../storage/users.js';

export interface InviteRequest {
  readonly email: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** The admin role that invited, for the audit log. */
  readonly actor: string;
  readonly ip: string | null;
  readonly now: Date;
}

export interface Invitation {
  readonly user: UserRow;
  readonly issued: IssuedOneTimeToken;
}

/** A new unconfirmed e-mail account created by an admin; an address taken meanwhile is email_exists. */
export function insertUnconfirmed(
  db: Queryable,
  email: string,
  passwordHash: string | null,
  userMetadata: Readonly<Record<string, unknown>>,
  now: Date,
): Promise<UserRow> {
  return insertUser(db, {
    email,
    passwordHash,
    userMetadata,
    appMetadata: EMAIL_APP_METADATA,
    emailConfirmedAt: null,
    confirmationSentAt: now,
    bannedUntil: null,
    now,
  }).catch((error: unknown) => {
    throw error instanceof DuplicateEmailError ? authErrors.emailExists() : error;
  });
}

/**
 * GoTrue's invite: a new password-less, unconfirmed account (or the unconfirmed
 * one the address has) gets a confirmation token and invited_at; a confirmed
 * address is refused with email_exists. Following the link confirms and signs in.
 */
export async function invite(db: Queryable, request: InviteRequest): Promise<Invitation> {
  const { email, now } = request;
  let user = await findUserByEmail(db, email);
  if (user !== null && user.email_confirmed_at !== null) throw authErrors.emailExists();
  user ??= await insertUnconfirmed(db, email, null, request.data, now);
  const invited = (await updateUser(db, user.id, { invited_at: now, confirmation_sent_at: now }, now)) ?? user;
  await writeAudit(db, { event: 'user_invited', userId: user.id, ip: request.ip, payload: { email, actor: request.actor }, at: now });
  return { user: invited, issued: await issueOneTimeToken(db, user.id, 'confirmation', now) };
}

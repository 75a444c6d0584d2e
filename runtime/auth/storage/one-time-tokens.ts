import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/transaction.js';
import { generateOpaqueToken, hashToken, looksLikeOpaqueToken, tokenHashesEqual } from '../credentials/opaque-tokens.js';

/**
 * `email_change` goes to the new address, `email_change_current` (secure e-mail change) to the current one;
 * `sms` is a code texted to confirm or sign in with a phone number, `phone_change` one texted to a new number.
 */
export type OneTimeTokenType = 'confirmation' | 'recovery' | 'email_change' | 'email_change_current' | 'magiclink' | 'reauthentication' | 'sms' | 'phone_change';

/** Lifetimes when the caller names none; magic links and codes take the project's `auth.otp_expiry`. */
export const ONE_TIME_TOKEN_LIFETIME_SECONDS: Readonly<Record<OneTimeTokenType, number>> = {
  confirmation: 24 * 3600,
  recovery: 3600,
  // GoTrue's MAILER_OTP_EXP, as for confirmation links.
  email_change: 24 * 3600,
  email_change_current: 24 * 3600,
  magiclink: 3600,
  reauthentication: 3600,
  // GoTrue's SMS_OTP_EXP default; the project's auth.sms.otp_exp is passed in.
  sms: 60,
  phone_change: 60,
};

/** GoTrue's prefix of link tokens that end a PKCE flow: the link then redirects with `?code=`. */
export const PKCE_TOKEN_PREFIX = 'pkce_';

export interface IssuedOneTimeToken {
  /** The link's token (`pkce_`-prefixed in a PKCE flow). */
  readonly token: string;
  /** The 6-digit code mailed with the link: GoTrue's `{{ .Token }}`, verified with the address. */
  readonly code: string;
  readonly lifetimeSeconds: number;
  /** Whose token it is: the send-email hook is given the account. */
  readonly userId: string;
}

export interface IssueOptions {
  readonly lifetimeSeconds?: number;
  /** The PKCE flow this link ends. */
  readonly flowStateId?: string | null;
  /** The code to accept, when the caller chose it (an SMS code of the project's length, a test OTP). */
  readonly code?: string;
}

/** Random digits, six by default as GoTrue's MAILER_OTP_LENGTH; SMS codes take the project's length. */
export function generateOtpCode(length = 6): string {
  return Array.from({ length }, () => String(randomInt(0, 10))).join('');
}

/** A code has only 10^6 values: hashed with its user's id, so one table of hashes does not fit every user. */
function hashCode(userId: string, code: string): string {
  return hashToken(`${userId}:${code}`);
}

/**
 * Issues a one-time token and its code; earlier unused tokens of the same type
 * for the user stop working, so only the latest mail's link and code are valid.
 */
export async function issueOneTimeToken(
  db: Queryable,
  userId: string,
  type: OneTimeTokenType,
  now: Date,
  options: IssueOptions = {},
): Promise<IssuedOneTimeToken> {
  const token = generateOpaqueToken();
  const code = options.code ?? generateOtpCode();
  const lifetimeSeconds = options.lifetimeSeconds ?? ONE_TIME_TOKEN_LIFETIME_SECONDS[type];
  const flowStateId = options.flowStateId ?? null;
  await db.query(
    `UPDATE auth.one_time_tokens SET consumed_at = $3 WHERE user_id = $1 AND token_type = $2 AND consumed_at IS NULL`,
    [userId, type, now],
  );
  await db.query(
    `INSERT INTO auth.one_time_tokens (user_id, token_type, token_hash, otp_hash, flow_state_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [userId, type, hashToken(token), hashCode(userId, code), flowStateId, now, new Date(now.getTime() + lifetimeSeconds * 1000)],
  );
  return { token: flowStateId === null ? token : `${PKCE_TOKEN_PREFIX}${token}`, code, lifetimeSeconds, userId };
}

export interface ValidOneTimeToken {
  readonly id: string;
  readonly userId: string;
  readonly type: OneTimeTokenType;
  readonly flowStateId: string | null;
}

interface TokenRow {
  readonly id: string;
  readonly user_id: string;
  readonly token_type: OneTimeTokenType;
  readonly token_hash: string;
  readonly flow_state_id: string | null;
}

function validToken(row: TokenRow): ValidOneTimeToken {
  return { id: row.id, userId: row.user_id, type: row.token_type, flowStateId: row.flow_state_id };
}

function typeList(type: OneTimeTokenType | readonly OneTimeTokenType[]): readonly OneTimeTokenType[] {
  return typeof type === 'string' ? [type] : type;
}

/** True for a link token of a PKCE flow, whether or not it is (still) valid. */
export function isPkceLinkToken(token: unknown): boolean {
  return typeof token === 'string' && token.startsWith(PKCE_TOKEN_PREFIX);
}

/** A usable (unconsumed, unexpired, right type) link token, row-locked when asked inside a transaction. */
export async function findOneTimeToken(
  db: Queryable,
  token: unknown,
  type: OneTimeTokenType | readonly OneTimeTokenType[],
  now: Date,
  forUpdate = false,
): Promise<ValidOneTimeToken | null> {
  const bare = isPkceLinkToken(token) ? (token as string).slice(PKCE_TOKEN_PREFIX.length) : token;
  if (!looksLikeOpaqueToken(bare)) return null;
  const hash = hashToken(bare);
  const { rows } = await db.query<TokenRow>(
    `SELECT id, user_id, token_type, token_hash, flow_state_id FROM auth.one_time_tokens
     WHERE token_hash = $1 AND token_type = ANY($2::text[]) AND consumed_at IS NULL AND expires_at > $3${forUpdate ? ' FOR UPDATE' : ''}`,
    [hash, typeList(type), now],
  );
  const row = rows[0];
  if (row === undefined || !tokenHashesEqual(row.token_hash, hash)) return null;
  return validToken(row);
}

/** A usable token of the user whose mailed code this is (the newest when several types match). */
export async function findOneTimeTokenByCode(
  db: Queryable,
  userId: string,
  code: string,
  type: OneTimeTokenType | readonly OneTimeTokenType[],
  now: Date,
): Promise<ValidOneTimeToken | null> {
  const hash = hashCode(userId, code);
  const { rows } = await db.query<TokenRow & { otp_hash: string }>(
    `SELECT id, user_id, token_type, token_hash, otp_hash, flow_state_id FROM auth.one_time_tokens
     WHERE user_id = $1 AND otp_hash = $2 AND token_type = ANY($3::text[]) AND consumed_at IS NULL AND expires_at > $4
     ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [userId, hash, typeList(type), now],
  );
  const row = rows[0];
  if (row === undefined || !tokenHashesEqual(row.otp_hash, hash)) return null;
  return validToken(row);
}

/** Consumes every open token of the user (of one type, or all): single use, and a password change voids pending links. */
export async function consumeUserTokens(db: Queryable, userId: string, now: Date, type?: OneTimeTokenType): Promise<void> {
  await db.query(
    `UPDATE auth.one_time_tokens SET consumed_at = $2
     WHERE user_id = $1 AND consumed_at IS NULL${type === undefined ? '' : ' AND token_type = $3'}`,
    type === undefined ? [userId, now] : [userId, now, type],
  );
}

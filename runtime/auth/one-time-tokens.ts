import type { Queryable } from '../db/transaction.js';
import { generateOpaqueToken, hashToken, looksLikeOpaqueToken, tokenHashesEqual } from './opaque-tokens.js';

export type OneTimeTokenType = 'confirmation' | 'recovery' | 'email_change';

export const ONE_TIME_TOKEN_LIFETIME_SECONDS: Readonly<Record<OneTimeTokenType, number>> = {
  confirmation: 24 * 3600,
  recovery: 3600,
  // GoTrue's MAILER_OTP_EXP, as for confirmation links.
  email_change: 24 * 3600,
};

/**
 * Issues a one-time token; earlier unused tokens of the same type
 * for the user stop working, so only the latest mail's link is valid.
 */
export async function issueOneTimeToken(db: Queryable, userId: string, type: OneTimeTokenType, now: Date): Promise<string> {
  const token = generateOpaqueToken();
  await db.query(
    `UPDATE auth.one_time_tokens SET consumed_at = $3 WHERE user_id = $1 AND token_type = $2 AND consumed_at IS NULL`,
    [userId, type, now],
  );
  await db.query(
    `INSERT INTO auth.one_time_tokens (user_id, token_type, token_hash, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [userId, type, hashToken(token), now, new Date(now.getTime() + ONE_TIME_TOKEN_LIFETIME_SECONDS[type] * 1000)],
  );
  return token;
}

export interface ValidOneTimeToken {
  readonly id: string;
  readonly userId: string;
}

/** A usable (unconsumed, unexpired, right type) token, row-locked when asked inside a transaction. */
export async function findOneTimeToken(
  db: Queryable,
  token: unknown,
  type: OneTimeTokenType,
  now: Date,
  forUpdate = false,
): Promise<ValidOneTimeToken | null> {
  if (!looksLikeOpaqueToken(token)) return null;
  const hash = hashToken(token);
  const { rows } = await db.query<{ id: string; user_id: string; token_hash: string }>(
    `SELECT id, user_id, token_hash FROM auth.one_time_tokens
     WHERE token_hash = $1 AND token_type = $2 AND consumed_at IS NULL AND expires_at > $3${forUpdate ? ' FOR UPDATE' : ''}`,
    [hash, type, now],
  );
  const row = rows[0];
  if (row === undefined || !tokenHashesEqual(row.token_hash, hash)) return null;
  return { id: row.id, userId: row.user_id };
}

/** Consumes every open token of the user (of one type, or all): single use, and a password change voids pending links. */
export async function consumeUserTokens(db: Queryable, userId: string, now: Date, type?: OneTimeTokenType): Promise<void> {
  await db.query(
    `UPDATE auth.one_time_tokens SET consumed_at = $2
     WHERE user_id = $1 AND consumed_at IS NULL${type === undefined ? '' : ' AND token_type = $3'}`,
    type === undefined ? [userId, now] : [userId, now, type],
  );
}

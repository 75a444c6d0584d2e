import type pg from 'pg';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import { writeAudit } from './audit.js';
import {
  generateOpaqueToken,
  hashToken,
  openChildToken,
  sealChildToken,
  tokenHashesEqual,
} from '../credentials/opaque-tokens.js';
import type { UserRow } from './user-json.js';
import { findUserById, isBanned } from './users.js';

/** How a session was opened (the amr claim); PKCE exchanges name the flow as GoTrue does (`email/signup`, `magiclink`, `invite`). */
export type AmrMethod =
  | 'password'
  | 'recovery'
  | 'otp'
  | 'email_change'
  | 'email/signup'
  | 'magiclink'
  | 'invite'
  | 'anonymous'
  | 'passkey'
  | 'oauth'
  | 'oauth_provider/authorization_code';
/** Why sessions end; `code_replay`: the OAuth authorization code that opened it was presented again. */
export type RevokeReason = 'logout' | 'password' | 'admin' | 'reuse' | 'code_replay';
export type LogoutScope = 'global' | 'local' | 'others';

export interface SessionRow {
  readonly id: string;
  readonly user_id: string;
  readonly aal: string;
  readonly amr_method: string;
  readonly created_at: Date;
  readonly revoked_at: Date | null;
  readonly revoked_reason: string | null;
  /** The MFA factor the session reached aal2 with, and when (absent before project migration 005). */
  readonly factor_id?: string | null;
  readonly mfa_verified_at?: Date | null;
  /** That factor's type (absent before project migration 009; null there means totp). */
  readonly mfa_method?: string | null;
  /** The third-party OAuth client the session's tokens were issued to, and the scopes granted it (project migration 010). */
  readonly oauth_client_id?: string | null;
  readonly scopes?: string | null;
}

export interface IssuedSession {
  readonly session: SessionRow;
  readonly refreshToken: string;
}

async function insertRefreshToken(
  db: Queryable,
  userId: string,
  sessionId: string,
  parentId: string | null,
  now: Date,
): Promise<string> {
  const token = generateOpaqueToken();
  await db.query(
    `INSERT INTO auth.refresh_tokens (token_hash, user_id, session_id, parent_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5)`,
    [hashToken(token), userId, sessionId, parentId, now],
  );
  return token;
}

/** The third-party client a session is opened for by the OAuth server's code exchange, and the scopes it was granted. */
export interface OAuthGrant {
  readonly clientId: string;
  readonly scopes: string;
}

/** A new session (sign-in, confirmation, recovery, an OAuth client's code exchange) with its first refresh token. */
export async function openSession(db: Queryable, userId: string, method: AmrMethod, now: Date, grant: OAuthGrant | null = null): Promise<IssuedSession> {
  const { rows } = await db.query<SessionRow>(
    `INSERT INTO auth.sessions (user_id, amr_method, created_at, updated_at${grant === null ? '' : ', oauth_client_id, scopes'})
     VALUES ($1, $2, $3, $3${grant === null ? '' : ', $4, $5'}) RETURNING *`,
    grant === null ? [userId, method, now] : [userId, method, now, grant.clientId, grant.scopes],
  );
  const session = rows[0] as SessionRow;
  return { session, refreshToken: await insertRefreshToken(db, userId, session.id, null, now) };
}

export async function findLiveSession(db: Queryable, sessionId: string): Promise<SessionRow | null> {
  const { rows } = await db.query<SessionRow>('SELECT * FROM auth.sessions WHERE id = $1 AND revoked_at IS NULL', [sessionId]);
  return rows[0] ?? null;
}

/** Revokes sessions of a user and every refresh token in them; returns how many sessions. */
export async function revokeSessions(
  db: Queryable,
  userId: string,
  scope: LogoutScope,
  currentSessionId: string | null,
  reason: RevokeReason,
  now: Date,
): Promise<number> {
  const filter = scope === 'global' ? '' : scope === 'local' ? ' AND id = $4' : ' AND id <> $4';
  const values: unknown[] = [userId, now, reason];
  if (scope !== 'global') values.push(currentSessionId);
  const { rows } = await db.query<{ id: string }>(
    `UPDATE auth.sessions SET revoked_at = $2, revoked_reason = $3, updated_at = $2
     WHERE user_id = $1 AND revoked_at IS NULL${filter} RETURNING id`,
    values,
  );
  await revokeRefreshTokens(db, rows.map((r) => r.id), now);
  return rows.length;
}

/** Revokes the sessions a third-party OAuth client holds: of one user (a withdrawn grant) or of everyone (a deleted client). */
export async function revokeOAuthClientSessions(db: Queryable, clientId: string, userId: string | null, now: Date): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE auth.sessions SET revoked_at = $3, revoked_reason = 'oauth_revoked', updated_at = $3
     WHERE oauth_client_id = $1 AND ($2::uuid IS NULL OR user_id = $2) AND revoked_at IS NULL RETURNING id`,
    [clientId, userId, now],
  );
  await revokeRefreshTokens(db, rows.map((r) => r.id), now);
  return rows.length;
}

async function revokeRefreshTokens(db: Queryable, sessionIds: readonly string[], now: Date): Promise<void> {
  if (sessionIds.length === 0) return;
  await db.query(
    `UPDATE auth.refresh_tokens SET revoked = true, revoked_at = coalesce(revoked_at, $2), updated_at = $2
     WHERE session_id = ANY($1::uuid[]) AND NOT revoked`,
    [sessionIds, now],
  );
}

/** After an MFA verification GoTrue ends the user's sessions below aal2 (other devices signed in without the factor). */
export async function revokeAal1Sessions(db: Queryable, userId: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE auth.sessions SET revoked_at = $2, revoked_reason = 'mfa', updated_at = $2
     WHERE user_id = $1 AND revoked_at IS NULL AND aal = 'aal1' RETURNING id`,
    [userId, now],
  );
  await revokeRefreshTokens(db, rows.map((r) => r.id), now);
  return rows.length;
}

/**
 * A fresh refresh token for a session whose level just changed (MFA verification): every
 * earlier token of the session is revoked without a successor, so a token issued at aal1
 * can never be exchanged for the aal2 session (presenting one is reuse).
 */
export async function replaceRefreshToken(db: Queryable, session: SessionRow, now: Date): Promise<string> {
  await revokeRefreshTokens(db, [session.id], now);
  return insertRefreshToken(db, session.user_id, session.id, null, now);
}

interface TokenRow {
  readonly id: string;
  readonly token_hash: string;
  readonly user_id: string;
  readonly session_id: string;
  readonly revoked: boolean;
  readonly revoked_at: Date | null;
  readonly child_sealed: string | null;
}

export type RefreshOutcome =
  | { readonly kind: 'rotated' | 'reused_in_window'; readonly user: UserRow; readonly session: SessionRow; readonly refreshToken: string }
  | { readonly kind: 'not_found' | 'banned' | 'session_revoked' | 'already_used'; readonly userId: string | null }
  /** The session belongs to another OAuth client than the one refreshing (none standing for the project's own apps). */
  | { readonly kind: 'client_mismatch'; readonly userId: string; readonly sessionClientId: string | null };

/** Deep enough for any realistic number of tabs refreshing inside one grace window. */
const MAX_CHAIN_WALK = 64;

async function liveDescendant(db: Queryable, start: TokenRow, startToken: string): Promise<string | null> {
  let row = start;
  let token = startToken;
  for (let depth = 0; depth < MAX_CHAIN_WALK; depth += 1) {
    if (row.child_sealed === null) return null;
    const child = openChildToken(token, row.child_sealed);
    if (child === null) return null;
    const { rows } = await db.query<TokenRow>('SELECT * FROM auth.refresh_tokens WHERE token_hash = $1', [hashToken(child)]);
    const next = rows[0];
    if (next === undefined || next.session_id !== start.session_id) return null;
    if (!next.revoked) return child;
    row = next;
    token = child;
  }
  return null;
}

/**
 * The refresh_token grant. The session row is locked first, so every refresh of
 * one session is serialised: of N concurrent refreshes with one token exactly one
 * rotates. A rotated token presented again is reuse: inside the project's grace
 * window it gets the session's current token (recovered from the sealed chain),
 * otherwise the whole session is revoked and the reuse is refused. A session an OAuth
 * client holds is refreshed only by that client (`clientId`), as GoTrue.
 */
export async function refreshSession(
  pool: pg.Pool,
  presented: string,
  reuseIntervalSeconds: number,
  now: Date,
  ip: string | null,
  clientId: string | null = null,
): Promise<RefreshOutcome> {
  const presentedHash = hashToken(presented);
  return inTransaction(pool, async (db) => {
    // One round trip: the presented token's session, locked (token_hash is unique).
    const sessions = await db.query<SessionRow>(
      'SELECT * FROM auth.sessions WHERE id = (SELECT session_id FROM auth.refresh_tokens WHERE token_hash = $1) FOR UPDATE',
      [presentedHash],
    );
    const session = sessions.rows[0];
    if (session === undefined) return { kind: 'not_found', userId: null };
    // Read again under the lock: a concurrent refresh of this session may have rotated it meanwhile.
    const tokens = await db.query<TokenRow>('SELECT * FROM auth.refresh_tokens WHERE token_hash = $1', [presentedHash]);
    const token = tokens.rows[0];
    if (token === undefined || !tokenHashesEqual(token.token_hash, presentedHash)) {
      return { kind: 'not_found', userId: null };
    }
    const user = await findUserById(db, token.user_id);
    if (user === null) return { kind: 'not_found', userId: null };
    if (isBanned(user, now)) return { kind: 'banned', userId: user.id };
    const sessionClientId = session.oauth_client_id ?? null;
    if (sessionClientId !== clientId) return { kind: 'client_mismatch', userId: user.id, sessionClientId };

    if (!token.revoked) {
      if (session.revoked_at !== null) return { kind: 'session_revoked', userId: user.id };
      const child = generateOpaqueToken();
      // The rotation's three writes in one statement: one round trip where three were awaited in turn.
      await db.query(
        `WITH rotated AS (
           UPDATE auth.refresh_tokens SET revoked = true, revoked_at = $2, child_sealed = $3, updated_at = $2 WHERE id = $1
         ), refreshed AS (
           UPDATE auth.sessions SET refreshed_at = $2, updated_at = $2 WHERE id = $5
         )
         INSERT INTO auth.refresh_tokens (token_hash, user_id, session_id, parent_id, created_at, updated_at)
         VALUES ($4, $6, $5, $1, $2, $2)`,
        [token.id, now, sealChildToken(presented, child), hashToken(child), session.id, user.id],
      );
      await writeAudit(db, { event: 'token_refreshed', userId: user.id, ip, payload: { session_id: session.id }, at: now });
      return { kind: 'rotated', user, session, refreshToken: child };
    }

    if (session.revoked_at !== null) {
      return session.revoked_reason === 'reuse' ? { kind: 'already_used', userId: user.id } : { kind: 'session_revoked', userId: user.id };
    }
    const revokedAt = token.revoked_at?.getTime() ?? 0;
    if (reuseIntervalSeconds > 0 && now.getTime() < revokedAt + reuseIntervalSeconds * 1000) {
      const current = await liveDescendant(db, token, presented);
      if (current !== null) return { kind: 'reused_in_window', user, session, refreshToken: current };
    }
    await revokeSessions(db, user.id, 'local', session.id, 'reuse', now);
    await writeAudit(db, { event: 'token_reuse_detected', userId: user.id, ip, payload: { session_id: session.id }, at: now });
    return { kind: 'already_used', userId: user.id };
  });
}

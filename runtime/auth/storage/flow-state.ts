import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/transaction.js';
import { AuthError } from '../http/errors.js';
import { hashToken } from '../credentials/opaque-tokens.js';
import { verifierMatches, type CodeChallengeMethod, type PkceChallenge } from '../credentials/pkce.js';

/**
 * PKCE flows started by a mail: the challenge is kept until the mail link is
 * followed, which hands out an auth code (stored hashed); POST /token
 * grant_type=pkce trades the code and the verifier for a session, once.
 */

/** GoTrue's AuthenticationMethod names: what started the flow, the session's amr after the exchange. */
export type FlowMethod = 'email/signup' | 'magiclink' | 'recovery' | 'email_change' | 'invite' | 'oauth';

/** GoTrue's FlowStateExpiryDuration: the auth code must be exchanged within 5 minutes of the link being followed. */
export const AUTH_CODE_LIFETIME_SECONDS = 300;

/** A new mail of a kind voids the earlier one's link, so the flow that link would have ended goes too. */
export async function createFlowState(db: Queryable, userId: string, method: FlowMethod, pkce: PkceChallenge, now: Date): Promise<string> {
  await db.query(`DELETE FROM auth.flow_state WHERE user_id = $1 AND authentication_method = $2 AND auth_code_hash IS NULL`, [userId, method]);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO auth.flow_state (user_id, authentication_method, code_challenge, code_challenge_method, created_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [userId, method, pkce.challenge, pkce.method, now],
  );
  return (rows[0] as { id: string }).id;
}

/** The link of the flow was followed: an auth code for the redirect, valid for AUTH_CODE_LIFETIME_SECONDS. */
export async function issueAuthCode(db: Queryable, flowStateId: string, now: Date): Promise<string> {
  const code = randomUUID();
  const { rowCount } = await db.query(
    `UPDATE auth.flow_state SET auth_code_hash = $2, auth_code_issued_at = $3 WHERE id = $1`,
    [flowStateId, hashToken(code), now],
  );
  if (rowCount !== 1) throw new AuthError(422, 'flow_state_not_found', 'No valid flow state found for user.');
  return code;
}

export interface ExchangedFlow {
  readonly userId: string;
  readonly method: FlowMethod;
  /** An OAuth flow's provider tokens, handed to the app with the session as GoTrue does. */
  readonly providerToken: string | null;
  readonly providerRefreshToken: string | null;
}

interface FlowRow {
  readonly id: string;
  readonly user_id: string;
  readonly authentication_method: FlowMethod;
  readonly code_challenge: string;
  readonly code_challenge_method: CodeChallengeMethod;
  readonly auth_code_issued_at: Date;
  readonly provider_access_token: string | null;
  readonly provider_refresh_token: string | null;
}

/**
 * Checks code and verifier in GoTrue's order and deletes the flow on success, so
 * a code works once; a wrong verifier leaves the flow for the right one.
 */
export async function exchangeAuthCode(db: Queryable, authCode: string, verifier: string, now: Date): Promise<ExchangedFlow> {
  const { rows } = await db.query<FlowRow>(
    `SELECT id, user_id, authentication_method, code_challenge, code_challenge_method, auth_code_issued_at,
            provider_access_token, provider_refresh_token
     FROM auth.flow_state WHERE auth_code_hash = $1 FOR UPDATE`,
    [hashToken(authCode)],
  );
  const flow = rows[0];
  if (flow === undefined) throw new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
  if (flow.auth_code_issued_at.getTime() + AUTH_CODE_LIFETIME_SECONDS * 1000 < now.getTime()) {
    throw new AuthError(422, 'flow_state_expired', 'invalid flow state, flow state has expired');
  }
  if (!verifierMatches({ challenge: flow.code_challenge, method: flow.code_challenge_method }, verifier)) {
    throw new AuthError(400, 'bad_code_verifier', 'code challenge does not match previously saved code verifier');
  }
  await db.query('DELETE FROM auth.flow_state WHERE id = $1', [flow.id]);
  return {
    userId: flow.user_id,
    method: flow.authentication_method,
    providerToken: flow.provider_access_token,
    providerRefreshToken: flow.provider_refresh_token,
  };
}


export interface OAuthFlow {
  readonly id: string;
  readonly provider_type: string;
  readonly code_challenge: string | null;
  readonly referrer: string | null;
  readonly linking_target_id: string | null;
  readonly user_id: string | null;
  readonly created_at: Date;
}

/** A redirect to a provider: its id is the OAuth `state`; PKCE when the app sent a challenge, implicit otherwise. */
export async function createOAuthFlow(
  db: Queryable,
  flow: { provider: string; pkce: PkceChallenge | null; referrer: string | null; linkingTargetId: string | null },
  now: Date,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO auth.flow_state (authentication_method, provider_type, code_challenge, code_challenge_method, referrer, linking_target_id, created_at)
     VALUES ('oauth', $1, $2, $3, $4, $5, $6) RETURNING id`,
    [flow.provider, flow.pkce?.challenge ?? null, flow.pkce?.method ?? null, flow.referrer, flow.linkingTargetId, now],
  );
  return (rows[0] as { id: string }).id;
}

export async function findOAuthFlow(db: Queryable, id: string): Promise<OAuthFlow | null> {
  const { rows } = await db.query<OAuthFlow>(
    `SELECT id, provider_type, code_challenge, referrer, linking_target_id, user_id, created_at
     FROM auth.flow_state WHERE id = $1 AND provider_type IS NOT NULL FOR UPDATE`,
    [id],
  );
  return rows[0] ?? null;
}

/** PKCE: the provider vouched for the user; the flow keeps the user and provider tokens until its code is exchanged. */
export async function completeOAuthFlow(db: Queryable, id: string, userId: string, tokens: { access: string; refresh: string }, now: Date): Promise<string> {
  await db.query(`UPDATE auth.flow_state SET user_id = $2, provider_access_token = $3, provider_refresh_token = $4 WHERE id = $1`, [
    id,
    userId,
    tokens.access,
    tokens.refresh === '' ? null : tokens.refresh,
  ]);
  return issueAuthCode(db, id, now);
}

export async function deleteFlow(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM auth.flow_state WHERE id = $1', [id]);
}

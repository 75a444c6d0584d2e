import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/transaction.js';
import { generateOpaqueToken, hashToken } from '../credentials/opaque-tokens.js';
import type { CodeChallengeMethod } from '../credentials/pkce.js';
import type { AuthorizeRequest } from './authorize-request.js';

/**
 * Authorization requests of the code flow and the consents users gave, in
 * auth.oauth_authorizations and auth.oauth_consents. A code exists only as its hash:
 * it is handed to the browser once, and the token request that presents it records the
 * session it opened on the row, so the code is spent and a replay of it is recognised.
 */

/** GoTrue's OAUTH_SERVER_AUTHORIZATION_TTL: the user has this long to consent and the client to exchange the code. */
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;

export type AuthorizationStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface AuthorizationRow {
  readonly id: string;
  readonly authorization_id: string;
  readonly client_id: string;
  readonly user_id: string | null;
  readonly redirect_uri: string;
  readonly scope: string;
  readonly state: string | null;
  readonly resource: string | null;
  readonly code_challenge: string;
  readonly code_challenge_method: CodeChallengeMethod;
  readonly nonce: string | null;
  readonly status: AuthorizationStatus;
  readonly expires_at: Date;
  /** The session the code's exchange opened; set, the code is spent. */
  readonly session_id: string | null;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** GoTrue's SecureAlphanumeric(32): the id the consent page is given (the modulo bias of 256 % 62 is irrelevant to an unguessable id of 190 bits). */
function authorizationIdOf(): string {
  return [...randomBytes(32)].map((byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

export async function insertAuthorization(db: Queryable, clientId: string, request: AuthorizeRequest, now: Date): Promise<AuthorizationRow> {
  const { rows } = await db.query<AuthorizationRow>(
    `INSERT INTO auth.oauth_authorizations (authorization_id, client_id, redirect_uri, scope, state, resource, code_challenge,
       code_challenge_method, nonce, created_at, expires_at)
     VALUES ($1, $2, $3, $4, nullif($5, ''), nullif($6, ''), $7, $8, nullif($9, ''), $10, $11) RETURNING *`,
    [
      authorizationIdOf(),
      clientId,
      request.redirectUri,
      request.scope,
      request.state,
      request.resource,
      request.codeChallenge,
      request.codeChallengeMethod,
      request.nonce,
      now,
      new Date(now.getTime() + AUTHORIZATION_TTL_MS),
    ],
  );
  return rows[0]!;
}

/** The request, locked for the rest of the transaction so two answers to it are serialised; one whose code was exchanged is gone. */
export async function lockAuthorization(db: Queryable, authorizationId: string): Promise<AuthorizationRow | null> {
  const { rows } = await db.query<AuthorizationRow>('SELECT * FROM auth.oauth_authorizations WHERE authorization_id = $1 AND session_id IS NULL FOR UPDATE', [
    authorizationId,
  ]);
  return rows[0] ?? null;
}

export async function setAuthorizationUser(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query('UPDATE auth.oauth_authorizations SET user_id = $2 WHERE id = $1', [id, userId]);
}

export async function markAuthorization(db: Queryable, id: string, status: 'denied' | 'expired'): Promise<void> {
  await db.query('UPDATE auth.oauth_authorizations SET status = $2 WHERE id = $1', [id, status]);
}

/** Approves the request and returns its code, stored only as its hash. */
export async function approveAuthorization(db: Queryable, id: string, now: Date): Promise<string> {
  const code = generateOpaqueToken();
  await db.query(`UPDATE auth.oauth_authorizations SET status = 'approved', approved_at = $2, authorization_code_hash = $3 WHERE id = $1`, [
    id,
    now,
    hashToken(code),
  ]);
  return code;
}

/** The approved request a code belongs to, spent or not, locked: of two exchanges of one code the second sees the first's session. */
export async function lockApprovedByCode(db: Queryable, code: string): Promise<AuthorizationRow | null> {
  const { rows } = await db.query<AuthorizationRow>(
    `SELECT * FROM auth.oauth_authorizations WHERE authorization_code_hash = $1 AND status = 'approved' FOR UPDATE`,
    [hashToken(code)],
  );
  return rows[0] ?? null;
}

/** Spends the code: it works once, and the session it opened is what a replay revokes. */
export async function spendAuthorization(db: Queryable, id: string, sessionId: string): Promise<void> {
  await db.query('UPDATE auth.oauth_authorizations SET session_id = $2 WHERE id = $1', [id, sessionId]);
}

export interface ConsentRow {
  readonly client_id: string;
  readonly scopes: string;
  readonly granted_at: Date;
}

export async function findActiveConsent(db: Queryable, userId: string, clientId: string): Promise<ConsentRow | null> {
  const { rows } = await db.query<ConsentRow>(
    'SELECT client_id, scopes, granted_at FROM auth.oauth_consents WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL',
    [userId, clientId],
  );
  return rows[0] ?? null;
}

/** Records what the user allowed; a new consent for the same client replaces a revoked or narrower one. */
export async function upsertConsent(db: Queryable, userId: string, clientId: string, scope: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO auth.oauth_consents (user_id, client_id, scopes, granted_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at, revoked_at = NULL`,
    [userId, clientId, scope, now],
  );
}

export interface GrantRow extends ConsentRow {
  readonly client_name: string | null;
  readonly client_uri: string | null;
  readonly logo_uri: string | null;
}

/** The user's active consents with their clients, newest first; those of deleted clients are left out. */
export async function listGrants(db: Queryable, userId: string): Promise<GrantRow[]> {
  const { rows } = await db.query<GrantRow>(
    `SELECT c.client_id, c.scopes, c.granted_at, k.client_name, k.client_uri, k.logo_uri
     FROM auth.oauth_consents c JOIN auth.oauth_clients k ON k.id = c.client_id AND k.deleted_at IS NULL
     WHERE c.user_id = $1 AND c.revoked_at IS NULL ORDER BY c.granted_at DESC`,
    [userId],
  );
  return rows;
}

export async function revokeConsent(db: Queryable, userId: string, clientId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE auth.oauth_consents SET revoked_at = greatest($3, granted_at) WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL',
    [userId, clientId, now],
  );
  return rowCount !== 0;
}

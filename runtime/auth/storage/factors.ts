import type { Queryable } from '../../db/transaction.js';
import { openValue, purposeKey, sealValue } from '../../sealed-value.js';

export type FactorType = 'totp' | 'webauthn' | 'phone';

/** What a WebAuthn factor keeps of its credential: the id and COSE public key (base64url), and the signature counter seen last. */
export interface WebAuthnFactorCredential {
  readonly id: string;
  readonly public_key: string;
  readonly sign_count: number;
}

/** A row of auth.mfa_factors. */
export interface FactorRow {
  readonly id: string;
  readonly user_id: string;
  readonly friendly_name: string;
  readonly factor_type: FactorType;
  readonly status: 'unverified' | 'verified';
  /** A TOTP factor's secret; null for WebAuthn. */
  readonly secret_sealed: string | null;
  /** A verified WebAuthn factor's credential; null otherwise. */
  readonly web_authn_credential: WebAuthnFactorCredential | null;
  /** A phone factor's number (E.164 digits); null for the others. */
  readonly phone: string | null;
  readonly last_used_step: string | null;
  readonly last_challenged_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface ChallengeRow {
  readonly id: string;
  readonly factor_id: string;
  readonly ip_address: string;
  readonly created_at: Date;
  readonly verified_at: Date | null;
  /** A WebAuthn factor's challenge: the one the ceremony's response must sign. */
  readonly web_authn_session_data: { readonly challenge: string } | null;
  /** A phone factor's challenge: the texted code, hashed with the challenge id. */
  readonly otp_hash: string | null;
}

/** What `auth.user_factors()` gives per factor: the row without secrets, timestamps as JSON strings. */
export interface ListedFactor {
  readonly id: string;
  readonly created_at: string | Date;
  readonly updated_at: string | Date;
  readonly status: string;
  readonly friendly_name: string;
  readonly factor_type: string;
  /** A phone factor's number; absent or null for the others. */
  readonly phone?: string | null;
  readonly last_challenged_at: string | Date | null;
}

/** Supabase Auth's defaults (GOTRUE_MFA_*). */
export const MAX_ENROLLED_FACTORS = 10;
export const MAX_VERIFIED_FACTORS = 10;
export const CHALLENGE_EXPIRY_SECONDS = 300;
/** An unverified factor nobody challenged is dropped after this long. */
export const UNVERIFIED_FACTOR_EXPIRY_SECONDS = 300;

function iso(value: string | Date): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** GoTrue's factor object: its keys in its order, an empty friendly_name left out, `phone` always a string. */
export function factorJson(factor: ListedFactor): Record<string, unknown> {
  return {
    id: factor.id,
    created_at: iso(factor.created_at),
    updated_at: iso(factor.updated_at),
    status: factor.status,
    ...(factor.friendly_name === '' ? {} : { friendly_name: factor.friendly_name }),
    factor_type: factor.factor_type,
    phone: factor.phone ?? '',
    last_challenged_at: factor.last_challenged_at === null ? null : iso(factor.last_challenged_at),
  };
}

const totpKey = (jwtSecret: string): Buffer => purposeKey(jwtSecret, 'gantry mfa totp secret');

/**
 * The TOTP secret sealed with a key derived from the project's JWT secret
 * (which lives in the platform registry, not in the project database), bound to
 * the factor id so a sealed secret cannot be moved to another factor.
 */
export function sealTotpSecret(jwtSecret: string, factorId: string, secret: string): string {
  return sealValue(totpKey(jwtSecret), factorId, secret);
}

/** Throws when the sealed value was not made by sealTotpSecret for this factor and secret. */
export function openTotpSecret(jwtSecret: string, factorId: string, sealed: string): string {
  return openValue(totpKey(jwtSecret), factorId, sealed);
}

export async function listFactors(db: Queryable, userId: string): Promise<FactorRow[]> {
  const { rows } = await db.query<FactorRow>('SELECT * FROM auth.mfa_factors WHERE user_id = $1 ORDER BY created_at, id', [userId]);
  return rows;
}

export async function findOwnedFactor(db: Queryable, userId: string, factorId: string, forUpdate = false): Promise<FactorRow | null> {
  const { rows } = await db.query<FactorRow>(
    `SELECT * FROM auth.mfa_factors WHERE id = $1 AND user_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [factorId, userId],
  );
  return rows[0] ?? null;
}

/** GoTrue's clean-up before an enrolment: unverified factors never challenged, older than the expiry. */
export async function deleteAbandonedFactors(db: Queryable, userId: string, now: Date): Promise<void> {
  await db.query(
    `DELETE FROM auth.mfa_factors f WHERE f.user_id = $1 AND f.status <> 'verified'
       AND NOT EXISTS (SELECT 1 FROM auth.mfa_challenges c WHERE c.factor_id = f.id)
       AND f.created_at + make_interval(secs => $3) < $2`,
    [userId, now, UNVERIFIED_FACTOR_EXPIRY_SECONDS],
  );
}

export async function insertFactor(
  db: Queryable,
  factor: {
    readonly id: string;
    readonly userId: string;
    readonly friendlyName: string;
    readonly type: FactorType;
    readonly secretSealed: string | null;
    readonly phone?: string;
  },
  now: Date,
): Promise<FactorRow> {
  const { rows } = await db.query<FactorRow>(
    `INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, secret_sealed, phone, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'unverified', $5, $6, $7, $7) RETURNING *`,
    [factor.id, factor.userId, factor.friendlyName, factor.type, factor.secretSealed, factor.phone ?? null, now],
  );
  return rows[0] as FactorRow;
}

/** What a challenge keeps to check the answer: a WebAuthn ceremony's challenge, or a texted code's hash under the challenge's id. */
export interface ChallengeSecret {
  readonly id?: string;
  readonly webAuthnChallenge?: string;
  readonly otpHash?: string;
}

export async function insertChallenge(
  db: Queryable,
  factorId: string,
  ip: string,
  now: Date,
  kept: ChallengeSecret = {},
): Promise<ChallengeRow> {
  const { rows } = await db.query<ChallengeRow>(
    `INSERT INTO auth.mfa_challenges (id, factor_id, ip_address, created_at, web_authn_session_data, otp_hash)
     VALUES (coalesce($1, gen_random_uuid()), $2, $3, $4, $5, $6) RETURNING *`,
    [kept.id ?? null, factorId, ip, now, kept.webAuthnChallenge === undefined ? null : JSON.stringify({ challenge: kept.webAuthnChallenge }), kept.otpHash ?? null],
  );
  await db.query('UPDATE auth.mfa_factors SET last_challenged_at = $2 WHERE id = $1', [factorId, now]);
  return rows[0] as ChallengeRow;
}

export async function findChallenge(db: Queryable, factorId: string, challengeId: string): Promise<ChallengeRow | null> {
  const { rows } = await db.query<ChallengeRow>('SELECT * FROM auth.mfa_challenges WHERE id = $1 AND factor_id = $2 FOR UPDATE', [
    challengeId,
    factorId,
  ]);
  return rows[0] ?? null;
}

export async function deleteChallenge(db: Queryable, challengeId: string): Promise<void> {
  await db.query('DELETE FROM auth.mfa_challenges WHERE id = $1', [challengeId]);
}

/**
 * A verified code or WebAuthn response: the challenge is spent, the factor verified with what
 * stops a replay recorded (a TOTP step: no code of it or an older one is accepted again; a
 * WebAuthn credential with its signature counter), the session raised to aal2 on this factor,
 * and the user's other unverified factors of its type dropped, as GoTrue does.
 */
export async function recordVerification(
  db: Queryable,
  verified: {
    readonly factor: FactorRow;
    readonly challengeId: string;
    readonly sessionId: string;
    readonly step?: number;
    readonly credential?: WebAuthnFactorCredential;
  },
  now: Date,
): Promise<void> {
  const { factor } = verified;
  await db.query('UPDATE auth.mfa_challenges SET verified_at = $2 WHERE id = $1', [verified.challengeId, now]);
  await db.query(
    `UPDATE auth.mfa_factors SET status = 'verified', last_used_step = coalesce($2, last_used_step),
       web_authn_credential = coalesce($3, web_authn_credential), updated_at = $4 WHERE id = $1`,
    [factor.id, verified.step ?? null, verified.credential === undefined ? null : JSON.stringify(verified.credential), now],
  );
  await db.query(
    `UPDATE auth.sessions SET aal = 'aal2', factor_id = $2, mfa_verified_at = $3, mfa_method = $4, updated_at = $3 WHERE id = $1`,
    [verified.sessionId, factor.id, now, factor.factor_type],
  );
  await db.query(`DELETE FROM auth.mfa_factors WHERE user_id = $1 AND status = 'unverified' AND factor_type = $2 AND id <> $3`, [
    factor.user_id,
    factor.factor_type,
    factor.id,
  ]);
}

/** Unenrolment and admin deletion: the factor goes, and sessions that reached aal2 with it fall back to aal1. */
export async function deleteFactor(db: Queryable, factor: FactorRow, now: Date): Promise<void> {
  await db.query(
    `UPDATE auth.sessions SET aal = 'aal1', factor_id = NULL, mfa_verified_at = NULL, mfa_method = NULL, updated_at = $3
     WHERE user_id = $1 AND factor_id = $2`,
    [factor.user_id, factor.id, now],
  );
  await db.query('DELETE FROM auth.mfa_factors WHERE id = $1', [factor.id]);
}

export async function renameFactor(db: Queryable, factorId: string, friendlyName: string, now: Date): Promise<FactorRow> {
  const { rows } = await db.query<FactorRow>('UPDATE auth.mfa_factors SET friendly_name = $2, updated_at = $3 WHERE id = $1 RETURNING *', [
    factorId,
    friendlyName,
    now,
  ]);
  return rows[0] as FactorRow;
}

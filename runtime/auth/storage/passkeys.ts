import type { Queryable } from '../../db/transaction.js';

/** A row of auth.webauthn_credentials. */
export interface PasskeyRow {
  readonly id: string;
  readonly user_id: string;
  readonly credential_id: Buffer;
  readonly public_key: Buffer;
  readonly sign_count: string;
  readonly transports: string[];
  readonly friendly_name: string;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly last_used_at: Date | null;
}

export type CeremonyKind = 'registration' | 'authentication';

/** What a challenge row keeps of its ceremony: the challenge the response must sign. */
export interface CeremonyData {
  readonly challenge: string;
}

export interface ChallengeRow {
  readonly id: string;
  readonly user_id: string | null;
  readonly session_data: CeremonyData;
  readonly expires_at: Date;
}

export interface NewPasskey {
  readonly userId: string;
  readonly credentialId: Buffer;
  readonly publicKey: Buffer;
  readonly signCount: number;
  readonly transports: readonly string[];
  readonly attestationType: string;
  readonly aaguid: string;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly friendlyName: string;
}

/** Supabase Auth's defaults (GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER, GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION). */
export const MAX_PASSKEYS_PER_USER = 10;
export const PASSKEY_CHALLENGE_EXPIRY_SECONDS = 300;
/** GoTrue's limit on a passkey's friendly name. */
export const MAX_FRIENDLY_NAME_LENGTH = 120;

/** GoTrue's passkey object: an empty friendly name and a never-used key leave their fields out. */
export function passkeyJson(row: PasskeyRow): Record<string, unknown> {
  return {
    id: row.id,
    ...(row.friendly_name === '' ? {} : { friendly_name: row.friendly_name }),
    created_at: row.created_at.toISOString(),
    ...(row.last_used_at === null ? {} : { last_used_at: row.last_used_at.toISOString() }),
  };
}

export async function listPasskeys(db: Queryable, userId: string): Promise<PasskeyRow[]> {
  const { rows } = await db.query<PasskeyRow>(
    'SELECT * FROM auth.webauthn_credentials WHERE user_id = $1 ORDER BY created_at, id',
    [userId],
  );
  return rows;
}

export async function countPasskeys(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth.webauthn_credentials WHERE user_id = $1', [userId]);
  return rows[0]?.n ?? 0;
}

export async function findPasskeyByCredentialId(db: Queryable, credentialId: Buffer): Promise<PasskeyRow | null> {
  const { rows } = await db.query<PasskeyRow>('SELECT * FROM auth.webauthn_credentials WHERE credential_id = $1', [credentialId]);
  return rows[0] ?? null;
}

/** Null when the id names no passkey of this user. */
export async function renamePasskey(db: Queryable, userId: string, id: string, name: string, now: Date): Promise<PasskeyRow | null> {
  const { rows } = await db.query<PasskeyRow>(
    'UPDATE auth.webauthn_credentials SET friendly_name = $3, updated_at = $4 WHERE id = $2 AND user_id = $1 RETURNING *',
    [userId, id, name, now],
  );
  return rows[0] ?? null;
}

/** False when the id names no passkey of this user. */
export async function deletePasskey(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM auth.webauthn_credentials WHERE id = $2 AND user_id = $1', [userId, id]);
  return rowCount === 1;
}

/** Throws the unique violation (23505) when the credential is registered already. */
export async function insertPasskey(db: Queryable, passkey: NewPasskey, now: Date): Promise<PasskeyRow> {
  const { rows } = await db.query<PasskeyRow>(
    `INSERT INTO auth.webauthn_credentials (user_id, credential_id, public_key, sign_count, transports, attestation_type,
       aaguid, backup_eligible, backed_up, friendly_name, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
    [
      passkey.userId, passkey.credentialId, passkey.publicKey, passkey.signCount, JSON.stringify(passkey.transports),
      passkey.attestationType, passkey.aaguid, passkey.backupEligible, passkey.backedUp, passkey.friendlyName, now,
    ],
  );
  return rows[0] as PasskeyRow;
}

/**
 * Records a sign-in: the new signature counter and when. Only if the counter is still the one
 * the assertion was checked against, so two concurrent uses of one assertion cannot both pass.
 */
export async function recordPasskeyUse(db: Queryable, passkey: PasskeyRow, signCount: number, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE auth.webauthn_credentials SET sign_count = $2, last_used_at = $3, updated_at = $3 WHERE id = $1 AND sign_count = $4',
    [passkey.id, signCount, now, passkey.sign_count],
  );
  return rowCount === 1;
}

export async function insertCeremonyChallenge(
  db: Queryable,
  kind: CeremonyKind,
  userId: string | null,
  data: CeremonyData,
  now: Date,
): Promise<ChallengeRow> {
  // Unanswered ceremonies leave their challenges behind: expired ones go when a new one comes.
  await db.query('DELETE FROM auth.webauthn_challenges WHERE expires_at < $1', [now]);
  const { rows } = await db.query<ChallengeRow>(
    `INSERT INTO auth.webauthn_challenges (user_id, challenge_type, session_data, created_at, expires_at)
     VALUES ($1, $2, $3, $4::timestamptz, $4::timestamptz + make_interval(secs => $5)) RETURNING id, user_id, session_data, expires_at`,
    [userId, kind, JSON.stringify(data), now, PASSKEY_CHALLENGE_EXPIRY_SECONDS],
  );
  return rows[0] as ChallengeRow;
}

/**
 * Takes a challenge out of the table, so it serves one verify only (expired ones too: the caller
 * refuses those); a registration challenge only for the user it was made for. Null when none.
 */
export async function consumeCeremonyChallenge(
  db: Queryable,
  id: string,
  kind: CeremonyKind,
  userId: string | null,
): Promise<ChallengeRow | null> {
  const { rows } = await db.query<ChallengeRow>(
    `DELETE FROM auth.webauthn_challenges WHERE id = $1 AND challenge_type = $2 AND ($3::uuid IS NULL OR user_id = $3)
     RETURNING id, user_id, session_data, expires_at`,
    [id, kind, userId],
  );
  return rows[0] ?? null;
}

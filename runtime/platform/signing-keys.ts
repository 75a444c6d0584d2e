import { randomUUID, type webcrypto } from 'node:crypto';

type JsonWebKey = webcrypto.JsonWebKey;
import { exportJWK, generateKeyPair } from 'jose';
import type pg from 'pg';
import type { PublicJwk, SigningAlg, SigningKeyStatus, StoredSigningKey } from '../tokens/keyring.js';
import { inTransaction } from '../db/transaction.js';

/**
 * How long a rotated-out key keeps verifying by default: one access-token lifetime, so every
 * token it signed before the rotation can still be used until it expires.
 */
export const DEFAULT_ROTATION_GRACE_SECONDS = 3600;

/** The algorithm of a project's first asymmetric key when none is asked for: Supabase's default for signing keys. */
export const DEFAULT_SIGNING_ALG: SigningAlg = 'ES256';

/** The members of a public JWK per key type (everything else of the private JWK is secret). */
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = { EC: ['kty', 'crv', 'x', 'y'], RSA: ['kty', 'n', 'e'] };

export interface NewSigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly privateJwk: JsonWebKey;
  readonly publicJwk: PublicJwk;
}

/** A fresh key pair (a random UUID as kid, as Supabase's keys), both halves as JWKs. */
export async function generateSigningKey(alg: SigningAlg): Promise<NewSigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
  const jwk = await exportJWK(privateKey);
  const kid = randomUUID();
  const publicMembers = Object.fromEntries((PUBLIC_MEMBERS[jwk.kty ?? ''] ?? []).map((name) => [name, jwk[name as keyof typeof jwk]]));
  return {
    kid,
    alg,
    privateJwk: { ...jwk, kid, alg, key_ops: ['sign'] } as JsonWebKey,
    publicJwk: { ...publicMembers, kid, alg, kty: String(jwk.kty), use: 'sig', key_ops: ['verify'] },
  };
}

/** A project's keys as `json_agg` of registry rows gives them. */
interface SigningKeyRow {
  kid: string;
  alg: SigningAlg;
  private_jwk: JsonWebKey;
  public_jwk: PublicJwk;
  status: SigningKeyStatus;
  expires_at: string | null;
}

/** The select-list expression that reads a project's keys beside its `projects` row (aliased `p`). */
export const SIGNING_KEYS_COLUMN = `coalesce((SELECT json_agg(k ORDER BY k.created_at) FROM project_signing_keys k WHERE k.ref = p.ref), '[]') AS signing_keys`;

export function toStoredKeys(rows: readonly SigningKeyRow[]): StoredSigningKey[] {
  return rows.map((row) => ({
    kid: row.kid,
    alg: row.alg,
    privateJwk: row.private_jwk,
    publicJwk: row.public_jwk,
    status: row.status,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  }));
}

/** The key a project signs with when it signs asymmetrically; undefined when it has none. */
export function currentSigningKey(keys: readonly StoredSigningKey[]): StoredSigningKey | undefined {
  return keys.find((key) => key.status === 'current');
}

export interface Rotation {
  readonly ref: string;
  /** The key that signs from now on. */
  readonly current: { readonly kid: string; readonly alg: SigningAlg };
  /** Rotated-out keys that still verify, and until when. */
  readonly previous: ReadonlyArray<{ readonly kid: string; readonly alg: SigningAlg; readonly expires_at: string }>;
}

/**
 * Makes a new key the project's current one and the one it signs access tokens with
 * (`auth.signing_alg` becomes the key's alg); the key it replaces verifies for `graceSeconds`
 * more. Keys whose grace is over are deleted. One transaction: hosts reload on its NOTIFY
 * and never see a project with no current key. Null when the project does not exist.
 */
export async function rotateSigningKey(pool: pg.Pool, ref: string, key: NewSigningKey, graceSeconds: number): Promise<Rotation | null> {
  return inTransaction(pool, async (db) => {
    // The row lock also serialises rotations of one project: two at once would both demote the same key.
    const { rowCount } = await db.query(`UPDATE projects SET settings = settings || jsonb_build_object('auth.signing_alg', $2::text) WHERE ref = $1`, [
      ref,
      key.alg,
    ]);
    if (rowCount === 0) return null;
    await db.query(`DELETE FROM project_signing_keys WHERE ref = $1 AND status = 'previous' AND expires_at < now()`, [ref]);
    await db.query(
      `UPDATE project_signing_keys SET status = 'previous', expires_at = now() + make_interval(secs => $2) WHERE ref = $1 AND status = 'current'`,
      [ref, graceSeconds],
    );
    await db.query(`INSERT INTO project_signing_keys (ref, kid, alg, private_jwk, public_jwk, status) VALUES ($1, $2, $3, $4, $5, 'current')`, [
      ref,
      key.kid,
      key.alg,
      JSON.stringify(key.privateJwk),
      JSON.stringify(key.publicJwk),
    ]);
    const { rows } = await db.query<{ kid: string; alg: SigningAlg; expires_at: Date }>(
      `SELECT kid, alg, expires_at FROM project_signing_keys WHERE ref = $1 AND status = 'previous' ORDER BY created_at`,
      [ref],
    );
    return {
      ref,
      current: { kid: key.kid, alg: key.alg },
      previous: rows.map((row) => ({ kid: row.kid, alg: row.alg, expires_at: row.expires_at.toISOString() })),
    };
  });
}

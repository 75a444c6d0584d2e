import type { Queryable } from '../../db/transaction.js';

/** A row of auth.identities as auth.user_identities() lists it (to_jsonb: timestamps as text). */
export interface IdentityRow {
  readonly id: string;
  readonly provider_id: string;
  readonly user_id: string;
  readonly identity_data: Record<string, unknown>;
  readonly provider: string;
  readonly email: string | null;
  readonly last_sign_in_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

const iso = (text: string | null): string | undefined => (text === null ? undefined : new Date(text).toISOString());

/** GoTrue's identity object: `id` is the id at the provider, `identity_id` the row's. */
export function identityJson(row: IdentityRow): Record<string, unknown> {
  const json: Record<string, unknown> = {
    identity_id: row.id,
    id: row.provider_id,
    user_id: row.user_id,
    identity_data: row.identity_data,
    provider: row.provider,
    last_sign_in_at: iso(row.last_sign_in_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    email: row.email ?? undefined,
  };
  for (const key of Object.keys(json)) if (json[key] === undefined) delete json[key];
  return json;
}

export async function findIdentity(db: Queryable, provider: string, providerId: string): Promise<IdentityRow | null> {
  const { rows } = await db.query<IdentityRow>(
    `SELECT to_jsonb(i) AS row FROM auth.identities i WHERE provider = $1 AND provider_id = $2 FOR UPDATE`,
    [provider, providerId],
  );
  return (rows[0] as unknown as { row: IdentityRow } | undefined)?.row ?? null;
}

export async function insertIdentity(
  db: Queryable,
  userId: string,
  provider: string,
  identityData: Readonly<Record<string, unknown>>,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5, $5)`,
    [String(identityData.sub), userId, JSON.stringify(identityData), provider, now],
  );
}

/** A sign-in with an identity refreshes what the provider says about the user. */
export async function touchIdentity(db: Queryable, id: string, identityData: Readonly<Record<string, unknown>>, now: Date): Promise<void> {
  await db.query(`UPDATE auth.identities SET identity_data = $2, last_sign_in_at = $3, updated_at = $3 WHERE id = $1`, [
    id,
    JSON.stringify(identityData),
    now,
  ]);
}

export async function deleteIdentity(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM auth.identities WHERE id = $1', [id]);
}

/** Every identity of the user but the one of `provider` with `providerId`. */
export async function deleteOtherIdentities(db: Queryable, userId: string, provider: string, providerId: string): Promise<void> {
  await db.query('DELETE FROM auth.identities WHERE user_id = $1 AND NOT (provider = $2 AND provider_id = $3)', [userId, provider, providerId]);
}

/**
 * GoTrue's UpdateAppMetaDataProviders: app_metadata.providers from the user's identities (the
 * implied e-mail one first when the account has it), `provider` kept as the first sign-up's.
 */
export async function syncProviders(db: Queryable, userId: string, keepEmail: boolean, now: Date): Promise<void> {
  await db.query(
    `UPDATE auth.users u SET raw_app_meta_data = u.raw_app_meta_data || jsonb_build_object('providers',
       (SELECT coalesce(jsonb_agg(p ORDER BY first), '[]') FROM (
          SELECT 'email' AS p, 0 AS first WHERE $2
          UNION SELECT provider, 1 FROM auth.identities WHERE user_id = u.id) providers)),
       updated_at = $3
     WHERE u.id = $1`,
    [userId, keepEmail, now],
  );
}

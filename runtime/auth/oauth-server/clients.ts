import type { Queryable } from '../../db/transaction.js';
import { revokeOAuthClientSessions } from '../storage/sessions.js';
import { generateOpaqueToken, hashToken, tokenHashesEqual } from '../credentials/opaque-tokens.js';
import type { ClientChange, ClientType, GrantType, NewClient, RegistrationType, TokenEndpointAuthMethod } from './client-metadata.js';

/** A row of auth.oauth_clients. */
export interface OAuthClientRow {
  readonly id: string;
  readonly client_secret_hash: string | null;
  readonly registration_type: RegistrationType;
  readonly client_type: ClientType;
  readonly token_endpoint_auth_method: TokenEndpointAuthMethod;
  readonly redirect_uris: readonly string[];
  readonly grant_types: readonly GrantType[];
  readonly client_name: string | null;
  readonly client_uri: string | null;
  readonly logo_uri: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** GoTrue's client object; `client_secret` only in the answer that created it. */
export interface OAuthClientJson {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly client_type: ClientType;
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: TokenEndpointAuthMethod;
  readonly grant_types: readonly GrantType[];
  readonly response_types: readonly ['code'];
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly registration_type: RegistrationType;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export function oauthClientJson(row: OAuthClientRow, secret?: string): OAuthClientJson {
  return {
    client_id: row.id,
    ...(secret !== undefined && { client_secret: secret }),
    client_type: row.client_type,
    redirect_uris: row.redirect_uris,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    grant_types: row.grant_types,
    response_types: ['code'],
    // GoTrue omits empty strings from the object.
    ...(row.client_name && { client_name: row.client_name }),
    ...(row.client_uri && { client_uri: row.client_uri }),
    ...(row.logo_uri && { logo_uri: row.logo_uri }),
    registration_type: row.registration_type,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const COLUMNS = `id, client_secret_hash, registration_type, client_type, token_endpoint_auth_method, redirect_uris, grant_types,
  client_name, client_uri, logo_uri, created_at, updated_at`;

/** Registers a client; a confidential one gets a secret, returned here once and stored only as its hash. */
export async function insertClient(db: Queryable, client: NewClient, now: Date): Promise<{ row: OAuthClientRow; secret?: string }> {
  const secret = client.clientType === 'confidential' ? generateOpaqueToken() : undefined;
  const { rows } = await db.query<OAuthClientRow>(
    `INSERT INTO auth.oauth_clients (client_secret_hash, registration_type, client_type, token_endpoint_auth_method, redirect_uris,
       grant_types, client_name, client_uri, logo_uri, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${COLUMNS}`,
    [
      secret === undefined ? null : hashToken(secret),
      client.registrationType,
      client.clientType,
      client.tokenEndpointAuthMethod,
      client.redirectUris,
      client.grantTypes,
      client.clientName,
      client.clientUri,
      client.logoUri,
      now,
    ],
  );
  return { row: rows[0]!, ...(secret !== undefined && { secret }) };
}

/** Clients not deleted, newest first (GoTrue's order; it does not paginate them). */
export async function listClients(db: Queryable): Promise<OAuthClientRow[]> {
  const { rows } = await db.query<OAuthClientRow>(
    `SELECT ${COLUMNS} FROM auth.oauth_clients WHERE deleted_at IS NULL ORDER BY created_at DESC, id`,
  );
  return rows;
}

export async function findClient(db: Queryable, id: string): Promise<OAuthClientRow | null> {
  const { rows } = await db.query<OAuthClientRow>(`SELECT ${COLUMNS} FROM auth.oauth_clients WHERE id = $1 AND deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
}

export async function updateClient(db: Queryable, id: string, change: ClientChange, now: Date): Promise<OAuthClientRow | null> {
  const { rows } = await db.query<OAuthClientRow>(
    `UPDATE auth.oauth_clients SET
       redirect_uris = coalesce($2, redirect_uris),
       grant_types = coalesce($3, grant_types),
       client_name = CASE WHEN $4::text IS NULL THEN client_name ELSE nullif($4, '') END,
       client_uri = CASE WHEN $5::text IS NULL THEN client_uri ELSE nullif($5, '') END,
       logo_uri = CASE WHEN $6::text IS NULL THEN logo_uri ELSE nullif($6, '') END,
       token_endpoint_auth_method = coalesce($7, token_endpoint_auth_method),
       updated_at = $8
     WHERE id = $1 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    [
      id,
      change.redirectUris ?? null,
      change.grantTypes ?? null,
      change.clientName ?? null,
      change.clientUri ?? null,
      change.logoUri ?? null,
      change.tokenEndpointAuthMethod ?? null,
      now,
    ],
  );
  return rows[0] ?? null;
}

/** Soft delete, as GoTrue; its sessions end too, so tokens issued to it stop refreshing. */
export async function deleteClient(db: Queryable, id: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE auth.oauth_clients SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`, [id, now]);
  if (rowCount === 0) return false;
  await revokeOAuthClientSessions(db, id, null, now);
  return true;
}

/** A new secret for a confidential client; the old one stops working at once. */
export async function regenerateSecret(db: Queryable, id: string, now: Date): Promise<{ row: OAuthClientRow; secret: string } | null> {
  const secret = generateOpaqueToken();
  const { rows } = await db.query<OAuthClientRow>(
    `UPDATE auth.oauth_clients SET client_secret_hash = $2, updated_at = $3
     WHERE id = $1 AND deleted_at IS NULL AND client_type = 'confidential' RETURNING ${COLUMNS}`,
    [id, hashToken(secret), now],
  );
  return rows[0] === undefined ? null : { row: rows[0], secret };
}

/** Whether `secret` is the client's, compared in constant time. */
export function secretMatches(client: OAuthClientRow, secret: string): boolean {
  return client.client_secret_hash !== null && tokenHashesEqual(hashToken(secret), client.client_secret_hash);
}

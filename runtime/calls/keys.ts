import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type pg from 'pg';
import { CodedError } from '../coded-error.js';

/**
 * API keys: `ca_live_` + 32 base62 characters (about 190 random bits) + a 6-character base62
 * CRC-32 checksum, so scanners and our own parser can tell a real key from a typo offline. Only
 * the SHA-256 of a key is stored; a fast hash is enough because the key is high-entropy random,
 * and lookup is an exact match on a unique index.
 */
export const API_KEY_PREFIX = 'ca_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 32;
const CHECKSUM_CHARS = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);
const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

export class KeyError extends CodedError {
  constructor(
    readonly code: 'invalid_tenant' | 'key_not_found',
    message: string,
  ) {
    super(message);
  }
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting the top bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(RANDOM_CHARS);
  return body + checksum(body);
}

/** Shape and checksum only; says nothing about whether the key exists. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!KEY_PATTERN.test(candidate)) return false;
  const split = candidate.length - CHECKSUM_CHARS;
  return checksum(candidate.slice(0, split)) === candidate.slice(split);
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function isValidTenantId(tenant: string): boolean {
  return TENANT_PATTERN.test(tenant);
}

export interface CreatedKey {
  readonly id: string;
  readonly key: string;
  readonly tenant: string;
}

export async function createApiKey(db: pg.Pool | pg.ClientBase, tenant: string): Promise<CreatedKey> {
  if (!isValidTenantId(tenant)) {
    throw new KeyError('invalid_tenant', 'a tenant id is 1-64 characters of letters, digits and . _ : - (starting with a letter or digit)');
  }
  const key = generateApiKey();
  const id = `key_${randomBytes(12).toString('hex')}`;
  await db.query('INSERT INTO calls_api_keys (id, tenant_id, prefix, key_hash) VALUES ($1, $2, $3, $4)', [id, tenant, key.slice(0, 12), hashApiKey(key)]);
  return { id, key, tenant };
}

/** Revokes at once: the next request with the key, or with a token minted from it, is a 401. */
export async function revokeApiKey(db: pg.Pool | pg.ClientBase, id: string): Promise<{ id: string; tenant: string; revoked_at: string }> {
  const { rows } = await db.query<{ tenant_id: string; revoked_at: Date }>(
    'UPDATE calls_api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING tenant_id, revoked_at',
    [id],
  );
  if (!rows[0]) throw new KeyError('key_not_found', `API key "${id}" does not exist`);
  return { id, tenant: rows[0].tenant_id, revoked_at: rows[0].revoked_at.toISOString() };
}

export interface KeyRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly revoked: boolean;
}

export async function findApiKeyByHash(db: pg.Pool, key: string): Promise<KeyRecord | null> {
  const { rows } = await db.query<{ id: string; tenant_id: string; revoked: boolean }>(
    'SELECT id, tenant_id, revoked_at IS NOT NULL AS revoked FROM calls_api_keys WHERE key_hash = $1',
    [hashApiKey(key)],
  );
  return rows[0] ? { id: rows[0].id, tenantId: rows[0].tenant_id, revoked: rows[0].revoked } : null;
}

export async function findApiKeyById(db: pg.Pool, id: string): Promise<KeyRecord | null> {
  const { rows } = await db.query<{ id: string; tenant_id: string; revoked: boolean }>(
    'SELECT id, tenant_id, revoked_at IS NOT NULL AS revoked FROM calls_api_keys WHERE id = $1',
    [id],
  );
  return rows[0] ? { id: rows[0].id, tenantId: rows[0].tenant_id, revoked: rows[0].revoked } : null;
}

/** Written at most once a minute per key, so a busy key does not turn every request into a write. */
export async function touchApiKey(db: pg.Pool, id: string): Promise<void> {
  await db.query(
    `UPDATE calls_api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

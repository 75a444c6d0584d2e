import type pg from 'pg';
import type { Queryable } from '../db/transaction.js';

/** What a submission with an Idempotency-Key left behind: the call it created and the request that created it. */
export interface IdempotencyRecord {
  readonly callId: string;
  readonly requestHash: string;
}

/** The advisory lock a submission with an Idempotency-Key holds while it runs; tests hold it to provoke a 409. */
export function idempotencyLockName(tenantId: string, key: string): string {
  return `calls.idempotency:${tenantId}:${key}`;
}

/** Takes the key's transaction-scoped lock; false when another request with the same key holds it. */
export async function tryLockIdempotencyKey(client: pg.ClientBase, tenantId: string, key: string): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [idempotencyLockName(tenantId, key)]);
  return rows[0]!.locked;
}

/**
 * The key's record as of `now`, or null. A record past its window that the sweep has not deleted
 * yet is deleted here, so an expired key is a fresh request whether or not the sweep has run.
 * Call with the key's lock held.
 */
export async function findIdempotencyRecord(client: pg.ClientBase, tenantId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
  await client.query('DELETE FROM calls_idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2 AND expires_at <= $3', [tenantId, key, now]);
  const { rows } = await client.query<{ call_id: string; request_hash: string }>(
    'SELECT call_id, request_hash FROM calls_idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2',
    [tenantId, key],
  );
  return rows[0] ? { callId: rows[0].call_id, requestHash: rows[0].request_hash } : null;
}

/** Remembers the call a key created, until `now` + `windowSeconds`. */
export async function recordIdempotencyKey(
  client: pg.ClientBase,
  record: IdempotencyRecord & { readonly tenantId: string; readonly key: string },
  now: Date,
  windowSeconds: number,
): Promise<void> {
  await client.query(
    `INSERT INTO calls_idempotency_keys (tenant_id, idempotency_key, request_hash, call_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $5::timestamptz + make_interval(secs => $6))`,
    [record.tenantId, record.key, record.requestHash, record.callId, now, windowSeconds],
  );
}

/**
 * Deletes the records whose window ended by `now`, in batches so no single statement holds many
 * row locks, and returns how many went. Run periodically (the calls maintenance sweep) so the
 * table holds about one window's worth of keys.
 */
export async function pruneIdempotencyKeys(db: Queryable, now: Date, batchSize = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM calls_idempotency_keys WHERE ctid IN (SELECT ctid FROM calls_idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
      [now, batchSize],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return total;
  }
}

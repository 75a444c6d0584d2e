import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { CallsQueue } from '../queue.js';
import type { EventEnvelope, EventType } from './events.js';

/**
 * Writes an event into the outbox inside the caller's transaction: the message, one delivery
 * per enabled endpoint of the tenant subscribed to the type, and one delivery job each. The event
 * exists if and only if the state change that caused it committed. Returns the message id (the
 * `webhook-id` consumers dedupe on) and the number of deliveries.
 */
export async function recordEvent(
  client: pg.ClientBase,
  queue: CallsQueue,
  tenantId: string,
  type: EventType,
  data: unknown,
): Promise<{ messageId: string; deliveries: number }> {
  const messageId = `msg_${randomBytes(12).toString('hex')}`;
  const envelope: EventEnvelope = { type, timestamp: new Date().toISOString(), data };
  await client.query('INSERT INTO calls_webhook_messages (id, tenant_id, type, payload) VALUES ($1, $2, $3, $4)', [
    messageId,
    tenantId,
    type,
    JSON.stringify(envelope),
  ]);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO calls_webhook_deliveries (id, message_id, endpoint_id, next_attempt_at)
     SELECT gen_random_uuid(), $1, e.id, now() FROM calls_webhook_endpoints e
      WHERE e.tenant_id = $2 AND e.enabled AND e.deleted_at IS NULL AND $3 = ANY (e.events)
     RETURNING id`,
    [messageId, tenantId, type],
  );
  for (const { id } of rows) await queue.enqueueDelivery(client, id);
  return { messageId, deliveries: rows.length };
}

/**
 * access.denied is throttled to one event per tenant, subject and reason per minute, so a broken
 * client retrying a revoked key cannot flood its own endpoints. True when this one may be sent.
 */
export async function claimThrottleSlot(client: pg.ClientBase, tenantId: string, throttleKey: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO calls_event_throttle (tenant_id, throttle_key, window_start) VALUES ($1, $2, date_trunc('minute', now()))
     ON CONFLICT DO NOTHING`,
    [tenantId, throttleKey],
  );
  if (rowCount) await client.query(`DELETE FROM calls_event_throttle WHERE tenant_id = $1 AND window_start < date_trunc('minute', now())`, [tenantId]);
  return rowCount === 1;
}

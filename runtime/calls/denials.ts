import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { CallsContext } from './context.js';
import { inTransaction } from '../db/transaction.js';
import { DELIVER_QUEUE } from './queue.js';
import { claimThrottleSlot, recordEvent } from './webhooks/outbox.js';

export type DenialSubject = { readonly type: 'api_key' | 'oauth_client' | 'operator'; readonly id: string };
export type DenialReason = 'key_revoked' | 'token_expired' | 'insufficient_scope' | 'operator_inactive' | 'invalid_secret';

/**
 * Emits `access.denied` to the tenant whose credential or operator was refused. Denials that
 * cannot be tied to a tenant (an unknown key) have nobody to tell. Throttled per subject and
 * reason; a failure to record it never changes the answer the caller gets.
 */
export async function reportDenial(ctx: CallsContext, tenantId: string, subject: DenialSubject, reason: DenialReason, req: Request): Promise<void> {
  try {
    const sent = await inTransaction(ctx.pool, async (client) => {
      if (!(await claimThrottleSlot(client, tenantId, `${subject.type}:${subject.id}:${reason}`))) return 0;
      const data = {
        id: `den_${randomBytes(12).toString('hex')}`,
        occurred_at: new Date().toISOString(),
        subject,
        reason,
        request: { method: req.method, path: req.originalUrl.split('?')[0], ip: req.ip ?? null },
      };
      return (await recordEvent(client, ctx.queue, tenantId, 'access.denied', data)).deliveries;
    });
    if (sent) ctx.queue.wake(DELIVER_QUEUE);
  } catch (error) {
    ctx.log.error({ err: (error as Error).message }, 'could not record access.denied');
  }
}

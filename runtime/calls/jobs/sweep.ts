import { inTransaction } from '../../db/transaction.js';
import { quoteIdent } from '../../db/identifiers.js';
import { callResource, type CallError, type CallRow } from '../call-resource.js';
import type { CallsContext } from '../context.js';
import { ANALYZE_QUEUE, DELIVER_QUEUE } from '../queue.js';
import { recordEvent } from '../webhooks/outbox.js';

export const INTERRUPTED: CallError = {
  code: 'analysis_interrupted',
  message: 'the analysis was interrupted by server restarts or crashes more often than its retries allow',
  status: 503,
};

/**
 * A job whose last attempt died with its process (or was cancelled by a shutdown) ends `failed`
 * in pg-boss without our code running again, which would leave its call `processing` for ever.
 * This finds such calls, fails them and emits `call.analysis.failed`. Returns how many.
 */
export async function sweepAbandonedCalls(ctx: CallsContext): Promise<number> {
  const schema = quoteIdent(ctx.settings.queueSchema);
  const failed = await inTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<CallRow>(
      `WITH dead AS (
         SELECT id FROM ${schema}.job WHERE name = $1 AND state = 'failed'
         UNION SELECT id FROM ${schema}.archive WHERE name = $1 AND state = 'failed'
       )
       UPDATE calls c SET status = 'failed', error = $2, completed_at = now()
         FROM dead WHERE c.id = dead.id AND c.status IN ('queued', 'processing')
       RETURNING c.*`,
      [ANALYZE_QUEUE, JSON.stringify(INTERRUPTED)],
    );
    for (const row of rows) await recordEvent(client, ctx.queue, row.tenant_id, 'call.analysis.failed', callResource(row));
    return rows.length;
  });
  if (failed) {
    ctx.queue.wake(DELIVER_QUEUE);
    ctx.log.warn({ calls: failed }, 'calls failed after their analysis was interrupted too often');
  }
  return failed;
}

import type PgBoss from 'pg-boss';
import type { CallsContext } from '../context.js';
import { inTransaction } from '../../db/transaction.js';
import { FetchError } from '../../outbound/errors.js';
import { guardedRequest, readBody } from '../../outbound/guarded-request.js';
import { checkOutboundUrl } from '../../outbound/outbound-url.js';
import type { DeliverJob } from '../queue.js';
import { nextAttemptDelayMs, outcomeOf, retryAfterMs } from './schedule.js';
import { webhookHeaders } from '../../outbound/webhook-signing.js';
import { metrics } from '../../metrics.js';

const SNIPPET_BYTES = 1024;

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  message_id: string;
  payload: string;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  deleted: boolean;
  secret: string;
  previous_secret: string | null;
  previous_valid: boolean;
}

interface AttemptResult {
  readonly statusCode: number | null;
  readonly retryAfter?: string;
  readonly error: string | null;
  readonly snippet: string | null;
}

/** The first bytes of the answer; reading stops there and the connection closes. */
async function readSnippet(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    parts.push(chunk);
    size += chunk.length;
    if (size >= SNIPPET_BYTES) break;
  }
  return Buffer.concat(parts).subarray(0, SNIPPET_BYTES).toString('utf8');
}

/** One signed POST through the SSRF guard; never follows redirects. */
async function post(ctx: CallsContext, row: DeliveryRow, cancel: AbortSignal): Promise<AttemptResult> {
  const secrets = row.previous_secret && row.previous_valid ? [row.secret, row.previous_secret] : [row.secret];
  const headers = webhookHeaders(secrets, row.message_id, Math.floor(Date.now() / 1000), row.payload);
  const timeoutMs = ctx.settings.webhookTimeoutSeconds * 1000;
  const limits = { ...ctx.outbound, headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs };
  try {
    const url = checkOutboundUrl(row.url, ctx.outbound);
    const response = await guardedRequest(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'gantry-webhooks/1' },
        body: row.payload,
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]),
      },
      limits,
    );
    const snippet = await readSnippet(readBody(response.body, limits)).catch(() => null);
    const retryAfter = response.headers['retry-after'];
    return { statusCode: response.statusCode, error: null, snippet, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) };
  } catch (error) {
    let cause: unknown = error;
    while (cause && !(cause instanceof FetchError) && (cause as { cause?: unknown }).cause) cause = (cause as { cause?: unknown }).cause;
    const message = cause instanceof FetchError ? `${cause.code}: ${cause.message}` : `request failed (${(error as { code?: string }).code ?? (error as Error).name})`;
    return { statusCode: null, error: message, snippet: null };
  }
}

/**
 * Runs one delivery attempt and records it. Success ends the delivery; a 410 ends it and disables
 * the endpoint; any other failure schedules the next attempt (with the next job, in the same
 * transaction as the bookkeeping) until the schedule is spent, and a delivery that exhausted its
 * schedule disables the endpoint (persistent failure). A process dying mid-POST leaves the job to
 * expire and run again: delivery is at least once, consumers dedupe on `webhook-id`. `cancel`
 * cuts a POST still running when the service closes.
 */
export async function runDeliveryJob(ctx: CallsContext, job: PgBoss.Job<DeliverJob>, cancel: AbortSignal): Promise<void> {
  const { rows } = await ctx.pool.query<DeliveryRow>(
    `SELECT d.id, d.status, d.attempts, d.message_id, m.payload, e.id AS endpoint_id, e.url, e.enabled, e.deleted_at IS NOT NULL AS deleted,
            e.secret, e.previous_secret, coalesce(e.previous_secret_expires_at > now(), false) AS previous_valid
       FROM calls_webhook_deliveries d
       JOIN calls_webhook_messages m ON m.id = d.message_id
       JOIN calls_webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = $1`,
    [job.data.deliveryId],
  );
  const row = rows[0];
  if (!row || row.status !== 'pending') return;
  if (!row.enabled || row.deleted) {
    await ctx.pool.query(`UPDATE calls_webhook_deliveries SET status = 'failed', last_error = 'endpoint disabled', updated_at = now() WHERE id = $1`, [row.id]);
    return;
  }
  const attempt = row.attempts + 1;
  const startedAt = new Date();
  const result = await post(ctx, row, cancel);
  const durationMs = Date.now() - startedAt.getTime();
  const outcome = outcomeOf(result.statusCode);
  metrics.webhookAttempt(outcome);
  const error = result.error ?? (outcome === 'succeeded' ? null : `HTTP ${result.statusCode}`);
  const scheduled = outcome === 'failed' ? nextAttemptDelayMs(ctx.settings.webhookRetrySchedule, attempt) : null;
  const delay = scheduled === null ? null : Math.max(scheduled, retryAfterMs(result.statusCode, result.retryAfter) ?? 0);
  const rescheduled = await inTransaction(ctx.pool, async (client) => {
    await client.query(
      `INSERT INTO calls_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_snippet)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.id, attempt, startedAt, durationMs, result.statusCode, error, result.snippet],
    );
    const status = outcome === 'succeeded' ? 'succeeded' : delay === null ? 'failed' : 'pending';
    const nextAt = delay === null ? null : new Date(Date.now() + delay);
    await client.query(
      `UPDATE calls_webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, last_status_code = $5, last_error = $6, updated_at = now()
        WHERE id = $1`,
      [row.id, status, attempt, nextAt, result.statusCode, error],
    );
    if (outcome === 'gone' || (outcome === 'failed' && delay === null)) {
      await client.query(`UPDATE calls_webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1`, [
        row.endpoint_id,
        outcome === 'gone' ? 'endpoint_gone' : 'persistent_failure',
      ]);
      ctx.log.warn({ endpoint: row.endpoint_id, reason: outcome }, 'webhook endpoint disabled');
    }
    if (nextAt) await ctx.queue.enqueueDelivery(client, row.id, nextAt);
    return nextAt !== null;
  });
  if (rescheduled) ctx.log.debug({ delivery: row.id, attempt }, 'webhook delivery will be retried');
}

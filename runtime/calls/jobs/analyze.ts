import type PgBoss from 'pg-boss';
import { callResource, type CallError, type CallRow } from '../call-resource.js';
import type { CallsContext } from '../context.js';
import { inTransaction } from '../../db/transaction.js';
import { fetchRecording } from '../fetch/fetch-recording.js';
import { withTenantInsights } from '../insights/store.js';
import { DELIVER_QUEUE, type AnalyzeJob } from '../queue.js';
import type { EngineSpec } from '../transcript/speech-settings.js';
import { loadTenantSpeech, tenantEngines } from '../transcript/tenant-speech-store.js';
import { callEventData } from '../webhooks/call-event.js';
import { recordEvent } from '../webhooks/outbox.js';
import { classifyFailure } from './failure.js';

/** Thrown when the process is stopping: pg-boss fails the job into a retry that a live process picks up. */
class ShutdownError extends Error {
  override readonly name = 'ShutdownError';
}

async function finish(ctx: CallsContext, callId: string, outcome: { result: unknown } | { error: CallError }): Promise<void> {
  const completed = 'result' in outcome;
  const delivered = await inTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<CallRow>(
      `UPDATE calls SET status = $2, result = $3, error = $4, completed_at = now()
        WHERE id = $1 AND status = 'processing' RETURNING *`,
      [callId, completed ? 'completed' : 'failed', completed ? JSON.stringify(outcome.result) : null, completed ? null : JSON.stringify(outcome.error)],
    );
    const row = rows[0];
    if (!row) return 0;
    const type = completed ? 'call.analysis.completed' : 'call.analysis.failed';
    return (await recordEvent(client, ctx.queue, row.tenant_id, type, callEventData(callResource(row)))).deliveries;
  });
  if (delivered) ctx.queue.wake(DELIVER_QUEUE);
}

/** The engines this tenant's calls go to (its settings over the deployment's), its own key unsealed for this job only. */
async function tenantEnginesOf(ctx: CallsContext, tenantId: string): Promise<EngineSpec[]> {
  const { settings } = ctx;
  const policy = { allowPrivate: settings.allowPrivateUrls, allowCidrs: settings.allowCidrs };
  return tenantEngines(settings.speech, await loadTenantSpeech(ctx.pool, tenantId), ctx.tokenKey, tenantId, policy, settings.speech.timeoutMs);
}

/**
 * One attempt at analysing a call. The call row is claimed (queued or processing: a re-run after
 * a crash claims it again), the recording streamed through the SSRF guard into the decoder and
 * analyser, and the outcome written with its webhook event in one transaction. Transient
 * failures throw so pg-boss retries them, until the last attempt, which records the failure.
 */
export async function runAnalysisJob(ctx: CallsContext, job: PgBoss.JobWithMetadata<AnalyzeJob>, stopping: AbortSignal): Promise<void> {
  const { callId } = job.data;
  if (stopping.aborted) throw new ShutdownError('the server is stopping');
  const { rows } = await ctx.pool.query<CallRow>(
    `UPDATE calls SET status = 'processing', started_at = coalesce(started_at, now()), attempts = attempts + 1
      WHERE id = $1 AND status IN ('queued', 'processing') RETURNING *`,
    [callId],
  );
  const call = rows[0];
  if (!call) return;
  const { settings } = ctx;
  try {
    const recording = await fetchRecording(call.audio_url, {
      ...ctx.outbound,
      maxBytes: settings.maxRecordingBytes,
      timeoutMs: settings.fetchTimeoutSeconds * 1000,
      signal: stopping,
    });
    const analysed = await ctx.analysis.analyze(recording.body, {
      maxDurationSeconds: settings.maxDurationSeconds,
      analyzer: { vad: settings.vad },
      speech: { language: call.language, engines: await tenantEnginesOf(ctx, call.tenant_id) },
    });
    await finish(ctx, callId, { result: await withTenantInsights(ctx.pool, call.tenant_id, analysed, call.insight_options) });
  } catch (failure) {
    if (stopping.aborted) throw new ShutdownError('the server stopped during the analysis; it runs again');
    const { error, transient } = classifyFailure(failure);
    if (transient && job.retryCount < job.retryLimit) {
      ctx.log.warn({ call: callId, code: error.code, detail: error.message, attempt: job.retryCount + 1 }, 'call analysis failed; it will be retried');
      throw failure;
    }
    if (error.code === 'internal_error') ctx.log.error({ call: callId, err: (failure as Error).message }, 'call analysis failed');
    await finish(ctx, callId, { error });
  }
}

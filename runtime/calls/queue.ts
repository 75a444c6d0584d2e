import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { CallsSettings } from './settings.js';
import { currentRequestId, runInRequest } from '../http/request-scope.js';
import { metrics } from '../metrics.js';
import { inDetachedSpan, SpanKind, traceCarrier } from '../tracing.js';

/** What a job keeps of the request that queued it: its id (for log lines and outbound calls) and its trace context. */
function origin(): { requestId?: string; trace?: Record<string, string> } {
  const requestId = currentRequestId();
  const trace = traceCarrier();
  return { ...(requestId === null ? {} : { requestId }), ...(Object.keys(trace).length === 0 ? {} : { trace }) };
}

export const ANALYZE_QUEUE = 'calls-analyze';
export const DELIVER_QUEUE = 'calls-webhook-deliver';

/** `requestId`: the request that caused the job, which its outbound calls carry (absent on jobs queued before it was kept). */
export interface AnalyzeJob {
  readonly callId: string;
  readonly requestId?: string;
  /** The queuing request's `traceparent`, while traces are on: the job's span is its child. */
  readonly trace?: Record<string, string>;
}
export interface DeliverJob {
  readonly deliveryId: string;
  readonly requestId?: string;
  readonly trace?: Record<string, string>;
}

export type JobHandler<T> = (job: PgBoss.JobWithMetadata<T>, signal: AbortSignal) => Promise<void>;

/** pg-boss's `db` option: the job row is written by our own transaction, so it exists exactly when our rows do. */
function inClient(client: pg.ClientBase): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

/**
 * The job queues of the call-analysis API, in pg-boss 10 (the last line that runs on Node 20).
 * Jobs only carry ids; the `calls` and outbox tables stay the source of truth. A job whose process
 * dies stays active until `expireInSeconds`, then maintenance fails it into a retry, so another
 * process (or this one after a restart) runs it again.
 */
export class CallsQueue {
  readonly #workers = new Map<string, string[]>();
  readonly #stopping = new AbortController();
  #active = 0;

  private constructor(
    private readonly boss: PgBoss,
    private readonly settings: CallsSettings,
    private readonly log: Logger,
  ) {}

  static async start(connectionString: string, settings: CallsSettings, log: Logger): Promise<CallsQueue> {
    const boss = new PgBoss({
      connectionString,
      schema: settings.queueSchema,
      max: 3,
      application_name: 'gantry-calls',
      pollingIntervalSeconds: settings.pollSeconds,
      maintenanceIntervalSeconds: settings.maintenanceSeconds,
      monitorStateIntervalSeconds: Math.max(60, settings.maintenanceSeconds),
      schedule: false,
    });
    const queue = new CallsQueue(boss, settings, log);
    boss.on('error', (error: Error) => log.error({ err: error.message }, 'calls job queue error'));
    await boss.start();
    await createQueueRacing(boss, ANALYZE_QUEUE);
    await createQueueRacing(boss, DELIVER_QUEUE);
    return queue;
  }

  /**
   * Retry and expiry go on every job rather than on the queue: a queue keeps the options it was
   * created with, and the settings may have changed since.
   */
  #retry(expireInSeconds: number): PgBoss.SendOptions {
    const { jobRetryLimit, jobRetryDelaySeconds } = this.settings;
    return { retryLimit: jobRetryLimit, retryDelay: jobRetryDelaySeconds, retryBackoff: jobRetryDelaySeconds > 0, expireInSeconds };
  }

  /** In the caller's transaction; `id` = the call's id, so a second send of the same call is a no-op. */
  async enqueueAnalysis(client: pg.ClientBase, callId: string): Promise<void> {
    await this.boss.send(ANALYZE_QUEUE, { callId, ...origin() } satisfies AnalyzeJob, { ...this.#retry(this.settings.jobExpireSeconds), id: callId, db: inClient(client) });
  }

  /** A delivery job only re-runs when its process died mid-POST; failed POSTs are rescheduled by the delivery code. */
  async enqueueDelivery(client: pg.ClientBase, deliveryId: string, startAfter?: Date): Promise<void> {
    await this.boss.send(DELIVER_QUEUE, { deliveryId, ...origin() } satisfies DeliverJob, {
      ...this.#retry(this.settings.webhookTimeoutSeconds + 30),
      db: inClient(client),
      ...(startAfter ? { startAfter } : {}),
    });
  }

  /** Wakes this process's idle workers of a queue after a commit instead of waiting for their next poll. */
  wake(queue: string): void {
    for (const id of this.#workers.get(queue) ?? []) this.boss.notifyWorker(id);
  }

  /** Starts `count` workers on a queue, each running one job at a time. */
  async work<T>(queue: string, count: number, handler: JobHandler<T>): Promise<void> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        await this.boss.work<T>(queue, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: this.settings.pollSeconds }, async ([job]) => {
          this.#active++;
          const started = performance.now();
          try {
            // The job runs as part of the request that queued it: its log lines and outbound calls carry that id, its span is under the request's.
            const queued = job!.data as { requestId?: string; trace?: Record<string, string> } | null;
            await runInRequest(queued?.requestId, () => inDetachedSpan(`job ${queue}`, () => handler(job!, this.#stopping.signal), {
              kind: SpanKind.CONSUMER,
              carrier: queued?.trace,
              attributes: { 'messaging.system': 'pg-boss', 'messaging.destination.name': queue, 'messaging.message.id': job!.id },
            }));
          } finally {
            metrics.jobRan(queue, (performance.now() - started) / 1000);
            this.#active--;
          }
        }),
      );
    }
    this.#workers.set(queue, ids);
  }

  /** Jobs waiting in a queue (created or retrying), for the queue-depth gauge. */
  depth(queue: string): Promise<number> {
    return this.boss.getQueueSize(queue);
  }

  /** Resolves when the queue's own connections reach its tables: the job queue's part of readiness. */
  async ping(): Promise<void> {
    await this.boss.getQueue(ANALYZE_QUEUE);
  }

  /**
   * Stops fetching, cancels running jobs (their handlers see the abort and throw, so pg-boss
   * fails them into a retry that the next process picks up), then stops pg-boss and its pool.
   */
  async stop(): Promise<void> {
    // Stop fetching first: a cancelled job goes straight back to retry and would be fetched again.
    for (const queue of this.#workers.keys()) await this.boss.offWork(queue);
    this.#stopping.abort();
    const until = Date.now() + 5_000;
    while (this.#active > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.boss.stop({ graceful: true, wait: true, timeout: 2_000 });
    this.log.debug('calls job queue stopped');
  }
}

/** SQLSTATEs of two processes creating the same queue at once: deadlock, or the other one won. */
const CONCURRENT_CREATE = new Set(['40P01', '23505', '42P07']);

/**
 * pg-boss's createQueue is idempotent but not safe against a concurrent call from another
 * process (it creates a partition and deadlocks); several hosts starting at once retry.
 */
async function createQueueRacing(boss: PgBoss, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await boss.createQueue(name);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (attempt >= 5 || !CONCURRENT_CREATE.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 50));
    }
  }
}

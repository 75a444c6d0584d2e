import type pg from 'pg';
import type { Logger } from 'pino';
import type { GuardOptions } from '../outbound/guarded-request.js';
import type { AnalysisPool } from './jobs/analysis-pool.js';
import type { CallsQueue } from './queue.js';
import type { CallsSettings } from './settings.js';

/** What the routes and workers of the call-analysis API share. */
export interface CallsContext {
  readonly pool: pg.Pool;
  readonly settings: CallsSettings;
  readonly queue: CallsQueue;
  /** HS256 key of OAuth access tokens. */
  readonly tokenKey: Uint8Array;
  readonly log: Logger;
  /** The SSRF policy for recordings and webhook targets (a resolver can be injected for tests). */
  readonly outbound: GuardOptions;
  /** Worker threads that decode and analyse. */
  readonly analysis: AnalysisPool;
  /** The clock of Idempotency-Key windows (tests inject one to step past a window). */
  readonly now: () => Date;
}

import { MIN_BUDGET, perProjectShare, type BudgetLimits, type WaitLimits } from '../db/connection-budget.js';

/**
 * How long a request may wait for a connection before it is answered 503 + Retry-After:
 * a connection frees within moments when requests are short, and a client that waited this
 * long is better told to retry than kept hanging (PostgREST waits 10 s by default).
 */
const MAX_WAIT_MS = 10_000;

/** Waiting acquisitions per budgeted connection: beyond that, queueing only adds latency. */
const WAITING_PER_CONNECTION = 8;

/**
 * Requests that may wait inside one project's pool (its data connections, or its admin pool).
 * Not scaled by the pool's size: a project's few connections serve thousands of requests a
 * second when queries are short, so a burst of a thousand clients (a benchmark at 50
 * connections, a page fan-out) must wait its turn, not be refused; the bound is there so a
 * project whose queries hang fails fast rather than piling up requests without end.
 */
export const MAX_WAITING_PER_PROJECT_POOL = 1_000;

/** The host's connection budget for DB_MAX_CONNECTIONS. */
export function connectionBudgetLimits(max: number): BudgetLimits {
  // A project grows past its share only while a project arriving would still find what it needs to start at once.
  return { max, perOwner: perProjectShare(max), headroom: MIN_BUDGET, maxWaiting: max * WAITING_PER_CONNECTION, maxWaitMs: MAX_WAIT_MS };
}

/**
 * The same bounds for a request waiting inside one project (all its connections or pipelined
 * slots busy): a project flooded by its own clients answers 503 + Retry-After like a full host.
 */
export const PROJECT_WAIT_LIMITS: WaitLimits = { maxWaiting: MAX_WAITING_PER_PROJECT_POOL, maxWaitMs: MAX_WAIT_MS };

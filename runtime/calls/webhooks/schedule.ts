/**
 * When the next delivery attempt runs, or null when the schedule is spent. `attemptsMade` counts
 * the failed attempts so far (1 after the first); the delay is the schedule's entry ±20 % jitter,
 * so endpoints that failed together do not all retry at the same instant.
 */
export function nextAttemptDelayMs(schedule: readonly number[], attemptsMade: number, random: () => number = Math.random): number | null {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * 1000 * (0.8 + 0.4 * random()));
}

export type AttemptOutcome = 'succeeded' | 'gone' | 'failed';

/** Standard Webhooks advice: 2xx delivered, 410 means "stop sending", everything else (3xx included) failed. */
export function outcomeOf(status: number | null): AttemptOutcome {
  if (status !== null && status >= 200 && status < 300) return 'succeeded';
  if (status === 410) return 'gone';
  return 'failed';
}

const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * A receiver that answers 429 or 503 with `Retry-After` (seconds or an HTTP date) is not retried
 * sooner than it asked, up to a day. Null when there is no usable header.
 */
export function retryAfterMs(status: number | null, header: string | undefined, now: number = Date.now()): number | null {
  if ((status !== 429 && status !== 503) || !header) return null;
  const seconds = /^\d{1,9}$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - now;
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER_MS) : null;
}

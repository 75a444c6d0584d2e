import type pg from 'pg';
import { CallsApiError } from './errors.js';

/**
 * Counts a request against the tenant's fixed one-minute window in PostgreSQL, so every server
 * process shares one budget. Throws 429 with Retry-After when the window is spent. The first hit
 * of a new window deletes the tenant's old windows.
 */
export async function hitRateLimit(pool: pg.Pool, tenantId: string, perMinute: number): Promise<void> {
  const { rows } = await pool.query<{ hits: number; reset_s: number }>(
    `INSERT INTO calls_rate_windows (tenant_id, window_start, hits) VALUES ($1, date_trunc('minute', now()), 1)
     ON CONFLICT (tenant_id, window_start) DO UPDATE SET hits = calls_rate_windows.hits + 1
     RETURNING hits, ceil(extract(epoch FROM window_start + interval '1 minute' - now()))::int AS reset_s`,
    [tenantId],
  );
  const { hits, reset_s } = rows[0]!;
  if (hits === 1) await pool.query(`DELETE FROM calls_rate_windows WHERE tenant_id = $1 AND window_start < date_trunc('minute', now())`, [tenantId]);
  const headers = {
    'RateLimit-Limit': String(perMinute),
    'RateLimit-Remaining': String(Math.max(0, perMinute - hits)),
    'RateLimit-Reset': String(Math.max(1, reset_s)),
  };
  if (hits > perMinute) {
    throw new CallsApiError(429, 'rate_limited', `more than ${perMinute} requests this minute for this tenant`, {
      headers: { ...headers, 'Retry-After': String(Math.max(1, reset_s)) },
    });
  }
}

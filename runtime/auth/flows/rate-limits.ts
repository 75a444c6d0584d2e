import type { Queryable } from '../../db/transaction.js';
import type { ProjectSettings } from '../../platform/project-context.js';

export type RateLimitBucket = 'signup' | 'token' | 'recover' | 'resend' | 'otp' | 'magiclink' | 'user' | 'verify' | 'anonymous' | 'mfa_challenge' | 'mfa_verify' | 'passkey' | 'sms_sent' | 'oauth_client_register';

export interface RateLimitRule {
  readonly limit: number;
  readonly windowSeconds: number;
}

export type RateLimitConfig = Readonly<Record<RateLimitBucket, RateLimitRule>>;

/** GoTrue counts its limits per 5 minutes; so do the settings. */
export const RATE_LIMIT_WINDOW_SECONDS = 300;
/** Except anonymous sign-ins, counted per hour. */
const ANONYMOUS_WINDOW_SECONDS = 3600;

/** GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY's default: 15 per minute, for challenge and verify each. */
const MFA_RULE: RateLimitRule = { limit: 15, windowSeconds: 60 };

const OAUTH_CLIENT_REGISTER_RULE: RateLimitRule = { limit: 10, windowSeconds: RATE_LIMIT_WINDOW_SECONDS };

/**
 * The buckets' rules from the project's settings (GoTrue's grouping): /token has its
 * own limit, /verify and /reset share one, and sign-up, recover, resend, /otp,
 * /magiclink and PUT /user each count separately against the OTP limit, and the unauthenticated
 * passkey sign-in options (each stores a challenge) against the passkey limit. Counted per project
 * (each project has its own table) and client IP.
 */
export function rateLimitsFrom(settings: ProjectSettings): RateLimitConfig {
  const rule = (limit: number): RateLimitRule => ({ limit, windowSeconds: RATE_LIMIT_WINDOW_SECONDS });
  const otp = rule(settings['auth.rate_limit.otp']);
  return {
    token: rule(settings['auth.rate_limit.token_refresh']),
    verify: rule(settings['auth.rate_limit.verify']),
    signup: otp,
    recover: otp,
    resend: otp,
    otp,
    magiclink: otp,
    user: otp,
    anonymous: { limit: settings['auth.rate_limit.anonymous_users'], windowSeconds: ANONYMOUS_WINDOW_SECONDS },
    mfa_challenge: MFA_RULE,
    mfa_verify: MFA_RULE,
    passkey: rule(settings['auth.rate_limit.passkey']),
    // GoTrue's RATE_LIMIT_SMS_SENT: per hour, every phone of the project together.
    sms_sent: { limit: settings['auth.rate_limit.sms_sent'], windowSeconds: 3600 },
    // GoTrue's RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER default: anyone may register a client, 10 per 5 minutes and client IP.
    oauth_client_register: OAUTH_CLIENT_REGISTER_RULE,
  };
}

const STALE_AFTER_MS = 24 * 3600 * 1000;

export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** Seconds until the window resets; meaningful when not allowed. */
  readonly retryAfterSeconds: number;
}

/**
 * Fixed-window counter in one atomic upsert, so several server processes
 * counting against the same project database agree.
 */
export async function hitRateLimit(
  db: Queryable,
  bucket: RateLimitBucket,
  key: string,
  rule: RateLimitRule,
  now: Date,
): Promise<RateLimitVerdict> {
  const { rows } = await db.query<{ window_start: Date; hits: number }>(
    `INSERT INTO auth.rate_limits AS r (bucket, key, window_start, hits) VALUES ($1, $2, $3, 1)
     ON CONFLICT (bucket, key) DO UPDATE SET
       window_start = CASE WHEN r.window_start + make_interval(secs => $4) <= $3 THEN $3 ELSE r.window_start END,
       hits = CASE WHEN r.window_start + make_interval(secs => $4) <= $3 THEN 1 ELSE r.hits + 1 END
     RETURNING window_start, hits`,
    [bucket, key, now, rule.windowSeconds],
  );
  const row = rows[0] as { window_start: Date; hits: number };
  if (row.hits === 1) {
    // A window just opened: a cheap moment to drop counters of clients gone for a day, so the table stays small.
    await db.query(`DELETE FROM auth.rate_limits WHERE bucket = $1 AND window_start < $2`, [
      bucket,
      new Date(now.getTime() - STALE_AFTER_MS),
    ]);
  }
  const resetsAt = row.window_start.getTime() + rule.windowSeconds * 1000;
  return {
    allowed: row.hits <= rule.limit,
    retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - now.getTime()) / 1000)),
  };
}

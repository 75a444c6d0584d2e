import type { SessionRow } from './sessions.js';

export interface AmrEntry {
  readonly method: string;
  readonly timestamp: number;
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * The access token's `amr`: how the session was opened and, once a TOTP code was
 * verified in it, a `totp` entry; most recent first, as GoTrue orders them.
 */
export function amrClaims(session: SessionRow): AmrEntry[] {
  const entries: { method: string; at: Date }[] = [{ method: session.amr_method, at: session.created_at }];
  if (session.mfa_verified_at !== null && session.mfa_verified_at !== undefined) entries.push({ method: 'totp', at: session.mfa_verified_at });
  // Ordered by the exact times, as GoTrue: two steps within one second keep their order once shown in seconds.
  return entries.sort((a, b) => b.at.getTime() - a.at.getTime()).map(({ method, at }) => ({ method, timestamp: seconds(at) }));
}

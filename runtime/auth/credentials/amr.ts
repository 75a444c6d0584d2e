import type { SessionRow } from '../storage/sessions.js';

export interface AmrEntry {
  readonly method: string;
  readonly timestamp: number;
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** GoTrue's amr method per factor type. */
const MFA_AMR_METHOD: Readonly<Record<string, string>> = { totp: 'totp', webauthn: 'mfa/webauthn', phone: 'mfa/phone' };

/**
 * The access token's `amr`: how the session was opened and, once a second factor was
 * verified in it, its entry (`totp`, `mfa/webauthn`, `mfa/phone`); most recent first, as GoTrue orders them.
 */
export function amrClaims(session: SessionRow): AmrEntry[] {
  const entries: { method: string; at: Date }[] = [{ method: session.amr_method, at: session.created_at }];
  if (session.mfa_verified_at !== null && session.mfa_verified_at !== undefined) entries.push({ method: MFA_AMR_METHOD[session.mfa_method ?? 'totp'] ?? 'totp', at: session.mfa_verified_at });
  // Ordered by the exact times, as GoTrue: two steps within one second keep their order once shown in seconds.
  return entries.sort((a, b) => b.at.getTime() - a.at.getTime()).map(({ method, at }) => ({ method, timestamp: seconds(at) }));
}

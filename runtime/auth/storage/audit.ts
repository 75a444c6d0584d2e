import type { Queryable } from '../../db/transaction.js';

export type AuditEvent =
  | 'user_signedup'
  | 'user_repeated_signup'
  | 'user_confirmation_requested'
  | 'user_confirmed'
  | 'login'
  | 'login_failed'
  | 'token_refreshed'
  | 'token_reuse_detected'
  | 'token_revoked'
  | 'logout'
  | 'user_recovery_requested'
  | 'user_updated_password'
  | 'user_modified'
  | 'user_created'
  | 'user_deleted'
  | 'user_banned'
  | 'user_unbanned'
  | 'user_invited'
  | 'user_reauthenticate_requested'
  | 'factor_in_progress'
  | 'challenge_created'
  | 'verification_attempted'
  | 'factor_unenrolled'
  | 'factor_deleted'
  | 'factor_updated'
  | 'passkey_created'
  | 'passkey_updated'
  | 'passkey_deleted'
  | 'identity_linked'
  | 'identity_unlinked';

export interface AuditEntry {
  readonly event: AuditEvent;
  readonly userId: string | null;
  readonly ip: string | null;
  /** Never a token or password: e-mail, actor, scope and similar facts only. */
  readonly payload?: Readonly<Record<string, unknown>>;
  readonly at: Date;
}

export async function writeAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    'INSERT INTO auth.audit_log_entries (event, user_id, ip_address, payload, created_at) VALUES ($1, $2, $3, $4, $5)',
    [entry.event, entry.userId, entry.ip, JSON.stringify(entry.payload ?? {}), entry.at],
  );
}

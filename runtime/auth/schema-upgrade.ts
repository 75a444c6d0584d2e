import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';

/**
 * Project databases bootstrapped before e-mail changes existed lack the columns and
 * the token type they need; there are no per-project migrations, so the auth API
 * adds them the first time an e-mail change is asked for. Checked before altering:
 * DDL notifies the host (schema watcher), so it must run once, not on every call.
 */
export async function upgradeForEmailChange(pool: pg.Pool): Promise<void> {
  const { rowCount } = await pool.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = 'auth' AND table_name = 'users' AND column_name = 'new_email'`,
  );
  if (rowCount) return;
  await inTransaction(pool, async (db) => {
    await db.query(`ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS new_email text, ADD COLUMN IF NOT EXISTS email_change_sent_at timestamptz`);
    await db.query(
      `ALTER TABLE auth.one_time_tokens DROP CONSTRAINT IF EXISTS one_time_tokens_token_type_check,
         ADD CONSTRAINT one_time_tokens_token_type_check CHECK (token_type IN ('confirmation', 'recovery', 'email_change'))`,
    );
  });
}

/** One upgrade check per router (the answer cannot go back to "missing"); a failed check is retried next time. */
export function onceUpgraded(pool: pg.Pool): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => {
    done ??= upgradeForEmailChange(pool).catch((error: unknown) => {
      done = null;
      throw error;
    });
    return done;
  };
}

import type pg from 'pg';
import { qualifiedName } from '../../db/identifiers.js';
import { inTransaction } from '../../db/transaction.js';

/** GoTrue's hookspgfunc default: the function runs under a 2 s statement timeout. */
const PG_HOOK_TIMEOUT_MS = 2000;

/** The role GoTrue calls hook functions as; Supabase's docs grant hook functions and their tables to it. */
export const HOOK_ROLE = 'supabase_auth_admin';

/** `pg-functions://postgres/<schema>/<function>` -> `"schema"."function"` (names already checked by the setting). */
export function hookFunctionName(uri: string): string {
  const [, schema, fn] = new URL(uri).pathname.split('/') as [string, string, string];
  return qualifiedName(schema, fn);
}

/**
 * Calls the hook function with the input as jsonb, in a transaction of its own, as
 * `supabase_auth_admin` and under GoTrue's statement timeout; its jsonb result, or null.
 */
export async function callPgFunctionHook(pool: pg.Pool, uri: string, input: unknown): Promise<unknown> {
  return inTransaction(pool, async (db) => {
    await db.query(`SET LOCAL ROLE ${HOOK_ROLE}`);
    await db.query(`SET LOCAL statement_timeout = ${PG_HOOK_TIMEOUT_MS}`);
    const { rows } = await db.query<{ output: unknown }>(`SELECT ${hookFunctionName(uri)}($1::jsonb)::jsonb AS output`, [JSON.stringify(input)]);
    return rows[0]?.output ?? null;
  });
}

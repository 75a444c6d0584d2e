import { resolveHooks, type AuthHooks, type HookName } from '../../runtime/settings/hook-settings.js';
import type { AuthProject } from './auth/harness.js';

/**
 * Postgres-function hooks for tests: `public.<fn>(event jsonb)`, run as supabase_auth_admin,
 * keeps each payload it is asked with in `public.<fn>_calls`, then runs `decide` (a PL/pgSQL
 * statement that RETURNs the hook's answer).
 */
export function recordingHookSql(fn: string, decide: string): string {
  return `
CREATE TABLE public.${fn}_calls (payload jsonb NOT NULL);
GRANT INSERT ON public.${fn}_calls TO supabase_auth_admin;
GRANT USAGE ON SCHEMA public TO supabase_auth_admin;
CREATE FUNCTION public.${fn}(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.${fn}_calls VALUES (event);
  ${decide}
END $$;
GRANT EXECUTE ON FUNCTION public.${fn} TO supabase_auth_admin;
`;
}

/** The project setting that points hook `name` at `public.<fn>`. */
export function pgFunctionHook(name: HookName, fn: string): AuthHooks {
  return resolveHooks({ [`auth.hook.${name}.enabled`]: true, [`auth.hook.${name}.uri`]: `pg-functions://postgres/public/${fn}` });
}

/** The payloads `public.<fn>` was asked with, oldest first. */
export async function hookCalls(project: AuthProject, fn: string): Promise<Record<string, unknown>[]> {
  const { rows } = await project.db.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM public.${fn}_calls`);
  return rows.map((row) => row.payload);
}

/** A before_user_created hook that refuses addresses @blocked.example.org with 403 "Sign-ups from this domain are not allowed". */
export const BEFORE_USER_CREATED_SQL = recordingHookSql(
  'before_user_created',
  `IF event -> 'user' ->> 'email' LIKE '%@blocked.example.org' THEN
    RETURN '{"error": {"http_code": 403, "message": "Sign-ups from this domain are not allowed"}}'::jsonb;
  END IF;
  RETURN '{}'::jsonb;`,
);

/** The payloads the before_user_created hook was asked with for a user of this address. */
export async function hookCallsFor(project: AuthProject, email: string): Promise<Record<string, unknown>[]> {
  return (await hookCalls(project, 'before_user_created')).filter((payload) => (payload.user as { email?: unknown } | undefined)?.email === email);
}

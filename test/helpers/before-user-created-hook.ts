import { resolveHooks, type AuthHooks } from '../../runtime/auth/hooks/hook-settings.js';
import type { AuthProject } from '../integration/auth/harness.js';

/**
 * A before_user_created hook (a Postgres function, run as supabase_auth_admin) that keeps each
 * payload it is asked with in public.hook_calls and refuses addresses @blocked.example.org
 * with 403 "Sign-ups from this domain are not allowed".
 */
export const BEFORE_USER_CREATED_SQL = `
CREATE TABLE public.hook_calls (payload jsonb NOT NULL);
GRANT INSERT ON public.hook_calls TO supabase_auth_admin;
GRANT USAGE ON SCHEMA public TO supabase_auth_admin;
CREATE FUNCTION public.before_user_created(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.hook_calls VALUES (event);
  IF event -> 'user' ->> 'email' LIKE '%@blocked.example.org' THEN
    RETURN '{"error": {"http_code": 403, "message": "Sign-ups from this domain are not allowed"}}'::jsonb;
  END IF;
  RETURN '{}'::jsonb;
END $$;
GRANT EXECUTE ON FUNCTION public.before_user_created TO supabase_auth_admin;
`;

/** The project setting that points the hook at that function. */
export function beforeUserCreatedHook(): AuthHooks {
  return resolveHooks({
    'auth.hook.before_user_created.enabled': true,
    'auth.hook.before_user_created.uri': 'pg-functions://postgres/public/before_user_created',
  });
}

/** The payloads the hook was asked with for a user of this address. */
export async function hookCallsFor(project: AuthProject, email: string): Promise<Record<string, unknown>[]> {
  const { rows } = await project.db.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM public.hook_calls WHERE payload -> 'user' ->> 'email' = $1`, [email]);
  return rows.map((row) => row.payload);
}

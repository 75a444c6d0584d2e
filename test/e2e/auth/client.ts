import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { AuthProject } from '../../helpers/auth/harness.js';

/** supabase-js for a test project: memory storage, no timers, nothing read from a URL. */
export function authClient(project: AuthProject, key: string = project.anonKey, flowType: 'implicit' | 'pkce' = 'implicit'): SupabaseClient {
  return createClient(project.projectUrl, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType },
    realtime: { transport: WebSocket as never },
  });
}

import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { TestProject } from '../../helpers/platform.js';

/**
 * supabase-js on a project with its anon key and a storage key of its own: auth-js shares its
 * JWKS cache between clients of one storage key, and the default is the same for every
 * project on 127.0.0.1. `fetch` replaces the client's (to log its requests).
 */
export function isolatedClient(project: TestProject, fetchImpl?: typeof fetch): SupabaseClient {
  return createClient(project.url, project.keys.anon_key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, storageKey: `sb-${randomUUID()}` },
    realtime: { transport: WebSocket as never },
    global: fetchImpl ? { fetch: fetchImpl } : {},
  });
}

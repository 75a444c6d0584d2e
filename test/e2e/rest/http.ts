import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { signJwt } from '../../../runtime/tokens/jwt.js';
import type { TestProject } from '../../helpers/platform.js';

/** One answer of the data API, read whole. */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  readonly json: unknown;
}

export interface CallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** A string or bytes go as they are; anything else is JSON-encoded. */
  readonly body?: unknown;
  /** Bearer token; the apikey header carries the anon key unless `apikey` says otherwise. */
  readonly token?: string;
  /** null: no apikey header. */
  readonly apikey?: string | null;
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `call('/todos?select=id', {...})` against `{project}/rest/v1`. */
export function restCaller(project: TestProject) {
  return async function call(path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const apikey = options.apikey === undefined ? project.keys.anon_key : options.apikey;
    if (apikey !== null) headers.apikey = apikey;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' || options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${project.url}/rest/v1${path}`, { method: options.method ?? 'GET', headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: parse(text) };
  };
}

/** A user's access token for the project: role authenticated, `sub` the user id. */
export function userToken(project: TestProject, sub: string, extra: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(project.record.jwtSecret, { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600, ...extra });
}

/** The error body every failure of the data API has. */
export function errorBody(code: string, message: string | RegExp, details: unknown = null, hint: unknown = null): Record<string, unknown> {
  return { code, message: typeof message === 'string' ? message : expect.stringMatching(message), details, hint };
}

/** supabase-js on the project's URL with its anon key, as an app creates it; a user token rides as Bearer. */
export function supabaseClient(project: TestProject, token?: string): SupabaseClient {
  return createClient(project.url, project.keys.anon_key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
    global: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
}

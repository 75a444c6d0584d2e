import fs from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from './platform.js';
import { cliOk, jsonObject, type Installation } from './serve-process.js';

/**
 * Projects as the CLI prints them and as a running `gantry serve` answers for them over
 * HTTP, seen from outside the product.
 */

/** What `project create` and `project keys` print. */
export interface PrintedKeys {
  readonly ref: string;
  readonly url: string;
  readonly anon_key: string;
  readonly service_key: string;
  readonly jwt_secret: string;
}

/** The schema file of the black-box tests (products with two rows, and an RPC). */
export const SHOP_SQL = path.join(repoRoot, 'test/fixtures/schemas/shop.sql');

/** Notes behind row-level security on auth.uid(), with one row (id 1) of another user. */
export const OWN_NOTES_SQL = path.join(repoRoot, 'test/fixtures/schemas/own-notes.sql');

/** `project create <ref> --json` with the given extra arguments; the keys it printed. */
export async function createProject(inst: Installation, args: readonly string[]): Promise<PrintedKeys> {
  return jsonObject(await cliOk(['project', 'create', uniqueRef('bb'), ...args, '--json'], inst.env)) as unknown as PrintedKeys;
}

/** A request to a project with a key in the apikey header (the anon key by default). */
export function getProject(keys: PrintedKeys, pathAndQuery: string, key = keys.anon_key): Promise<Answer> {
  return request(`${keys.url}/${pathAndQuery}`, { headers: { apikey: key } });
}

/** The host's answer for a ref it does not serve (yet, or any more). */
export function projectNotFound(ref: string): Record<string, unknown> {
  return { message: `project "${ref}" not found`, code: 'PGRST125', details: null, hint: null };
}

/** A throwaway project ref (refs are global to a shared cluster's platform database). */
export function uniqueRef(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** Writes a SQL file into the installation's home and returns its path. */
export async function sqlFile(inst: Installation, name: string, sql: string): Promise<string> {
  const file = path.join(inst.home, name);
  await fs.writeFile(file, sql);
  return file;
}

/** Pins the auth API's answers to the version supabase-js asks for. */
const API_VERSION = { 'X-Supabase-Api-Version': '2024-01-01' };

/**
 * A JSON request to a project on the host at `baseUrl`, with the anon key and, when given, a
 * user's access token and further headers.
 */
export function callProject(
  baseUrl: string,
  keys: PrintedKeys,
  method: string,
  pathAndQuery: string,
  options: { readonly body?: unknown; readonly bearer?: string; readonly headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { apikey: keys.anon_key, ...API_VERSION, ...options.headers };
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return request(`${baseUrl}/v1/${keys.ref}/${pathAndQuery}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
}

/** What auth answers a sign-in, sign-up (autoconfirmed) or refresh with. */
export interface Session {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly user: { readonly id: string; readonly email: string };
}

/** The session of a 200 answer; throws with the answer otherwise. */
export function session(answer: Answer): Session {
  if (answer.status !== 200) throw new Error(`expected a session, got ${answer.status} ${answer.text}`);
  return answer.body as Session;
}

/** The answer of a request, body parsed as JSON when it is JSON. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the body
  }
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * Polls `probe` until `done` holds, for at most `ms` from now; every answer seen is
 * handed to `seen` first (to assert what may never be answered on the way).
 */
export async function eventually(
  ms: number,
  probe: () => Promise<Answer>,
  done: (answer: Answer) => boolean,
  seen: (answer: Answer) => void = () => undefined,
): Promise<Answer> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await probe();
    seen(answer);
    if (done(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms; last answer ${answer.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls one table of a project on one host while the project comes into being. */
export interface TableWatch {
  /** From now on poll with this key (before, a served project asks for one: 401 PGRST302). */
  useKey(key: string): void;
  /** Stops polling; resolves with every answer that was not allowed. */
  stop(): Promise<Answer[]>;
}

/**
 * Starts polling `{baseUrl}/v1/<ref>/rest/v1/<table>` at once. A project that is being
 * created may answer "project not found", "not ready yet" (503 PGRST002), ask for a key,
 * or serve the table; never may it answer as if the table did not exist (42P01,
 * PGRST205, "no route") nor fail otherwise.
 */
export function watchTable(baseUrl: string, ref: string, table: string): TableWatch {
  const url = `${baseUrl}/v1/${ref}/rest/v1/${table}`;
  const notFound = JSON.stringify(projectNotFound(ref));
  const unexpected: Answer[] = [];
  let key: string | null = null;
  let stopped = false;
  const allowed = (answer: Answer, withKey: boolean): boolean =>
    (answer.status === 404 && JSON.stringify(answer.body) === notFound) ||
    // PostgREST's "schema cache not ready": the host knows the project but cannot serve it yet.
    (answer.status === 503 && (answer.body as { code?: string }).code === 'PGRST002') ||
    (!withKey && answer.status === 401 && (answer.body as { code?: string }).code === 'PGRST302') ||
    (withKey && answer.status === 200);
  const polling = (async () => {
    while (!stopped) {
      const withKey = key;
      const answer = await request(url, withKey ? { headers: { apikey: withKey } } : {});
      if (!allowed(answer, withKey !== null)) unexpected.push(answer);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    useKey(value) {
      key = value;
    },
    async stop() {
      stopped = true;
      await polling;
      return unexpected;
    },
  };
}

import fs from 'node:fs/promises';
import { signJwt } from '../runtime/tokens/jwt.js';
import { autocannon } from './load.js';

/**
 * Issue 26's mixed workload: many users (distinct tokens, so the host's token cache misses as in
 * production), 70% reads (filters, an embed, an exact count), 20% writes (insert, update by key),
 * 10% RPC, each in the shape supabase-js sends it (apikey + bearer, x-client-info, select=* and
 * Prefer: return=representation on writes, RPC as POST with a JSON body).
 */
export interface MixedOptions {
  /** `{base}/v1/<ref>/rest/v1` */
  readonly apiUrl: string;
  readonly anonKey: string;
  readonly jwtSecret: string;
  readonly users: number;
  readonly connections: number;
  readonly duration: number;
  /** The table the reads filter: `todos`, or `hooked_todos` (the bench extension's afterRead hook). */
  readonly readTable: string;
  /** The server's pid, for its CPU time and peak RSS (Linux /proc). */
  readonly serverPid: number;
}

export interface MixedResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Server CPU seconds per wall second (1.0 = one core busy). */
  readonly cpuCores: number;
  readonly rssMb: number;
}

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const CLIENT_INFO = 'supabase-js-node/2.45.0';

/** A user's id as bench/data-api-schema.sql numbers owners (1–100 own rows; the rest none yet). */
export function benchUserId(n: number): string {
  return `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`;
}

/** The request shapes, by weight out of 100, for user `token`; `pick` in [0, 100). */
export function mixedRequest(pick: number, token: string, anonKey: string, readTable: string, n: number): Req {
  const headers: Record<string, string> = { apikey: anonKey, authorization: `Bearer ${token}`, 'x-client-info': CLIENT_INFO, accept: 'application/json' };
  const write = { ...headers, 'content-type': 'application/json', prefer: 'return=representation' };
  if (pick < 35) return { method: 'GET', path: `/${readTable}?select=*&done=eq.false&order=id.desc&limit=20`, headers };
  if (pick < 50) return { method: 'GET', path: '/projects?select=id,name,tasks(id,title,done)&limit=5', headers };
  if (pick < 60) return { method: 'GET', path: `/${readTable}?select=id,title&priority=gte.2&limit=10`, headers };
  // select('id', { count: 'exact' }).limit(1): a GET, since autocannon's parser waits for a HEAD answer's body.
  if (pick < 70) return { method: 'GET', path: `/${readTable}?select=id&limit=1`, headers: { ...headers, prefer: 'count=exact' } };
  if (pick < 80) return { method: 'POST', path: '/entries?select=*', headers: write, body: JSON.stringify({ title: `mixed ${n}` }) };
  if (pick < 90) return { method: 'PATCH', path: `/notes?id=eq.${n}&select=*`, headers: write, body: JSON.stringify({ body: `mixed ${n}` }) };
  return { method: 'POST', path: '/rpc/my_todo_count', headers: { ...headers, 'content-type': 'application/json' }, body: '{"done":false}' };
}

/** A process's CPU time so far, user and system (Linux /proc). */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks (100 Hz on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function peakRssMb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

export async function runMixed(options: MixedOptions): Promise<MixedResult> {
  const now = Math.floor(Date.now() / 1000);
  const tokens = Array.from({ length: options.users }, (_, i) => signJwt(options.jwtSecret, {
    sub: benchUserId(i + 1), role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600,
  }));
  const prefix = new URL(options.apiUrl).pathname;
  // Each shape once for a user who owns rows, before load: all must be 2xx.
  for (const pick of [0, 40, 55, 65, 75, 85, 95]) {
    const req = mixedRequest(pick, tokens[6]!, options.anonKey, options.readTable, 7);
    const res = await fetch(`${options.apiUrl}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
    if (!res.ok) throw new Error(`mixed preflight: ${req.method} ${req.path} answered ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  let seq = 0;
  const setupRequest = (req: Req): Req => {
    seq += 1;
    const user = Math.floor(Math.random() * tokens.length);
    // Rows of notes are 1..1000, owned by user ((id - 1) % 100) + 1: pick one the user owns when it owns any.
    const note = ((user % 100) + 1) + 100 * Math.floor(Math.random() * 10);
    const shape = mixedRequest(Math.random() * 100, tokens[user]!, options.anonKey, options.readTable, user < 100 ? note : seq);
    return { ...req, ...shape, path: `${prefix}${shape.path}` };
  };
  const base = { url: options.apiUrl, connections: options.connections, requests: [{ method: 'GET', path: '/', setupRequest }] };
  await autocannon({ ...base, duration: 2 });
  const cpuBefore = await cpuSeconds(options.serverPid);
  const started = performance.now();
  const result = await autocannon({ ...base, duration: options.duration });
  const wall = (performance.now() - started) / 1000;
  const cpu = (await cpuSeconds(options.serverPid)) - cpuBefore;
  return {
    rps: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors,
    cpuCores: cpu / wall, rssMb: await peakRssMb(options.serverPid),
  };
}

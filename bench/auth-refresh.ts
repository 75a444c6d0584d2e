import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { generateOpaqueToken, hashToken, sealChildToken } from '../runtime/auth/credentials/opaque-tokens.js';
import { openSession } from '../runtime/auth/storage/sessions.js';
import { signUpUsers, type BenchUser } from './auth-users.js';
import { autocannon, type LoadResult } from './load.js';
import { cpuSeconds } from './mixed.js';
import { runPgbench, type PgbenchResult } from './pgbench.js';
import { fmt, median } from './report-format.js';
import { sampleConnections } from './server-connections.js';
import { captureStatements, scriptShapes, statementShape } from './statement-log.js';

/**
 * Issue 26 item 5: `POST /auth/v1/token?grant_type=refresh_token` under load, against pgbench
 * running the statements the server runs for one refresh. Every chain is a session of its own
 * whose token rotates with each refresh, so a chain is only ever presented by one request at a
 * time; there are as many chains as connections, on both sides.
 */

export interface RefreshChain {
  /** The refresh token to present next (the API side; pgbench keeps its own chains' hashes). */
  token: string;
  readonly ip: string;
}

/**
 * Fresh chains: a session each (the runtime's own openSession, as a sign-in opens one) for the
 * users in turn. Every load run starts on fresh ones: a run that ends cuts requests in flight,
 * whose rotation the bench never sees.
 */
export async function openChains(superuserUrl: string, users: readonly BenchUser[], count: number): Promise<RefreshChain[]> {
  const pool = new pg.Pool({ connectionString: superuserUrl, max: 1 });
  try {
    const chains: RefreshChain[] = [];
    for (let i = 0; i < count; i += 1) {
      const user = users[i % users.length] as BenchUser;
      const { refreshToken } = await openSession(pool, user.id, 'password', new Date());
      chains.push({ token: refreshToken, ip: user.ip });
    }
    return chains;
  } finally {
    await pool.end();
  }
}

/**
 * The refresh grant as a pgbench script (`-M extended`: node-postgres sends these statements
 * unnamed, parsed on every execution): the rate-limit upsert, then the transaction of
 * runtime/auth/storage/sessions.ts's refreshSession for a live token, statement for statement. A client
 * takes its chain's first token and address once (the `\if` block); each transaction then rotates
 * to a random successor, as a number where the server has a SHA-256 hex. The rate-limit window's
 * opening DELETE, once per address and five minutes on the server, is left out.
 */
export function refreshPgbenchScript(chains: readonly RefreshChain[], now: Date): { script: string; variables: Record<string, string> } {
  const script = [
    '\\if :n = 0',
    "SELECT (string_to_array(:heads, ','))[:client_id::int + 1] AS tok, (string_to_array(:ips, ','))[:client_id::int + 1] AS ip \\gset",
    '\\endif',
    '\\set n :n + 1',
    'INSERT INTO auth.rate_limits AS r (bucket, key, window_start, hits) VALUES (:bucket, :ip, :now, 1)'
      + ' ON CONFLICT (bucket, key) DO UPDATE SET'
      + ' window_start = CASE WHEN r.window_start + make_interval(secs => :window) <= :now THEN :now ELSE r.window_start END,'
      + ' hits = CASE WHEN r.window_start + make_interval(secs => :window) <= :now THEN 1 ELSE r.hits + 1 END'
      + ' RETURNING window_start, hits;',
    'BEGIN;',
    'SELECT * FROM auth.sessions WHERE id = (SELECT session_id FROM auth.refresh_tokens WHERE token_hash = :tok) FOR UPDATE;',
    'SELECT * FROM auth.refresh_tokens WHERE token_hash = :tok \\gset t_',
    'SELECT *, auth.user_factors(id) AS factors, auth.user_identities(id) AS identities FROM auth.users WHERE id = :t_user_id;',
    '\\set child random(1000000000000000000, 9000000000000000000)',
    'WITH rotated AS (UPDATE auth.refresh_tokens SET revoked = true, revoked_at = :now, child_sealed = :sealed, updated_at = :now WHERE id = :t_id),'
      + ' refreshed AS (UPDATE auth.sessions SET refreshed_at = :now, updated_at = :now WHERE id = :t_session_id)'
      + ' INSERT INTO auth.refresh_tokens (token_hash, user_id, session_id, parent_id, created_at, updated_at) VALUES (:child, :t_user_id, :t_session_id, :t_id, :now, :now);',
    'INSERT INTO auth.audit_log_entries (event, user_id, ip_address, payload, created_at) VALUES (:event, :t_user_id, :ip, :payload, :now);',
    'COMMIT;',
    '\\set tok :child',
    '',
  ].join('\n');
  return {
    script,
    variables: {
      n: '0',
      heads: chains.map((c) => hashToken(c.token)).join(','),
      ips: chains.map((c) => c.ip).join(','),
      bucket: 'token',
      window: '300',
      now: now.toISOString(),
      sealed: sealChildToken(generateOpaqueToken(), generateOpaqueToken()),
      event: 'token_refreshed',
      payload: JSON.stringify({ session_id: randomUUID() }),
    },
  };
}

interface ChainContext {
  chain?: RefreshChain;
}

/**
 * One autocannon run of refresh grants at `connections`, each request presenting a free chain's
 * token and putting the chain back with the rotated token its answer carries.
 */
export async function driveRefreshes(tokenUrl: string, anonKey: string, chains: RefreshChain[], connections: number, seconds: number): Promise<LoadResult> {
  if (chains.length < connections) throw new RangeError('a refresh chain per connection is needed');
  const free = [...chains];
  const url = new URL(tokenUrl);
  const request = {
    method: 'POST',
    path: `${url.pathname}${url.search}`,
    setupRequest: (req: Record<string, unknown>, context: ChainContext) => {
      const chain = free.pop() as RefreshChain;
      context.chain = chain;
      return {
        ...req,
        headers: { apikey: anonKey, 'content-type': 'application/json', 'x-forwarded-for': chain.ip },
        body: JSON.stringify({ refresh_token: chain.token }),
      };
    },
    onResponse: (status: number, body: string, context: ChainContext) => {
      const chain = context.chain as RefreshChain;
      if (status === 200) chain.token = (JSON.parse(body) as { refresh_token: string }).refresh_token;
      free.push(chain);
    },
  };
  const result = await autocannon({ url: url.origin, connections, duration: seconds, requests: [request] });
  return { rps: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

export interface RefreshScenario {
  /** `{base}/v1/<ref>/auth/v1` */
  readonly authUrl: string;
  readonly anonKey: string;
  /** The project database as the superuser, the role of the server's auth pool. */
  readonly superuserUrl: string;
  readonly databaseName: string;
  /** The server's PGAPPNAME, to count its connections. */
  readonly serverAppName: string;
  /** The server's pid, for its CPU time per refresh (Linux /proc). */
  readonly serverPid: number;
  /** The embedded cluster's data directory, for its log; null on DATABASE_URL (the statements are then not checked). */
  readonly dataDir: string | null;
  readonly pgbench: string | null;
  readonly connections: number;
  readonly duration: number;
  readonly runs: number;
}

/** Seconds of refreshes before each measured API run (JIT, prepared plans, the pools grown). */
const WARMUP_SECONDS = 2;

/**
 * Checks that the pgbench script is, statement for statement, what the server sends PostgreSQL
 * for one refresh (read from the cluster's log); throws, showing both, when it is not.
 */
async function checkScript(options: RefreshScenario, users: readonly BenchUser[], script: string): Promise<string> {
  if (options.dataDir === null) return 'not checked against the server (DATABASE_URL: no cluster log to read)';
  const [chain] = await openChains(options.superuserUrl, users, 1);
  const refresh = async (): Promise<void> => {
    const res = await fetch(`${options.authUrl}/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: options.anonKey, 'content-type': 'application/json', 'x-forwarded-for': chain!.ip },
      body: JSON.stringify({ refresh_token: chain!.token }),
    });
    const body = (await res.json()) as { refresh_token?: string };
    if (res.status !== 200 || typeof body.refresh_token !== 'string') throw new Error(`a refresh answered ${res.status} ${JSON.stringify(body)}`);
    chain!.token = body.refresh_token;
  };
  // The first hit of an address opens its rate-limit window (and sweeps old ones): not the steady state.
  await refresh();
  const served = (await captureStatements(options.dataDir, options.superuserUrl, refresh)).map(statementShape);
  const scripted = scriptShapes(script);
  if (served.join('\n') !== scripted.join('\n')) {
    throw new Error(`the pgbench script of the refresh grant is not what the server ran:\nserver:\n${served.join('\n')}\npgbench:\n${scripted.join('\n')}`);
  }
  return `the same ${served.length} statements the server ran for one refresh (read from the cluster's log)`;
}

/** `npm run bench -- --scenario refresh`: the table, in docs/performance.md's format. */
export async function refreshTable(options: RefreshScenario): Promise<string[]> {
  const { connections, duration, runs } = options;
  console.log(`signing up ${connections} users…`);
  const users = await signUpUsers(options.authUrl, options.anonKey, connections);
  const check = await checkScript(options, users, refreshPgbenchScript([], new Date()).script);
  console.log(`pgbench script: ${check}`);
  const tokenUrl = `${options.authUrl}/token?grant_type=refresh_token`;
  const api: LoadResult[] = [];
  const most: number[] = [];
  const cpu: { cores: number; usPerRequest: number }[] = [];
  const db: PgbenchResult[] = [];
  for (let run = 0; run < runs; run += 1) {
    const steps: (() => Promise<string>)[] = [
      async () => {
        await driveRefreshes(tokenUrl, options.anonKey, await openChains(options.superuserUrl, users, connections), connections, WARMUP_SECONDS);
        const chains = await openChains(options.superuserUrl, users, connections);
        const sampler = sampleConnections(options.superuserUrl, options.databaseName, options.serverAppName);
        const cpuBefore = await cpuSeconds(options.serverPid);
        const started = performance.now();
        const r = await driveRefreshes(tokenUrl, options.anonKey, chains, connections, duration);
        const cores = ((await cpuSeconds(options.serverPid)) - cpuBefore) / ((performance.now() - started) / 1000);
        most.push(await sampler.stop());
        api.push(r);
        cpu.push({ cores, usPerRequest: (cores * 1e6) / r.rps });
        return `API ${fmt(r.rps)} req/s p50 ${fmt(r.p50Ms, 2)} p99 ${fmt(r.p99Ms, 2)} ms, non-2xx ${r.non2xx + r.errors}, `
          + `server ${fmt(cores, 2)} cores, ${fmt((cores * 1e6) / r.rps)} µs CPU a refresh`;
      },
    ];
    const binary = options.pgbench;
    if (binary !== null) {
      steps.push(async () => {
        const script = refreshPgbenchScript(await openChains(options.superuserUrl, users, connections), new Date());
        const r = await runPgbench(binary, options.superuserUrl, script, connections, duration, 'extended');
        db.push(r);
        return `pgbench ${fmt(r.tps)} tx/s p50 ${fmt(r.p50Ms, 2)} p99 ${fmt(r.p99Ms, 2)} ms`;
      });
    }
    // Alternate which goes first, so that neither always runs on a warmer (or busier) machine.
    const ordered = run % 2 === 0 ? steps : [...steps].reverse();
    const parts: string[] = [];
    for (const step of ordered) parts.push(await step());
    console.log(`run ${run + 1}/${runs} refresh: ${parts.join(' | ')}`);
  }
  const rps = median(api.map((r) => r.rps));
  const [p50, p99] = [median(api.map((r) => r.p50Ms)), median(api.map((r) => r.p99Ms))];
  const tps = db.length ? median(db.map((r) => r.tps)) : NaN;
  return [
    `Refresh-token grant vs pgbench, ${connections} connections and as many sessions, ${duration} s runs, median of ${runs} interleaved runs (${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`,
    `pgbench script: ${check}`,
    '',
    `| request | API req/s | p50 / p99 ms | p99 ÷ p50 | server connections (most) | server CPU (cores) | server CPU µs a request | non-2xx | pgbench tx/s (same statements, ${connections} clients) | pgbench p50 / p99 ms | API ÷ pgbench |`,
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|',
    `| POST /token?grant_type=refresh_token | ${fmt(rps)} | ${fmt(p50)} / ${fmt(p99)} | ${fmt(p99 / p50, 1)} | ${Math.max(...most)} | `
      + `${fmt(median(cpu.map((c) => c.cores)), 2)} | ${fmt(median(cpu.map((c) => c.usPerRequest)))} | `
      + `${api.reduce((n, r) => n + r.non2xx + r.errors, 0)} | `
      + (db.length ? `${fmt(tps)} | ${fmt(median(db.map((r) => r.p50Ms)), 1)} / ${fmt(median(db.map((r) => r.p99Ms)), 1)} | **${fmt(rps / tps, 2)}** |` : 'n/a | n/a | n/a |'),
  ];
}

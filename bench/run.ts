/**
 * `npm run bench`: the data API under load against the database's own ceiling.
 *
 * A throwaway project (bench/data-api-schema.sql) is created on the suite's kind of cluster
 * (DATABASE_URL, or an embedded one in a temporary GANTRY_HOME), `gantry serve` runs it in
 * its own process, and for each request autocannon drives the API while pgbench runs the
 * very transaction the API runs for it (same BEGIN, set_config, statement text and
 * parameters, COMMIT) at the same concurrency on the same cluster; runs are interleaved
 * and the medians compared; for the 20-row read a plain express + pg + jose peer
 * (bench/peer-express.ts) runs in the same rounds. Options: --connections 50 --duration 10 --runs 3
 * --big-rows 10000000 (0 skips the estimated-count table) --only "20 rows,post" (parts of scenario names).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generateProject } from '../generator/generate.js';
import { signJwt } from '../runtime/auth/jwt.js';
import { loadConfig } from '../runtime/config.js';
import { loadGeneratedDefinition } from '../runtime/host/project-loader.js';
import * as runtime from '../runtime/index.js';
import { createProject } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { Platform } from '../runtime/platform/platform.js';
import { parseRequest } from '../runtime/rest/parse/request.js';
import { buildStatement } from '../runtime/rest/sql/build.js';
import { runLoad, type LoadResult } from './load.js';
import { findPgbench, pgbenchScript, runPgbench, type PgbenchResult } from './pgbench.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const OWNER = '00000000-0000-0000-0000-000000000007';

interface Scenario {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  /** Preflight: the JSON body must satisfy this before load is applied. */
  readonly check: (status: number, body: unknown) => boolean;
}

const ALL_SCENARIOS: readonly Scenario[] = [
  { name: 'GET 20 rows (RLS, user token)', method: 'GET', path: '/todos?limit=20', check: (s, b) => s === 200 && Array.isArray(b) && b.length === 20 && b.every((r) => (r as { owner: string }).owner === OWNER) },
  { name: 'GET with a to-many embed', method: 'GET', path: '/projects?select=id,name,tasks(id,title,done)&limit=10', check: (s, b) => s === 200 && Array.isArray(b) && b.length === 10 },
  { name: 'POST one row', method: 'POST', path: '/entries', body: '{"title":"bench"}', check: (s, b) => s === 201 && Array.isArray(b) && b.length === 1 },
  { name: 'RPC (GET, stable)', method: 'GET', path: '/rpc/my_todo_count?done=false', check: (s, b) => s === 200 && typeof b === 'number' },
];

const { values: opts } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    'big-rows': { type: 'string', default: '10000000' },
    only: { type: 'string' },
  },
});
const SCENARIOS = ALL_SCENARIOS.filter((s) => !opts.only || opts.only.split(',').some((word) => s.name.toLowerCase().includes(word.toLowerCase())));
const connections = Number(opts.connections);
const duration = Number(opts.duration);
const runs = Number(opts.runs);
const bigRows = Number(opts['big-rows']);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`gantry serve exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('gantry serve did not become healthy within 60 s');
}

async function waitForPeer(url: string, token: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the peer exited with ${child.exitCode}`);
    const rows = await fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((r) => (r.ok ? r.json() : null), () => null);
    if (Array.isArray(rows) && rows.length === 20) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the peer did not answer within 30 s');
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

async function main(): Promise<void> {
  const pgbench = await findPgbench();
  if (!pgbench) {
    console.log('pgbench not found: install PostgreSQL\'s client tools (Debian: apt-get install -y postgresql-client,\n'
      + 'which ships /usr/lib/postgresql/<n>/bin/pgbench). Measuring the API alone, without ceilings.');
  }
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-bench-'));
  const env: Record<string, string> = {
    GANTRY_HOME: home,
    GANTRY_GENERATED_DIR: path.join(home, 'generated'),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const platform = await Platform.open(loadConfig(env));
  let server: ChildProcess | null = null;
  let peer: ChildProcess | null = null;
  try {
    console.log(`setting up the bench project (big table: ${fmt(bigRows)} rows)…`);
    const record = await createProject(platform, {
      ref: 'bench',
      schemaFiles: [{ name: 'data-api-schema.sql', sql: await fs.readFile(path.join(import.meta.dirname, 'data-api-schema.sql'), 'utf8') }],
    });
    const admin = new pg.Client(platform.cluster.urlFor(record.databaseName));
    await admin.connect();
    if (bigRows > 0) await admin.query('INSERT INTO big SELECT g, g % 1000 FROM generate_series(1, $1::bigint) g', [bigRows]);
    await admin.query('VACUUM ANALYZE');
    await admin.end();
    await generateProject(platform, record);
    const keys = projectKeys(platform.config, record);
    const definition = await loadGeneratedDefinition(platform.config.generatedDir, record.ref, runtime);
    if (!definition) throw new Error('the bench project has no generated code');

    const port = await freePort();
    const callsPort = await freePort();
    // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
    const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
    server = spawn(process.execPath, [...nodeArgs, path.join(repoRoot, 'bin/gantry.mjs'), 'serve'], {
      cwd: repoRoot,
      env: { ...process.env, ...env, PORT: String(port), CALLS_PORT: String(callsPort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const child = server;
    // Interrupted: stop the server and the cluster rather than leave them running.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        child.kill('SIGTERM');
        peer?.kill('SIGTERM');
        void platform.close().finally(() => process.exit(130));
      });
    }
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHealth(baseUrl, server);
    const apiUrl = `${baseUrl}/v1/${record.ref}/rest/v1`;
    const peerPort = await freePort();
    peer = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'peer-express.ts')], {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(peerPort), DATABASE_URL: platform.authenticatorUrl(record.databaseName), JWT_SECRET: record.jwtSecret },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const now = Math.floor(Date.now() / 1000);
    const token = signJwt(record.jwtSecret, { sub: OWNER, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 24 * 3600 });
    const claims = { sub: OWNER, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 24 * 3600 };
    const dbUrl = platform.authenticatorUrl(record.databaseName);
    await waitForPeer(`${peerUrl}/todos?limit=20`, token, peer);
    const peerRuns: LoadResult[] = [];

    const results = new Map<string, { api: LoadResult[]; db: PgbenchResult[] }>();
    let ceiling10: PgbenchResult[] = [];
    for (const scenario of SCENARIOS) {
      const headers: Record<string, string> = { apikey: keys.anon_key, authorization: `Bearer ${token}` };
      if (scenario.body) headers['content-type'] = 'application/json';
      const pre = await fetch(`${apiUrl}${scenario.path}`, { method: scenario.method, headers, body: scenario.body });
      const preBody = await pre.json().catch(() => undefined);
      if (!scenario.check(pre.status, preBody)) throw new Error(`preflight of "${scenario.name}" failed: ${pre.status} ${JSON.stringify(preBody).slice(0, 300)}`);
      results.set(scenario.name, { api: [], db: [] });
    }

    for (let run = 0; run < runs; run += 1) {
      for (const [i, scenario] of SCENARIOS.entries()) {
        const headers: Record<string, string> = { apikey: keys.anon_key, authorization: `Bearer ${token}` };
        if (scenario.body) headers['content-type'] = 'application/json';
        const q = scenario.path.indexOf('?');
        const [resource, query] = q < 0 ? [scenario.path, ''] : [scenario.path.slice(0, q), scenario.path.slice(q + 1)];
        const segments = resource.split('/').filter((s) => s !== '');
        const request = parseRequest({
          method: scenario.method,
          resource: segments[0] === 'rpc' ? { kind: 'rpc', name: segments[1] ?? '' } : { kind: 'table', name: segments[0] ?? '' },
          query, headers, body: scenario.body ?? null, schemas: definition.project.schemas,
        });
        const built = buildStatement(request, definition.project);
        const serverHeaders = { host: `127.0.0.1:${port}`, connection: 'keep-alive', ...headers, ...(scenario.body ? { 'content-length': String(scenario.body.length) } : {}) };
        const script = pgbenchScript({
          role: 'authenticated', claims: JSON.stringify(claims), method: scenario.method, path: `/rest/v1${resource}`, headers: JSON.stringify(serverHeaders),
        }, built);
        const entry = results.get(scenario.name)!;
        const api = async () => {
          entry.api.push(await runLoad({ url: `${apiUrl}${scenario.path}`, method: scenario.method, headers, body: scenario.body, connections, duration }));
        };
        const db = async () => {
          if (pgbench) entry.db.push(await runPgbench(pgbench, dbUrl, script, connections, duration));
        };
        // Alternate which goes first so that neither always runs on a warmer machine.
        if ((run + i) % 2 === 0) { await api(); await db(); } else { await db(); await api(); }
        if (scenario === ALL_SCENARIOS[0]) {
          if (pgbench) ceiling10 = [...ceiling10, await runPgbench(pgbench, dbUrl, script, 10, duration)];
          peerRuns.push(await runLoad({ url: `${peerUrl}${scenario.path}`, method: 'GET', headers, connections, duration }));
        }
        const last = entry.api[entry.api.length - 1]!;
        const lastDb = entry.db[entry.db.length - 1];
        console.log(`run ${run + 1}/${runs} ${scenario.name}: API ${fmt(last.rps)} req/s p50 ${fmt(last.p50Ms, 2)} p99 ${fmt(last.p99Ms, 2)} ms`
          + (lastDb ? ` | pgbench ${fmt(lastDb.tps)} tx/s` : ''));
      }
    }

    const lines: string[] = [];
    lines.push(`Data API vs pgbench, ${connections} connections, ${duration} s runs, median of ${runs} interleaved runs (${os.cpus().length} cores)`);
    lines.push('');
    lines.push('| request | API req/s | p50 ms | p99 ms | non-2xx | pgbench tx/s (same tx, same concurrency) | pgbench p50 / p99 ms | API ÷ pgbench |');
    lines.push('|---|---:|---:|---:|---:|---:|---|---:|');
    for (const scenario of SCENARIOS) {
      const { api, db } = results.get(scenario.name)!;
      const rps = median(api.map((r) => r.rps));
      const tps = db.length ? median(db.map((r) => r.tps)) : NaN;
      lines.push(`| ${scenario.name} | ${fmt(rps)} | ${fmt(median(api.map((r) => r.p50Ms)), 2)} | ${fmt(median(api.map((r) => r.p99Ms)), 2)} | ${api.reduce((n, r) => n + r.non2xx + r.errors, 0)} | `
        + (db.length ? `${fmt(tps)} | ${fmt(median(db.map((r) => r.p50Ms)), 2)} / ${fmt(median(db.map((r) => r.p99Ms)), 2)} | **${fmt(rps / tps, 2)}** |` : 'n/a | n/a | n/a |'));
    }
    if (ceiling10.length) {
      const read = results.get(ALL_SCENARIOS[0]!.name)!;
      const c10 = median(ceiling10.map((r) => r.tps));
      lines.push('');
      lines.push(`pgbench at 10 clients (perf.md's reference ceiling) for the 20-row read: ${fmt(c10)} tx/s; API ÷ that = ${fmt(median(read.api.map((r) => r.rps)) / c10, 2)}`);
    }
    if (peerRuns.length) {
      const read = results.get(ALL_SCENARIOS[0]!.name)!;
      const peerRps = median(peerRuns.map((r) => r.rps));
      lines.push('');
      lines.push(`Peer, same read, same run (express 5 + pg pool 10 + jose, 4 awaited round trips): ${fmt(peerRps)} req/s, `
        + `p50 ${fmt(median(peerRuns.map((r) => r.p50Ms)), 2)} p99 ${fmt(median(peerRuns.map((r) => r.p99Ms)), 2)} ms; API ÷ peer = ${fmt(median(read.api.map((r) => r.rps)) / peerRps, 2)}`);
    }
    if (bigRows > 0) lines.push('', ...(await countLatencies(apiUrl, keys.service_key, bigRows)));
    console.log(`\n${lines.join('\n')}`);
  } finally {
    if (peer && peer.exitCode === null) peer.kill('SIGTERM');
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    await platform.close();
    await fs.rm(home, { recursive: true, force: true });
  }
}

/** `count=estimated` answers from planner statistics on a big table; `exact` scans it. */
async function countLatencies(apiUrl: string, serviceKey: string, rows: number): Promise<string[]> {
  const out = [`Counting ${fmt(rows)} rows (GET /big?select=id&limit=1, service key, median of 5):`, ''];
  for (const mode of ['estimated', 'planned', 'exact']) {
    const times: number[] = [];
    let range = '';
    for (let i = 0; i < 5; i += 1) {
      const started = performance.now();
      const res = await fetch(`${apiUrl}/big?select=id&limit=1`, { headers: { apikey: serviceKey, prefer: `count=${mode}` } });
      await res.arrayBuffer();
      times.push(performance.now() - started);
      range = res.headers.get('content-range') ?? '';
    }
    out.push(`- count=${mode}: ${fmt(median(times), 1)} ms, Content-Range ${range}`);
  }
  return out;
}

await main();

/**
 * `npm run bench`: the data API under load against the database's own ceiling.
 *
 * A throwaway project (bench/data-api-schema.sql) is created on the suite's kind of cluster
 * (DATABASE_URL, or an embedded one in a temporary GANTRY_HOME), `gantry serve` runs it in
 * its own process, and for each request autocannon drives the API while pgbench runs the
 * very transaction the API runs for it (same BEGIN, set_config, statement text and
 * parameters, COMMIT) at the same concurrency on the same cluster; runs are interleaved
 * and the medians compared. Peers (bench/peers.ts) run their equivalent of a scenario in the
 * same rounds, on the same database, JWT secret and RLS, after a preflight that proves they
 * serve the same rows: a plain express + pg + jose server by default, and with `--peers all`
 * also PostGraphile v5 (20-row read and to-many embed) and Platformatic (20-row read), whose
 * Node 22 and dependencies are installed into bench/.cache (BENCH_CACHE_DIR) on first use.
 * Options: --connections 50 --duration 10 --runs 3 --big-rows 10000000 (0 skips the
 * estimated-count table) --only "20 rows,post" (parts of scenario names)
 * --scenario mixed (bench/mixed.ts: many users, 70/20/10 reads/writes/RPC; --users 1000) instead of the requests;
 * --scenario refresh (bench/auth-refresh.ts: the refresh-token grant against pgbench on the statements it runs);
 * --scenario signin (bench/auth-signin.ts: password sign-ins per core, and the 20-row read at --read-connections 10 meanwhile);
 * --peers standin,express (default)|all|none|postgraphile,platformatic,express,standin; the stand-in
 * (bench/stand-in.ts) is the 20-row read and the one-row POST written by hand for speed, running the API's own transaction. The 20-row read also runs on a copy of its table
 * that the bench project's extension hooks with afterRead, and the two reads' ratio is reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { generateProject } from '../generator/generate.js';
import { signJwt } from '../runtime/tokens/jwt.js';
import { loadConfig } from '../runtime/config.js';
import { loadGeneratedDefinition } from '../runtime/host/project-loader.js';
import * as runtime from '../runtime/index.js';
import { createProject } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { Platform } from '../runtime/platform/platform.js';
import { freePort } from '../runtime/platform/ports.js';
import { parseRequest } from '../runtime/rest/parse/request.js';
import { buildStatement } from '../runtime/rest/sql/build.js';
import { refreshTable } from './auth-refresh.js';
import { signinTable } from './auth-signin.js';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import { runMixed } from './mixed.js';
import { preflightPeer, selectPeers, startPeer, type PeerRequest, type RunningPeer, type ScenarioKey } from './peers.js';
import { findPgbench, pgbenchScript, runPgbench, spreadText, withSpread, type PgbenchResult, type Spread } from './pgbench.js';
import { median, fmt } from './report-format.js';
import { entryKeys, projectTaskKeys, todoKeys } from './served-rows.js';
import { sampleConnections } from './server-connections.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const OWNER = '00000000-0000-0000-0000-000000000007';
const SERVER_APP_NAME = 'gantry-bench-server';

interface Scenario {
  readonly key: ScenarioKey;
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
  readonly body?: string;
  /** Headers besides the key and token (e.g. Prefer). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Preflight: the JSON body must satisfy this before load is applied. */
  readonly check: (status: number, body: unknown) => boolean;
  /** The served rows as keys, for scenarios that peers also serve. */
  readonly rows?: (body: unknown) => readonly string[] | null;
  /** Given: a key drawn anew for each request and pgbench transaction, in the path or the body. */
  readonly spread?: Spread;
}

const ALL_SCENARIOS: readonly Scenario[] = [
  {
    key: 'read20', name: 'GET 20 rows (RLS, user token)', method: 'GET', path: '/todos?limit=20', rows: todoKeys,
    check: (s, b) => s === 200 && Array.isArray(b) && b.length === 20 && b.every((r) => (r as { owner: string }).owner === OWNER),
  },
  {
    key: 'read20hooked', name: 'GET 20 rows, afterRead hook (RLS, user token)', method: 'GET', path: '/hooked_todos?limit=20',
    check: (s, b) => s === 200 && Array.isArray(b) && b.length === 20 && b.every((r) => (r as { label: string }).label === `#${(r as { id: number }).id} ${(r as { title: string }).title}`),
  },
  {
    key: 'embed', name: 'GET with a to-many embed', method: 'GET', path: '/projects?select=id,name,tasks(id,title,done)&limit=10',
    rows: (b) => projectTaskKeys(b, (p) => p.tasks), check: (s, b) => s === 200 && Array.isArray(b) && b.length === 10,
  },
  {
    key: 'computed', name: 'GET 20 rows + computed field + computed relationship', method: 'GET',
    path: '/todos?select=id,title,title_upper,first_project(id,name)&limit=20',
    check: (s, b) => s === 200 && Array.isArray(b) && b.length === 20
      && b.every((r) => typeof (r as { title_upper: unknown }).title_upper === 'string' && (r as { first_project: unknown }).first_project !== null),
  },
  {
    key: 'post', name: 'POST one row', method: 'POST', path: '/entries', body: '{"title":"bench"}', rows: entryKeys,
    check: (s, b) => s === 201 && Array.isArray(b) && b.length === 1 && (b[0] as { owner: string }).owner === OWNER,
  },
  // The same row in every request, on both sides: its row lock orders the updates for the API and pgbench alike.
  { key: 'patch', name: 'PATCH one row by key', method: 'PATCH', path: '/notes?id=eq.7', body: '{"body":"patched"}', check: (s, b) => s === 200 && Array.isArray(b) && b.length === 1 },
  // The same request on a row drawn from the bench user's 1,000 notes each time: few updates wait for a row lock.
  {
    key: 'patchspread', name: 'PATCH one row by key, a different row each time', method: 'PATCH', path: '/notes?id=eq.7', body: '{"body":"patched"}',
    spread: { value: '7', first: 7, step: 100, count: 1000 }, check: (s, b) => s === 200 && Array.isArray(b) && b.length === 1,
  },
  {
    key: 'bulk', name: 'POST 100 rows (bulk insert)', method: 'POST', path: '/entries',
    body: JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ title: `bulk ${i}` }))), headers: { prefer: 'return=minimal' }, check: (s) => s === 201,
  },
  {
    key: 'upsert', name: 'POST upsert (merge-duplicates)', method: 'POST', path: '/notes', body: '{"id":7,"body":"upserted"}',
    headers: { prefer: 'resolution=merge-duplicates,return=minimal' }, check: (s) => s === 200 || s === 201,
  },
  {
    key: 'upsertspread', name: 'POST upsert (merge-duplicates), a different row each time', method: 'POST', path: '/notes', body: '{"id":7,"body":"upserted"}',
    headers: { prefer: 'resolution=merge-duplicates,return=minimal' }, spread: { member: 'id', value: '7', first: 7, step: 100, count: 1000 },
    check: (s) => s === 200 || s === 201,
  },
  { key: 'rpc', name: 'RPC (GET, stable)', method: 'GET', path: '/rpc/my_todo_count?done=false', check: (s, b) => s === 200 && typeof b === 'number' },
];

const { values: opts } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    'big-rows': { type: 'string', default: '10000000' },
    only: { type: 'string' },
    peers: { type: 'string', default: 'standin,express' },
    scenario: { type: 'string', default: 'requests' },
    users: { type: 'string', default: '1000' },
    'read-connections': { type: 'string', default: '10' },
  },
});
/** For a scenario with a spread key: each request's path or body with the key drawn anew. */
function spreadRequest(scenario: Scenario): LoadOptions['vary'] {
  const { spread } = scenario;
  if (!spread) return undefined;
  const fixed = spreadText(spread, spread.value);
  const drawn = (): string => spreadText(spread, spread.first + spread.step * Math.floor(Math.random() * spread.count));
  return spread.member === undefined
    ? (request) => ({ ...request, path: request.path.replace(fixed, drawn()) })
    : (request) => ({ ...request, body: request.body?.replace(fixed, drawn()) });
}

const SCENARIOS = ALL_SCENARIOS.filter((s) => !opts.only || opts.only.split(',').some((word) => s.name.toLowerCase().includes(word.toLowerCase())));
const connections = Number(opts.connections);
const duration = Number(opts.duration);
const runs = Number(opts.runs);
const bigRows = Number(opts['big-rows']);
const peerSpecs = selectPeers(opts.peers ?? 'standin,express');
const cacheDir = process.env.BENCH_CACHE_DIR ?? path.join(import.meta.dirname, '.cache');
const peersSourceDir = process.env.BENCH_PEERS_DIR ?? path.resolve(repoRoot, '..', 'shared', 'bench', 'peers');

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

interface PeerRuns {
  readonly peer: RunningPeer;
  readonly request: PeerRequest;
  readonly runs: LoadResult[];
}

/** Peers are optional: one that cannot be installed or started is skipped, saying why. */
async function startOrSkip(name: string, start: () => Promise<RunningPeer>): Promise<RunningPeer | null> {
  try {
    return await start();
  } catch (error) {
    console.log(`skipping the ${name} peer: ${(error as Error).message}`);
    return null;
  }
}

function peerTable(peerRuns: readonly PeerRuns[], results: ReadonlyMap<string, { api: LoadResult[]; db: PgbenchResult[] }>): string[] {
  const out = [
    'Peers, same requests\' rows for the same user, same rounds:',
    '',
    `| server | request | req/s | p50 / p99 ms | non-2xx | ÷ pgbench (our transaction, ${connections} clients) | API ÷ peer |`,
    '|---|---|---:|---|---:|---:|---:|',
  ];
  for (const { peer, request, runs: loads } of peerRuns) {
    const scenario = SCENARIOS.find((s) => s.key === request.scenario)!;
    const { api, db } = results.get(scenario.name)!;
    const rps = median(loads.map((r) => r.rps));
    const tps = db.length ? median(db.map((r) => r.tps)) : NaN;
    out.push(`| ${peer.spec.name} | ${request.what} (vs ${scenario.name}) | ${fmt(rps)} | ${fmt(median(loads.map((r) => r.p50Ms)))} / `
      + `${fmt(median(loads.map((r) => r.p99Ms)))} | ${loads.reduce((n, r) => n + r.non2xx + r.errors, 0)} | `
      + `${db.length ? fmt(rps / tps, 2) : 'n/a'} | **${fmt(median(api.map((r) => r.rps)) / rps, 2)}** |`);
  }
  out.push('', ...[...new Set(peerRuns.map((p) => p.peer.spec))].map((spec) => `- ${spec.name}: ${spec.label}`));
  return out;
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
  const peers: RunningPeer[] = [];
  try {
    console.log(`setting up the bench project (big table: ${fmt(bigRows)} rows)…`);
    const record = await createProject(platform, {
      ref: 'bench',
      autoconfirm: true,
      schemaFiles: [{ name: 'data-api-schema.sql', sql: await fs.readFile(path.join(import.meta.dirname, 'data-api-schema.sql'), 'utf8') }],
    });
    const admin = new pg.Client(platform.cluster.urlFor(record.databaseName));
    await admin.connect();
    if (bigRows > 0) await admin.query('INSERT INTO big SELECT g, g % 1000 FROM generate_series(1, $1::bigint) g', [bigRows]);
    await admin.query('VACUUM ANALYZE');
    await admin.end();
    // The auth scenarios refresh and sign in far past GoTrue's limits of one client address.
    await platform.setSettings(record.ref, { 'auth.rate_limit.token_refresh': 1_000_000 });
    await writeBenchExtension(platform.config.extensionsDir);
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
      // PGAPPNAME (read by node-postgres) marks the server's connections for sampleConnections.
      // TRUST_PROXY: the auth scenarios' users each come from an address of their own (X-Forwarded-For).
      env: { ...process.env, ...env, PORT: String(port), CALLS_PORT: String(callsPort), PGAPPNAME: SERVER_APP_NAME, TRUST_PROXY: 'loopback' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const child = server;
    // Interrupted: stop the server, the peers and the cluster rather than leave them running.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        child.kill('SIGTERM');
        for (const peer of peers) peer.child.kill('SIGTERM');
        void platform.close().finally(() => process.exit(130));
      });
    }
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHealth(baseUrl, server);
    const apiUrl = `${baseUrl}/v1/${record.ref}/rest/v1`;
    const now = Math.floor(Date.now() / 1000);
    const token = signJwt(record.jwtSecret, { sub: OWNER, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 24 * 3600 });
    const claims = { sub: OWNER, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 24 * 3600 };
    const dbUrl = platform.authenticatorUrl(record.databaseName);
    if (opts.scenario === 'mixed') {
      console.log(`\n${(await mixedTable(apiUrl, keys.anon_key, record.jwtSecret, server.pid!)).join('\n')}`);
      return;
    }
    if (opts.scenario === 'refresh') {
      console.log(`\n${(await refreshTable({
        authUrl: `${baseUrl}/v1/${record.ref}/auth/v1`, anonKey: keys.anon_key, superuserUrl: platform.cluster.urlFor(record.databaseName),
        databaseName: record.databaseName, serverAppName: SERVER_APP_NAME, serverPid: server.pid!, dataDir: platform.cluster.dataDir, pgbench, connections, duration, runs,
      })).join('\n')}`);
      return;
    }
    if (opts.scenario === 'signin') {
      console.log(`\n${(await signinTable({
        authUrl: `${baseUrl}/v1/${record.ref}/auth/v1`, anonKey: keys.anon_key, readUrl: `${apiUrl}${ALL_SCENARIOS[0]!.path}`,
        readHeaders: { apikey: keys.anon_key, authorization: `Bearer ${token}` }, serverPid: server.pid!, connections,
        readConnections: Number(opts['read-connections']), duration, runs,
      })).join('\n')}`);
      return;
    }

    const results = new Map<string, { api: LoadResult[]; db: PgbenchResult[]; connections: number[] }>();
    const servedRows = new Map<ScenarioKey, readonly string[]>();
    let ceiling10: PgbenchResult[] = [];
    const headersFor = (scenario: Scenario): Record<string, string> => ({
      apikey: keys.anon_key, authorization: `Bearer ${token}`, ...(scenario.body ? { 'content-type': 'application/json' } : {}), ...scenario.headers,
    });
    /** The statement the API builds for the scenario, and the same transaction as a pgbench script. */
    const transactionOf = (scenario: Scenario) => {
      const headers = headersFor(scenario);
      const q = scenario.path.indexOf('?');
      const [resource, query] = q < 0 ? [scenario.path, ''] : [scenario.path.slice(0, q), scenario.path.slice(q + 1)];
      const segments = resource.split('/').filter((s) => s !== '');
      const request = parseRequest({
        method: scenario.method,
        resource: segments[0] === 'rpc' ? { kind: 'rpc', name: segments[1] ?? '' } : { kind: 'table', name: segments[0] ?? '' },
        query, headers, body: scenario.body ?? null, schemas: definition.project.schemas,
      });
      const built = buildStatement(request, definition.project, { maxRows: 1000 });
      const serverHeaders = { host: `127.0.0.1:${port}`, connection: 'keep-alive', ...headers, ...(scenario.body ? { 'content-length': String(scenario.body.length) } : {}) };
      const script = pgbenchScript({
        role: 'authenticated', claims: JSON.stringify(claims), method: scenario.method, path: resource, headers: JSON.stringify(serverHeaders),
        cookies: '{}', searchPath: '"public", "public", "extensions"', timezone: null, preRequest: null, appSettings: [],
      }, built);
      return { built, script };
    };
    for (const scenario of SCENARIOS) {
      const headers = headersFor(scenario);
      const pre = await fetch(`${apiUrl}${scenario.path}`, { method: scenario.method, headers, body: scenario.body });
      const preBody = await pre.json().catch(() => undefined);
      if (!scenario.check(pre.status, preBody)) throw new Error(`preflight of "${scenario.name}" failed: ${pre.status} ${String(JSON.stringify(preBody)).slice(0, 300)}`);
      const rows = scenario.rows?.(preBody);
      if (rows) servedRows.set(scenario.key, rows);
      results.set(scenario.name, { api: [], db: [], connections: [] });
    }

    const peerRuns: PeerRuns[] = [];
    const peerContext = { repoRoot, cacheDir, peersSourceDir, databaseName: record.databaseName, authenticatorUrl: dbUrl,
      superuserUrl: platform.cluster.urlFor(record.databaseName), jwtSecret: record.jwtSecret,
      read20: transactionOf(ALL_SCENARIOS[0]!).built, post: transactionOf(ALL_SCENARIOS.find((s) => s.key === 'post')!).built };
    for (const spec of peerSpecs) {
      const requests = spec.requests.filter((r) => servedRows.has(r.scenario));
      if (requests.length === 0) continue;
      const started = await startOrSkip(spec.name, async () => startPeer(spec, { ...peerContext, port: await freePort() }));
      if (!started) continue;
      peers.push(started);
      for (const request of requests) {
        const verdict = await preflightPeer(started, request, token, servedRows.get(request.scenario)!);
        if (verdict) console.log(`skipping ${spec.name} for "${request.what}": ${verdict}`);
        else peerRuns.push({ peer: started, request, runs: [] });
      }
    }

    for (let run = 0; run < runs; run += 1) {
      for (const [i, scenario] of SCENARIOS.entries()) {
        const headers = headersFor(scenario);
        const { script: fixed } = transactionOf(scenario);
        const script = scenario.spread ? withSpread(fixed, scenario.spread) : fixed;
        const entry = results.get(scenario.name)!;
        const steps: (() => Promise<string>)[] = [
          async () => {
            const sampler = sampleConnections(platform.cluster.urlFor(record.databaseName), record.databaseName, SERVER_APP_NAME);
            const r = await runLoad({ url: `${apiUrl}${scenario.path}`, method: scenario.method, headers, body: scenario.body, connections, duration, vary: spreadRequest(scenario) });
            const most = await sampler.stop();
            entry.api.push(r);
            entry.connections.push(most);
            return `API ${fmt(r.rps)} req/s p50 ${fmt(r.p50Ms, 2)} p99 ${fmt(r.p99Ms, 2)} ms, ${most} connections`;
          },
        ];
        if (pgbench) {
          steps.push(async () => {
            const r = await runPgbench(pgbench, dbUrl, script, connections, duration);
            entry.db.push(r);
            return `pgbench ${fmt(r.tps)} tx/s`;
          });
        }
        for (const peerRun of peerRuns.filter((p) => p.request.scenario === scenario.key)) {
          steps.push(async () => {
            const { peer, request: req } = peerRun;
            const r = await runLoad({ url: `${peer.url}${req.path}`, method: req.method, headers: { authorization: `Bearer ${token}`, ...req.headers }, body: req.body, connections, duration });
            peerRun.runs.push(r);
            return `${peer.spec.name} ${fmt(r.rps)} req/s p99 ${fmt(r.p99Ms, 2)} ms`;
          });
        }
        // Rotate which goes first so that none always runs on a warmer (or busier) machine.
        const shift = (run + i) % steps.length;
        const parts: string[] = [];
        for (const step of [...steps.slice(shift), ...steps.slice(0, shift)]) parts.push(await step());
        if (scenario === ALL_SCENARIOS[0] && pgbench) ceiling10 = [...ceiling10, await runPgbench(pgbench, dbUrl, script, 10, duration)];
        console.log(`run ${run + 1}/${runs} ${scenario.name}: ${parts.join(' | ')}`);
      }
    }

    const lines: string[] = [];
    lines.push(`Data API vs pgbench, ${connections} connections, ${duration} s runs, median of ${runs} interleaved runs (${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    lines.push('');
    lines.push(`| request | API req/s | p50 / p99 ms | p99 ÷ p50 | server connections (most) | non-2xx | pgbench tx/s (same tx, ${connections} clients) | pgbench p50 / p99 ms | API ÷ pgbench |`);
    lines.push('|---|---:|---|---:|---:|---:|---:|---|---:|');
    for (const scenario of SCENARIOS) {
      const { api, db, connections: most } = results.get(scenario.name)!;
      const rps = median(api.map((r) => r.rps));
      const tps = db.length ? median(db.map((r) => r.tps)) : NaN;
      const [p50, p99] = [median(api.map((r) => r.p50Ms)), median(api.map((r) => r.p99Ms))];
      lines.push(`| ${scenario.name} | ${fmt(rps)} | ${fmt(p50)} / ${fmt(p99)} | ${fmt(p99 / p50, 1)} | ${Math.max(...most)} | ${api.reduce((n, r) => n + r.non2xx + r.errors, 0)} | `
        + (db.length ? `${fmt(tps)} | ${fmt(median(db.map((r) => r.p50Ms)), 1)} / ${fmt(median(db.map((r) => r.p99Ms)), 1)} | **${fmt(rps / tps, 2)}** |` : 'n/a | n/a | n/a |'));
    }
    const plain = results.get(ALL_SCENARIOS[0]!.name);
    const hooked = SCENARIOS.find((s) => s.key === 'read20hooked');
    if (plain?.api.length && hooked) {
      const ratio = median(results.get(hooked.name)!.api.map((r) => r.rps)) / median(plain.api.map((r) => r.rps));
      lines.push('', `20-row read with an afterRead hook ÷ the same read without hooks, same rounds: **${fmt(ratio, 2)}**`);
    }
    if (ceiling10.length) {
      const read = results.get(ALL_SCENARIOS[0]!.name)!;
      const c10 = median(ceiling10.map((r) => r.tps));
      lines.push('');
      lines.push(`pgbench at 10 clients (shared/research/perf.md's reference ceiling) for the 20-row read: ${fmt(c10)} tx/s; API ÷ that = ${fmt(median(read.api.map((r) => r.rps)) / c10, 2)}`);
    }
    if (peerRuns.length) lines.push('', ...peerTable(peerRuns, results));
    if (bigRows > 0) lines.push('', ...(await countLatencies(apiUrl, keys.service_key, bigRows)));
    console.log(`\n${lines.join('\n')}`);
  } finally {
    await Promise.all(peers.map((peer) => peer.stop()));
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    await platform.close();
    await fs.rm(home, { recursive: true, force: true });
  }
}

/**
 * `--scenario mixed`: bench/mixed.ts at 50 and 200 connections (or --connections), reads on `todos` and then on
 * `hooked_todos` (an afterRead hook), `--duration` s each (60 by default for this scenario).
 */
async function mixedTable(apiUrl: string, anonKey: string, jwtSecret: string, serverPid: number): Promise<string[]> {
  const levels = process.argv.includes('--connections') ? [connections] : [50, 200];
  const seconds = process.argv.includes('--duration') ? duration : 60;
  const users = Number(opts.users);
  const lines = [
    `Mixed workload: ${users} users, 70% reads / 20% writes / 10% RPC in supabase-js shapes, ${seconds} s per row (${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`,
    '',
    '| reads on | connections | req/s | p50 / p99 ms | non-2xx | errors | server CPU (cores) | server peak RSS MB |',
    '|---|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const readTable of ['todos', 'hooked_todos']) {
    for (const level of levels) {
      const r = await runMixed({ apiUrl, anonKey, jwtSecret, users, connections: level, duration: seconds, readTable, serverPid });
      const row = `| ${readTable === 'todos' ? 'todos' : 'hooked_todos (afterRead hook)'} | ${level} | ${fmt(r.rps)} | ${fmt(r.p50Ms)} / ${fmt(r.p99Ms)} | ${r.non2xx} | ${r.errors} | ${fmt(r.cpuCores, 2)} | ${fmt(r.rssMb)} |`;
      console.log(row);
      lines.push(row);
    }
  }
  return lines;
}

/**
 * The bench project's extension: an afterRead hook on `hooked_todos` that adds a label to each row (the rows are
 * parsed, changed and serialised again, and the request takes the interactive transaction hooks need).
 */
async function writeBenchExtension(extensionsDir: string): Promise<void> {
  await fs.mkdir(path.join(extensionsDir, 'bench'), { recursive: true });
  await fs.writeFile(path.join(extensionsDir, 'bench', 'index.ts'), [
    `import { defineExtension } from '${path.join(repoRoot, 'runtime/index.js')}';`,
    "import type { Database } from '../../generated/bench/database.types.js';",
    'export default defineExtension<Database>()({',
    '  tables: { hooked_todos: { afterRead: (rows) => rows.map((row) => ({ ...row, label: `#${row.id} ${row.title}` })) } },',
    '});',
    '',
  ].join('\n'));
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

/**
 * `node --import tsx bench/pgbouncer.ts`: the data API through PgBouncer (transaction mode)
 * against the same API with DATABASE_URL straight to PostgreSQL, with and without prepared
 * statements, on one cluster and one project: a `gantry serve` process per mode, measured in
 * interleaved rounds (the order rotating), medians compared. Every PgBouncer version found is a
 * mode: before 1.21 with DB_PREPARED_STATEMENTS off (as DATABASE_DIRECT_URL implies), 1.21 or
 * later with `max_prepared_statements` and DB_PREPARED_STATEMENTS=true.
 * Needs a pgbouncer (Debian's /usr/sbin/pgbouncer, PATH, or GANTRY_TEST_PGBOUNCER for a second
 * version). The cluster is DATABASE_URL's, or an embedded one in a temporary GANTRY_HOME.
 * Options: --connections 50 --duration 10 --runs 3 --pool 20 (server connections per database
 * and user in PgBouncer).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateProject } from '../generator/generate.js';
import { signJwt } from '../runtime/tokens/jwt.js';
import { loadConfig } from '../runtime/config.js';
import { createProject } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { Platform } from '../runtime/platform/platform.js';
import { MAX_PREPARED_STATEMENTS, pgbouncerBinaries, startBouncer, tracksPreparedStatements, type Bouncer } from '../test/helpers/pgbouncer.js';
import { installation, removeInstallation, serve, type Server } from '../test/helpers/serve-process.js';
import { runLoad, type LoadResult } from './load.js';

const OWNER = '00000000-0000-0000-0000-000000000007';

const { values: opts } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    pool: { type: 'string', default: '20' },
  },
});

interface Scenario {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
}

/** The 20-row read of `npm run bench` (shared pipelined connections) and its insert (a pooled connection each). */
const SCENARIOS: readonly Scenario[] = [
  { name: 'GET 20 rows (RLS, user token)', method: 'GET', path: '/todos?limit=20' },
  { name: 'POST one row', method: 'POST', path: '/entries', body: '{"title":"bench"}' },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const binaries = pgbouncerBinaries();
  if (binaries.length === 0) throw new Error('pgbouncer not found (Debian: apt-get install -y pgbouncer)');
  const [connections, duration, runs, pool] = [opts.connections, opts.duration, opts.runs, opts.pool].map(Number) as [number, number, number, number];
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-bench-pgb-'));
  const env = { GANTRY_HOME: home, GANTRY_GENERATED_DIR: path.join(home, 'generated'), ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };
  const platform = await Platform.open(loadConfig(env));
  const servers: Server[] = [];
  const bouncers: Bouncer[] = [];
  try {
    const record = await createProject(platform, {
      ref: 'bench_pgbouncer',
      schemaFiles: [{ name: 'data-api-schema.sql', sql: await fs.readFile(path.join(import.meta.dirname, 'data-api-schema.sql'), 'utf8') }],
    });
    await generateProject(platform, record);
    const keys = projectKeys(platform.config, record);
    const direct = platform.cluster.urlFor('postgres');
    const shared = { GANTRY_GENERATED_DIR: env.GANTRY_GENERATED_DIR, LOG_LEVEL: 'silent' };
    const modes = [
      { name: 'direct', inst: await installation({ databaseUrl: direct, env: shared }) },
      // Separates the cost of parsing every statement from the cost of the extra hop.
      { name: 'direct, DB_PREPARED_STATEMENTS=false', inst: await installation({ databaseUrl: direct, env: { ...shared, DB_PREPARED_STATEMENTS: 'false' } }) },
    ];
    for (const binary of binaries) {
      const prepared = tracksPreparedStatements(binary);
      const bouncer = await startBouncer(binary, direct, { poolSize: pool });
      bouncers.push(bouncer);
      const name = `PgBouncer ${binary.version.join('.')}, transaction mode, pool ${pool}${prepared ? `, max_prepared_statements ${MAX_PREPARED_STATEMENTS}, DB_PREPARED_STATEMENTS=true` : ''}`;
      const modeEnv = { ...shared, DATABASE_DIRECT_URL: direct, ...(prepared ? { DB_PREPARED_STATEMENTS: 'true' } : {}) };
      modes.push({ name, inst: await installation({ databaseUrl: bouncer.via(direct), env: modeEnv }) });
    }
    for (const mode of modes) servers.push(await serve(mode.inst));

    const now = Math.floor(Date.now() / 1000);
    const token = signJwt(record.jwtSecret, { sub: OWNER, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 24 * 3600 });
    const results = new Map<string, LoadResult[]>();
    for (let run = 0; run < runs; run += 1) {
      for (const [i, scenario] of SCENARIOS.entries()) {
        const headers: Record<string, string> = { apikey: keys.anon_key, authorization: `Bearer ${token}`, ...(scenario.body ? { 'content-type': 'application/json' } : {}) };
        const shift = (run + i) % modes.length;
        const order = [...modes.slice(shift), ...modes.slice(0, shift)];
        const parts: string[] = [];
        for (const mode of order) {
          const url = `${mode.inst.baseUrl}/v1/${record.ref}/rest/v1${scenario.path}`;
          const pre = await fetch(url, { method: scenario.method, headers, body: scenario.body });
          if (pre.status !== (scenario.method === 'GET' ? 200 : 201)) throw new Error(`${mode.name}: ${scenario.name} answered ${pre.status} ${await pre.text()}`);
          const result = await runLoad({ url, method: scenario.method, headers, body: scenario.body, connections, duration });
          const key = `${scenario.name}\u0000${mode.name}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          parts.push(`${mode.name} ${fmt(result.rps)} req/s p99 ${fmt(result.p99Ms, 2)} ms`);
        }
        console.log(`run ${run + 1}/${runs} ${scenario.name}: ${parts.join(' | ')}`);
      }
    }

    const lines = [
      `Data API through PgBouncer vs direct, ${connections} connections, ${duration} s runs, median of ${runs} interleaved runs (${os.cpus().length} cores)`,
      '',
      '| request | path | req/s | p50 ms | p99 ms | non-2xx | ÷ direct |',
      '|---|---|---:|---:|---:|---:|---:|',
    ];
    for (const scenario of SCENARIOS) {
      const directRps = median(results.get(`${scenario.name}\u0000${modes[0]!.name}`)!.map((r) => r.rps));
      for (const mode of modes) {
        const loads = results.get(`${scenario.name}\u0000${mode.name}`)!;
        const rps = median(loads.map((r) => r.rps));
        lines.push(`| ${scenario.name} | ${mode.name} | ${fmt(rps)} | ${fmt(median(loads.map((r) => r.p50Ms)), 2)} | ${fmt(median(loads.map((r) => r.p99Ms)), 2)} | `
          + `${loads.reduce((n, r) => n + r.non2xx + r.errors, 0)} | **${fmt(rps / directRps, 2)}** |`);
      }
    }
    console.log(`\n${lines.join('\n')}`);
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    for (const server of servers) await removeInstallation(server.inst);
    for (const bouncer of bouncers) await bouncer.stop();
    await platform.close();
    await fs.rm(home, { recursive: true, force: true });
  }
}

await main();

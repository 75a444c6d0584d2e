/**
 * `npm run bench:release`: releases under load, measured. Two `gantry serve` processes (each its own
 * GANTRY_HOME, generated/ and ports, one shared cluster as docs/deploying.md describes) behind a
 * local round-robin proxy (bench/round-robin-proxy.ts: readiness-checked, never retrying, so every
 * failure reaches the client), and a steady mixed load through it (autocannon at a fixed overall
 * rate: two reads, an insert and an update through the data API, and GET /auth/v1/user), while
 *   (a) each host is restarted in turn with SIGTERM (its drain: signal to exit);
 *   (b) a compatible migration is applied with `gantry migrate` (a column added; an index built
 *       CONCURRENTLY in a file marked `-- gantry:no-transaction`), until both hosts serve the column;
 *   (c) a host is killed with SIGKILL, until the proxy has taken it out (then it is started again).
 * Every answer and error the clients saw is counted per phase, with the 2xx latencies' p50/p99.
 * The cluster is DATABASE_URL's, or an embedded one in a temporary GANTRY_HOME.
 * Options: --rate 300 (requests per second, all clients together) --connections 32
 * --health-interval 250 (ms between the proxy's readiness checks; 2 failed in a row take a host out) --settle 5 (s after each event)
 * --shutdown-delay 5 (the hosts' SHUTDOWN_DELAY_SECONDS).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SHUTDOWN_DELAY_SECONDS, loadConfig } from '../runtime/config.js';
import { Platform } from '../runtime/platform/platform.js';
import { signJwt } from '../runtime/tokens/jwt.js';
import { cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../test/helpers/serve-process.js';
import { autocannon } from './load.js';
import { fmt, percentile } from './report-format.js';
import { benchUserId } from './mixed.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

const { values: opts } = parseArgs({
  options: {
    rate: { type: 'string', default: '300' },
    connections: { type: 'string', default: '32' },
    'health-interval': { type: 'string', default: '250' },
    settle: { type: 'string', default: '5' },
    // The hosts' SHUTDOWN_DELAY_SECONDS (the default; 0 measures a host that stops accepting at once).
    'shutdown-delay': { type: 'string', default: String(DEFAULT_SHUTDOWN_DELAY_SECONDS) },
  },
});
const RATE = Number(opts.rate);
const SETTLE_MS = Number(opts.settle) * 1000;
const REF = 'bench_release';
/** A host's start on a shared, loaded machine can take minutes (the tests' 90 s is not enough there). */
const START_TIMEOUT_MS = 300_000;

/** One thing the clients saw: an answer's status (0 for an error) and when it came. */
interface Seen {
  readonly at: number;
  readonly status: number;
  readonly ms: number;
  readonly error?: string;
}

interface Phase {
  readonly name: string;
  readonly from: number;
  readonly to: number;
  readonly note: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, timeoutMs: number, test: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Load {
  readonly seen: Seen[];
  stop(): Promise<void>;
}

/** The steady mixed load through the proxy until stopped; every answer and error recorded with its time. */
function startLoad(url: string, requests: readonly Record<string, unknown>[], connections: number): Load {
  const seen: Seen[] = [];
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const tracker = (autocannon as unknown as (o: Record<string, unknown>, cb: () => void) => NodeJS.EventEmitter & { stop(): void })(
    { url, connections, overallRate: RATE, duration: 3600, requests, timeout: 30 },
    () => finished(),
  );
  tracker.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => seen.push({ at: Date.now(), status, ms }));
  tracker.on('reqError', (error: NodeJS.ErrnoException) => seen.push({ at: Date.now(), status: 0, ms: 0, error: error.code ?? error.message }));
  return {
    seen,
    stop: async () => {
      tracker.stop();
      await done;
    },
  };
}

function summarise(seen: readonly Seen[], phase: Phase): string {
  const inside = seen.filter((s) => s.at >= phase.from && s.at < phase.to);
  const byOutcome = new Map<string, number>();
  for (const s of inside) {
    const key = s.status === 0 ? `error ${s.error}` : String(s.status);
    byOutcome.set(key, (byOutcome.get(key) ?? 0) + 1);
  }
  const ok = inside.filter((s) => s.status >= 200 && s.status < 300).map((s) => s.ms).sort((a, b) => a - b);
  const failed = inside.length - ok.length;
  const seconds = (phase.to - phase.from) / 1000;
  const outcomes = [...byOutcome].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(', ');
  return `| ${phase.name} | ${seconds.toFixed(1)} | ${inside.length} (${(inside.length / seconds).toFixed(0)}/s) | **${failed}** | ${outcomes} | ${fmt(percentile(ok, 50))} | ${fmt(percentile(ok, 99))} | ${phase.note} |`;
}

async function main(): Promise<void> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-bench-release-'));
  const platform = await Platform.open(loadConfig({ GANTRY_HOME: home, ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) }));
  const databaseUrl = platform.cluster.urlFor('postgres');
  const installs: Installation[] = [];
  const servers: (Server | null)[] = [];
  let proxy: RoundRobinProxy | null = null;
  let load: Load | null = null;
  try {
    const admin = await installation({ databaseUrl, env: { LOG_LEVEL: 'silent' } });
    installs.push(admin);
    const schema = path.join(import.meta.dirname, 'data-api-schema.sql');
    const keys = jsonObject(await cliOk(['project', 'create', REF, '--schema', schema, '--json'], admin.env)) as { anon_key: string; service_key: string; jwt_secret: string };
    for (let i = 0; i < 2; i += 1) installs.push(await installation({ databaseUrl, env: { LOG_LEVEL: 'warn', SHUTDOWN_DELAY_SECONDS: opts['shutdown-delay'] } }));
    const hosts = installs.slice(1);
    for (const inst of hosts) servers.push(await serve(inst, START_TIMEOUT_MS));
    proxy = await startRoundRobinProxy(hosts.map((h) => h.baseUrl), { healthIntervalMs: Number(opts['health-interval']), healthTimeoutMs: 2000, fall: 2 });
    const proxied = proxy;
    await until('both hosts in the rotation', 30_000, () => hosts.every((h) => proxied.isUp(h.baseUrl)));

    const base = `/v1/${REF}`;
    const now = Math.floor(Date.now() / 1000);
    const token = signJwt(keys.jwt_secret, { sub: benchUserId(7), role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 6 * 3600 });
    const email = `release-${Date.now()}@example.com`;
    const password = 'release-bench-password-1';
    const created = await fetch(`${proxied.url}${base}/auth/v1/admin/users`, {
      method: 'POST',
      headers: { apikey: keys.service_key, authorization: `Bearer ${keys.service_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, email_confirm: true }),
    });
    if (created.status !== 200) throw new Error(`admin/users answered ${created.status} ${await created.text()}`);
    const signin = await fetch(`${proxied.url}${base}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: keys.anon_key, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const session = (await signin.json()) as { access_token?: string };
    if (!session.access_token) throw new Error(`sign-in answered ${signin.status} ${JSON.stringify(session)}`);
    const user = { apikey: keys.anon_key, authorization: `Bearer ${token}`, accept: 'application/json' };
    const write = { ...user, 'content-type': 'application/json', prefer: 'return=minimal' };
    const requests = [
      { method: 'GET', path: `${base}/rest/v1/todos?select=*&order=id.desc&limit=20`, headers: user },
      { method: 'POST', path: `${base}/rest/v1/entries`, headers: write, body: '{"title":"release"}' },
      { method: 'GET', path: `${base}/rest/v1/projects?select=id,name,tasks(id,title,done)&limit=5`, headers: user },
      { method: 'PATCH', path: `${base}/rest/v1/notes?id=eq.7`, headers: write, body: '{"body":"release"}' },
      { method: 'GET', path: `${base}/auth/v1/user`, headers: { apikey: keys.anon_key, authorization: `Bearer ${session.access_token}` } },
    ];
    // Each host loads the project before the load starts (its first request waits for that, and is not measured).
    for (const inst of hosts) {
      for (const r of requests) {
        const answer = await fetch(`${inst.baseUrl}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
        if (answer.status >= 300) throw new Error(`${r.method} ${r.path} on ${inst.baseUrl}: ${answer.status} ${await answer.text()}`);
      }
    }

    const phases: Phase[] = [];
    const running = startLoad(proxied.url, requests, Number(opts.connections));
    load = running;
    let from = Date.now();
    await sleep(3 * SETTLE_MS);
    phases.push({ name: 'steady', from, to: Date.now(), note: '' });

    // (a) Each host restarted in turn with SIGTERM.
    for (const [i, inst] of hosts.entries()) {
      from = Date.now();
      const exited = await servers[i]!.stop('SIGTERM');
      const drained = Date.now() - from;
      if (exited !== 0) throw new Error(`host ${i + 1} exited with ${exited} on SIGTERM:\n${servers[i]!.output()}`);
      servers[i] = null;
      const started = Date.now();
      servers[i] = await serve(inst, START_TIMEOUT_MS);
      await until(`host ${i + 1} back in the rotation`, 60_000, () => proxied.isUp(inst.baseUrl));
      const back = Date.now() - started;
      await sleep(SETTLE_MS);
      phases.push({ name: `(a) SIGTERM host ${i + 1}`, from, to: Date.now(), note: `drain (signal to exit) ${drained} ms; start to back in rotation ${back} ms` });
    }

    // (b) A compatible migration: a column, then an index built concurrently outside a transaction.
    from = Date.now();
    await sleep(2 * SETTLE_MS);
    phases.push({ name: '(b) before the migration', from, to: Date.now(), note: '' });
    from = Date.now();
    const column = jsonObject(await cliOk(['migration', 'new', REF, 'todos_label', '--json'], admin.env)) as { path: string };
    await fs.writeFile(column.path, "ALTER TABLE todos ADD COLUMN label text NOT NULL DEFAULT 'none';\n");
    await sleep(1100); // versions are seconds: the index's file comes after the column's
    const index = jsonObject(await cliOk(['migration', 'new', REF, 'todos_title_index', '--json'], admin.env)) as { path: string };
    await fs.writeFile(index.path, '-- gantry:no-transaction\nCREATE INDEX CONCURRENTLY todos_title_idx ON todos (title);\n');
    const migrateStart = Date.now();
    await cliOk(['migrate', REF, '--json'], admin.env);
    const migrated = Date.now() - migrateStart;
    await until('both hosts serving the column', 30_000, async () => {
      const answers = await Promise.all(hosts.map((h) => fetch(`${h.baseUrl}${base}/rest/v1/todos?select=id,label&limit=1`, { headers: user }).then((a) => a.status)));
      return answers.every((s) => s === 200);
    });
    const served = Date.now() - migrateStart;
    await sleep(SETTLE_MS);
    phases.push({ name: '(b) migration and reload', from, to: Date.now(), note: `\`gantry migrate\` ${migrated} ms; the column served by both hosts ${served} ms after it started` });

    // (c) A host killed.
    from = Date.now();
    const victim = servers[1]!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    servers[1] = null;
    await until('the killed host out of the rotation', 30_000, () => !proxied.isUp(hosts[1]!.baseUrl));
    const out = Date.now() - from;
    await sleep(SETTLE_MS);
    phases.push({ name: '(c) SIGKILL host 2', from, to: Date.now(), note: `out of the rotation after ${out} ms` });
    servers[1] = await serve(hosts[1]!, START_TIMEOUT_MS);
    await until('host 2 back in the rotation', 30_000, () => proxied.isUp(hosts[1]!.baseUrl));
    from = Date.now();
    await sleep(SETTLE_MS);
    phases.push({ name: 'after', from, to: Date.now(), note: '' });
    await running.stop();
    load = null;

    console.log(`\nReleases under load: 2 hosts behind a round-robin proxy (readiness every ${opts['health-interval']} ms, out after 2 failed, 2 s timeout; no retries), SHUTDOWN_DELAY_SECONDS=${opts['shutdown-delay']}, ${RATE} req/s asked, ${opts.connections} connections, ${os.cpus().length} cores`);
    console.log('\n| phase | s | requests | failed | outcomes | p50 ms | p99 ms | |\n|---|---:|---:|---:|---|---:|---:|---|');
    for (const phase of phases) console.log(summarise(running.seen, phase));
    const failures = [...proxied.outcomes.failures].map(([k, n]) => `${k}: ${n}`).join(', ');
    console.log(`\nproxy: ${failures || 'no failures'}`);
    for (const r of proxied.outcomes.rotation) console.log(`  ${new Date(r.at).toISOString()} ${r.host} ${r.up ? 'in' : 'out'}`);
  } finally {
    await load?.stop();
    await proxy?.close();
    for (const server of servers) await server?.stop().catch(() => undefined);
    for (const inst of installs) await removeInstallation(inst);
    await platform.close();
    await fs.rm(home, { recursive: true, force: true });
  }
}

await main();

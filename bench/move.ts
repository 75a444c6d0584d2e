import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { codeSync, generateProject, liveFingerprint } from '../generator/generate.js';
import { createProjectWithHistory } from '../generator/migrations/create.js';
import { moveProject, type MoveReport } from '../generator/migrations/move.js';
import { loadConfig } from '../runtime/config.js';
import { startHost } from '../runtime/host/start.js';
import * as runtime from '../runtime/index.js';
import { createLogger } from '../runtime/logger.js';
import { acquireCluster } from '../runtime/platform/cluster.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { Platform } from '../runtime/platform/platform.js';
import { fmt, percentile } from './report-format.js';

/**
 * `npm run bench:move [-- ROWS]`: one project moved between two embedded clusters while a steady load
 * runs against it through one host (in this process, as the move itself): READS_PER_S reads of 20 rows
 * and WRITES_PER_S single-row inserts a second, each sent on schedule whatever the answers before it
 * (open loop). A write answered 503 with Retry-After is sent again RETRY_MS later, as a client honouring
 * the pause would (a read so answered is not sent again); any other answer than 200, 201 or a 503 with
 * Retry-After counts as failed. Reported: the pause as
 * the registry saw it, the longest gap between acknowledged writes, latency p50/p99 before, during and
 * after the move, and every acknowledged write looked up on the new cluster afterwards.
 */
const ROWS = Number(process.argv[2] ?? '20000');
const READS_PER_S = 40;
const WRITES_PER_S = 20;
const RETRY_MS = 50;
const STEADY_MS = 10_000;
const SQL = 'create table items (id bigint generated always as identity primary key, n int not null unique, note text not null);';

type Phase = 'before' | 'during' | 'after';
interface Sample {
  readonly kind: 'read' | 'write';
  readonly phase: Phase;
  readonly ms: number;
  readonly status: number;
  readonly retryAfter: boolean;
}

async function main(): Promise<void> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-move-'));
  const settings = { max_connections: '100', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };
  const clusters = await Promise.all([0, 1].map((i) => acquireCluster(loadConfig({ GANTRY_HOME: path.join(home, `cluster${i}`) }), { settings })));
  const config = loadConfig({
    DATABASE_URL: clusters[0]!.urlFor('postgres'),
    GANTRY_HOME: home,
    GANTRY_GENERATED_DIR: path.join(home, 'generated'),
    GANTRY_MIGRATIONS_DIR: path.join(home, 'migrations'),
    GANTRY_CLUSTERS: 'second',
    GANTRY_CLUSTER_SECOND_URL: clusters[1]!.urlFor('postgres'),
    PORT: '0',
    CALLS_PORT: '0',
  });
  const platform = await Platform.open(config);
  const host = await startHost(platform, { log: createLogger('silent'), runtime, code: codeSync(platform) });
  try {
    const { record } = await createProjectWithHistory(platform, { ref: 'moving', cluster: 'default', schemaFiles: [{ name: 'items.sql', sql: SQL }] });
    const seed = new pg.Client(platform.projectUrl(record));
    await seed.connect();
    await seed.query(`INSERT INTO items (n, note) SELECT -g, repeat('x', 80) FROM generate_series(1, $1::int) g`, [ROWS]);
    await seed.end();
    await generateProject(platform, record);

    const key = projectKeys(config, record).service_key;
    const headers = { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Prefer: 'return=minimal' };
    const url = `${host.baseUrl}/v1/${record.ref}/rest/v1/items`;
    let phase: Phase = 'before';
    const samples: Sample[] = [];
    const acknowledged: { n: number; at: number }[] = [];
    /** The first answers neither 200/201 nor a write's 503, with their bodies. */
    const unexpected: string[] = [];
    const timed = async (kind: Sample['kind'], init: RequestInit, target: string): Promise<Response> => {
      const sent = performance.now();
      const at = phase;
      const response = await fetch(target, init);
      const body = await response.text();
      const expected = response.status === 200 || response.status === 201 || (kind === 'write' && response.status === 503);
      if (!expected && unexpected.length < 5) unexpected.push(`${kind} ${response.status} ${body.slice(0, 300)}`);
      samples.push({ kind, phase: at, ms: performance.now() - sent, status: response.status, retryAfter: response.headers.has('retry-after') });
      return response;
    };
    const read = async (): Promise<void> => {
      await timed('read', { headers }, `${url}?select=id,n,note&order=id.desc&limit=20`);
    };
    let next = 0;
    const write = async (): Promise<void> => {
      const n = next++;
      for (;;) {
        const response = await timed('write', { method: 'POST', headers, body: JSON.stringify({ n, note: `w${n}` }) }, url);
        if (response.status === 201) {
          acknowledged.push({ n, at: performance.now() });
          return;
        }
        if (response.status !== 503 || !response.headers.has('retry-after')) return;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    };
    expect200(await fetch(url, { headers }));

    // Open loop: each request is sent on its schedule, however long the ones before it take.
    const inFlight: Promise<void>[] = [];
    const every = (perSecond: number, send: () => Promise<void>): NodeJS.Timeout =>
      setInterval(() => inFlight.push(send()), 1000 / perSecond);
    const timers = [every(READS_PER_S, read), every(WRITES_PER_S, write)];
    let report: MoveReport;
    let moveMs: number;
    try {
      await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
      phase = 'during';
      const moveStarted = performance.now();
      report = await moveProject(platform, record, 'second', liveFingerprint);
      moveMs = performance.now() - moveStarted;
      // The host follows the registry's NOTIFY: 'during' lasts until a write is acknowledged on the new cluster.
      const switched = performance.now();
      while (!acknowledged.some((a) => a.at > switched)) await new Promise((resolve) => setTimeout(resolve, 5));
      phase = 'after';
      await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
    } finally {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(inFlight);
    }

    const moved = new pg.Client(clusters[1]!.urlFor(record.databaseName));
    await moved.connect();
    const found = new Set((await moved.query<{ n: number }>('SELECT n FROM items WHERE n >= 0')).rows.map((row) => row.n));
    const seeded = (await moved.query<{ count: number }>('SELECT count(*)::int AS count FROM items WHERE n < 0')).rows[0]!.count;
    await moved.end();
    const missing = acknowledged.filter((a) => !found.has(a.n)).length;
    const times = acknowledged.map((a) => a.at).sort((a, b) => a - b);
    const longestGap = Math.max(...times.slice(1).map((at, i) => at - times[i]!));

    const row = (kind: Sample['kind'], at: Phase): string => {
      const of = samples.filter((s) => s.kind === kind && s.phase === at);
      const answered = of.filter((s) => s.status === 200 || s.status === 201).map((s) => s.ms).sort((a, b) => a - b);
      const paused = of.filter((s) => s.status === 503 && s.retryAfter).length;
      // A 503 with Retry-After is the answer the move promises while it pauses (writes) or switches connections (reads).
      const failed = of.length - answered.length - paused;
      return `| ${kind}s | ${at} | ${of.length} | ${fmt(percentile(answered, 50), 1)} / ${fmt(percentile(answered, 99), 1)} | ${paused} | ${failed} |`;
    };
    const statuses = [...new Set(samples.map((s) => `${s.kind} ${s.status}${s.retryAfter ? ' +Retry-After' : ''}`))].sort()
      .map((status) => `${status}: ${samples.filter((s) => `${s.kind} ${s.status}${s.retryAfter ? ' +Retry-After' : ''}` === status).length}`);
    process.stdout.write([
      `move ${report.from} -> ${report.to}: ${fmt(report.copied.rows)} rows of ${report.copied.tables} table(s) copied; moveProject took ${fmt(moveMs)} ms (building the new database included), writes paused ${fmt(report.paused_ms)} ms (registry)`,
      `load: ${READS_PER_S} reads/s (20 rows) + ${WRITES_PER_S} inserts/s, open loop, 503 + Retry-After retried after ${RETRY_MS} ms`,
      `writes: ${next} sent, ${acknowledged.length} acknowledged, ${found.size} found on the new cluster (${missing} acknowledged but missing), ${seeded} of ${ROWS} seeded rows there; longest gap between acknowledged writes ${fmt(longestGap)} ms`,
      `answers: ${statuses.join(', ')}`,
      ...unexpected.map((answer) => `  ${answer}`),
      '',
      '| requests | phase | sent | p50 / p99 ms (200/201) | 503 + Retry-After | failed |',
      '|---|---|---:|---:|---:|---:|',
      ...(['read', 'write'] as const).flatMap((kind) => (['before', 'during', 'after'] as const).map((at) => row(kind, at))),
      '',
    ].join('\n'));
  } finally {
    await host.close();
    await platform.close();
    for (const cluster of clusters) await cluster.release();
    await fs.rm(home, { recursive: true, force: true });
  }
}

function expect200(response: Response): void {
  if (response.status !== 200) throw new Error(`the project does not answer: ${response.status}`);
}

await main();

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { generateProject, codeSync } from '../generator/generate.js';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { startHost } from '../runtime/host/start.js';
import * as runtime from '../runtime/index.js';
import { createProject } from '../runtime/platform/bootstrap.js';
import { acquireCluster } from '../runtime/platform/cluster.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { Platform, type ProjectRecord } from '../runtime/platform/platform.js';
import { percentile } from './report-format.js';

/**
 * `npm run bench:scale [-- 1,100,1000]`: one host in this process over an embedded PostgreSQL with
 * max_connections=100 and the default DB_MAX_CONNECTIONS; for each project count, the host's RSS and
 * its connections to project databases idle, right after one request to every project, and once the
 * 30 s connection idle period has passed. `-- 1000 2` spreads the projects over two such clusters (the
 * second declared as GANTRY_CLUSTERS=second, projects placed by fewest projects) and counts each one's connections.
 * Projects are created CREATE_WIDTH at a time, as concurrent `project create` runs would; the first request
 * to each (which loads it into the host) is timed, p50 and p99.
 */
const STAGES = (process.argv[2] ?? '1,100,1000').split(',').map(Number);
const CLUSTERS = Number(process.argv[3] ?? '1');
const SQL = `create table item (id int primary key, label text); insert into item values (1, 'kettle'); grant select on item to anon;`;
const SETTLE_MS = 65_000;
const CREATE_WIDTH = 6;
const SERVE_WIDTH = 8;

async function eachLimited<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;

async function main(): Promise<void> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-scale-'));
  const settings = { max_connections: '100', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };
  const clusters = await Promise.all(Array.from({ length: CLUSTERS }, (_, i) => acquireCluster(loadConfig({ GANTRY_HOME: path.join(home, `cluster${i}`) }), { settings })));
  const cluster = clusters[0]!;
  const declared = clusters.length > 1 ? { GANTRY_CLUSTERS: 'second', GANTRY_CLUSTER_SECOND_URL: clusters[1]!.urlFor('postgres') } : {};
  const config = loadConfig({ DATABASE_URL: cluster.urlFor('postgres'), GANTRY_HOME: home, GANTRY_GENERATED_DIR: path.join(home, 'generated'), PORT: '0', CALLS_PORT: '0', ...declared });
  const platform = await Platform.open(config);
  const host = await startHost(platform, { log: createLogger('silent'), runtime, code: codeSync(platform) });
  const monitors = clusters.map((c) => new pg.Client(c.urlFor('postgres')));
  for (const monitor of monitors) await monitor.connect();
  const perCluster = (): Promise<number[]> => Promise.all(monitors.map(async (monitor) =>
    (await monitor.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname LIKE 'project\\_%' AND backend_type = 'client backend'`)).rows[0]!.n));
  const connections = async (): Promise<string> => (await perCluster()).join(' + ');
  let peaks = monitors.map(() => 0);
  const records: ProjectRecord[] = [];
  const rows: string[] = [];
  try {
    for (const stage of STAGES) {
      const started = Date.now();
      const refs = Array.from({ length: stage - records.length }, (_, i) => `scale_${String(records.length + i).padStart(4, '0')}`);
      await eachLimited(refs, CREATE_WIDTH, async (ref) => {
        const record = await createProject(platform, { ref, schemaFiles: [{ name: 'item.sql', sql: SQL }] });
        // Code generated ahead, as `gantry project create` does: the host's first load then only checks it.
        await generateProject(platform, record);
        records.push(record);
        if (records.length % 100 === 0) process.stderr.write(`${records.length} projects created, ${Math.round((Date.now() - started) / 1000)} s\n`);
      });
      const created = Date.now() - started;
      const idle = await connections();
      peaks = monitors.map(() => 0);
      const served = Date.now();
      const firsts: number[] = [];
      await eachLimited(records, SERVE_WIDTH, async (record) => {
        const sent = performance.now();
        const response = await fetch(`${host.baseUrl}/v1/${record.ref}/rest/v1/item`, { headers: { apikey: projectKeys(config, record).anon_key } });
        if (response.status !== 200) throw new Error(`${record.ref}: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        firsts.push(performance.now() - sent);
        peaks = (await perCluster()).map((n, i) => Math.max(n, peaks[i]!));
      });
      const servedMs = Date.now() - served;
      const after = await connections();
      const rss = process.memoryUsage().rss;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const settled = await connections();
      firsts.sort((a, b) => a - b);
      const line = `| ${stage} | ${mb(rss)} | ${idle} | ${after} (peak ${peaks.join(' + ')}) | ${settled} | ${Math.round(percentile(firsts, 50))} / ${Math.round(percentile(firsts, 99))} ms | ${Math.round(servedMs / 1000)} s | ${Math.round(created / 1000)} s |`;
      rows.push(line);
      process.stdout.write(`${line}\n`);
    }
  } finally {
    for (const monitor of monitors) await monitor.end();
    await host.close();
    await platform.close();
    for (const c of clusters) await c.release();
    await fs.rm(home, { recursive: true, force: true });
  }
  process.stdout.write(
    [`DB_MAX_CONNECTIONS=${config.dbMaxConnections}, max_connections=100, ${CLUSTERS} cluster(s): connections per cluster`, `| projects | host RSS after requests | project connections idle | after one request to each | 65 s later | first request to each, p50 / p99 (${SERVE_WIDTH} at a time) | all first requests | creating them (${CREATE_WIDTH} at a time) |`, '|---:|---:|---:|---:|---:|---:|---:|---:|', ...rows, ''].join('\n'),
  );
}

await main();

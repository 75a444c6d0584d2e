import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { identitySql, identityValues, type RequestIdentity } from '../runtime/db/rls-transaction.js';
import type { BuiltStatement } from '../runtime/rest/sql/statement.js';

/** What a pgbench run measured: transactions per second and latency percentiles of each transaction. */
export interface PgbenchResult {
  readonly tps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failed: number;
}

/**
 * The transaction the data API runs for one request, as a pgbench script: the same BEGIN,
 * the same set_config statement, the same statement text with its parameters as pgbench
 * variables (so `-M prepared` binds them as the API does), COMMIT. Awaited one by one: the
 * 4-round-trip ceiling of shared/research/perf.md (the team's research, outside this repository).
 */
export function pgbenchScript(identity: RequestIdentity, built: BuiltStatement): { script: string; variables: Record<string, string> } {
  const variables: Record<string, string> = {};
  identityValues(identity).forEach((value, i) => {
    variables[`i${i + 1}`] = value;
  });
  built.values.forEach((value, i) => {
    variables[`p${i + 1}`] = String(value);
  });
  const text = built.text.replace(/\$(\d+)/g, (_m, n: string) => `:p${n}`);
  const begin = built.readOnly ? 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY;' : 'BEGIN ISOLATION LEVEL READ COMMITTED;';
  const setConfig = `${identitySql((n) => `:i${n}`, { timezone: identity.timezone !== null, preRequest: identity.preRequest, appSettings: identity.appSettings.length })};`;
  return { script: [begin, setConfig, `${text};`, 'COMMIT;', ''].join('\n'), variables };
}

/**
 * A key drawn anew for each request and each pgbench transaction as `first + step × k`, k uniform in [0, count), where
 * the fixed request has `value`: in the path's filter (`eq.7`), or with `member` in the body's JSON (`"id":7`).
 */
export interface Spread {
  readonly value: string;
  readonly member?: string;
  readonly first: number;
  readonly step: number;
  readonly count: number;
}

/** The text of the request that holds the key `key`: `eq.<key>` in the path, or `"<member>":<key>` in the body. */
export function spreadText(spread: Spread, key: string | number): string {
  return spread.member === undefined ? `eq.${key}` : `${JSON.stringify(spread.member)}:${key}`;
}

/**
 * The script with the spread key drawn by pgbench (`\set`) in each transaction. A key in the path is a parameter of
 * its own, replaced by the drawn one. A key in the body sits inside the JSON parameter and pgbench's variables are
 * numbers, so the statement gets the body as the text before the key, the drawn key and the text after it, joined
 * (`||`) where the parameter was; the rest of the statement is the API's.
 */
export function withSpread(script: { script: string; variables: Record<string, string> }, spread: Spread): { script: string; variables: Record<string, string> } {
  const fixed = spreadText(spread, spread.value);
  const holds = (value: string): boolean => (spread.member === undefined ? value === spread.value : value.split(fixed).length === 2);
  const name = Object.keys(script.variables).find((k) => k.startsWith('p') && holds(script.variables[k]!));
  if (!name) throw new Error(spread.member === undefined ? `no statement parameter has the value ${spread.value}` : `no statement parameter holds ${fixed} once`);
  const variables = Object.fromEntries(Object.entries(script.variables).filter(([k]) => k !== name));
  const draw = `\\set ${name} ${spread.first} + ${spread.step} * random(0, ${spread.count - 1})`;
  if (spread.member === undefined) return { script: `${draw}\n${script.script}`, variables };
  const [before, after] = script.variables[name]!.split(fixed) as [string, string];
  const joined = script.script.replace(new RegExp(`:${name}\\b`, 'g'), `(:${name}a::text || :${name} || :${name}b::text)`);
  return { script: `${draw}\n${joined}`, variables: { ...variables, [`${name}a`]: `${before}${spreadText(spread, '')}`, [`${name}b`]: after } };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
}

/** The pgbench binary: PATH, else Debian's /usr/lib/postgresql/<n>/bin. Null when absent. */
export async function findPgbench(): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'pgbench');
    if (await fs.access(candidate, fs.constants.X_OK).then(() => true, () => false)) return candidate;
  }
  const versions = await fs.readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  for (const v of versions.sort().reverse()) {
    const candidate = path.join('/usr/lib/postgresql', v, 'bin', 'pgbench');
    if (await fs.access(candidate, fs.constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return null;
}

/**
 * Runs pgbench against `databaseUrl` with `clients` connections for `seconds`; `mode` is the query
 * protocol as the server under comparison uses it (`prepared`: named statements, as the data API's).
 */
export async function runPgbench(
  binary: string, databaseUrl: string, script: { script: string; variables: Record<string, string> }, clients: number, seconds: number,
  mode: 'prepared' | 'extended' = 'prepared',
): Promise<PgbenchResult> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-pgbench-'));
  try {
    const file = path.join(dir, 'tx.sql');
    await fs.writeFile(file, script.script);
    const url = new URL(databaseUrl);
    const args = [
      '-n', '-M', mode, '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(seconds),
      '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username),
      '-f', file, '-l', `--log-prefix=${path.join(dir, 'log')}`,
      ...Object.entries(script.variables).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
      decodeURIComponent(url.pathname.slice(1)),
    ];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(binary, args, { env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`pgbench exited with ${code}:\n${out}`))));
    });
    const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1] ?? NaN);
    const failed = Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0);
    const latencies: number[] = [];
    for (const name of await fs.readdir(dir)) {
      if (!name.startsWith('log')) continue;
      for (const line of (await fs.readFile(path.join(dir, name), 'utf8')).split('\n')) {
        const micros = Number(line.split(' ')[2]);
        if (Number.isFinite(micros) && line !== '') latencies.push(micros / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    return { tps, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), failed };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

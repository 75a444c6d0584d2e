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
 * 4-round-trip ceiling of perf.md.
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
 * The script with the parameter whose value is `value` (a key in the request's filter) drawn anew in each
 * transaction: `first + step × k`, k uniform in [0, count), as the API's requests draw it.
 */
export function withSpreadKey(
  script: { script: string; variables: Record<string, string> }, value: string, spread: { first: number; step: number; count: number },
): { script: string; variables: Record<string, string> } {
  const name = Object.keys(script.variables).find((k) => k.startsWith('p') && script.variables[k] === value);
  if (!name) throw new Error(`no statement parameter has the value ${value}`);
  const variables = Object.fromEntries(Object.entries(script.variables).filter(([k]) => k !== name));
  const draw = `\\set ${name} ${spread.first} + ${spread.step} * random(0, ${spread.count - 1})`;
  return { script: `${draw}\n${script.script}`, variables };
}

/**
 * The script with the key `member` (e.g. `"id":7`) inside the JSON body parameter drawn anew in each transaction as
 * `first + step × k`, k uniform in [0, count), as the API's requests draw it: pgbench's variables are numbers, so
 * the statement gets the body as the text before the key, the drawn key and the text after it, joined (`||`)
 * where the parameter was; the rest of the statement is the API's.
 */
export function withSpreadBodyKey(
  script: { script: string; variables: Record<string, string> }, member: string, spread: { first: number; step: number; count: number },
): { script: string; variables: Record<string, string> } {
  const name = Object.keys(script.variables).find((k) => k.startsWith('p') && script.variables[k]!.split(member).length === 2);
  if (!name) throw new Error(`no statement parameter holds ${member} once`);
  const [before, after] = script.variables[name]!.split(member) as [string, string];
  const prefix = member.slice(0, member.lastIndexOf(':') + 1);
  const variables = { ...Object.fromEntries(Object.entries(script.variables).filter(([k]) => k !== name)), [`${name}a`]: `${before}${prefix}`, [`${name}b`]: after };
  const draw = `\\set ${name} ${spread.first} + ${spread.step} * random(0, ${spread.count - 1})`;
  const joined = script.script.replace(new RegExp(`:${name}\\b`, 'g'), `(:${name}a::text || :${name} || :${name}b::text)`);
  return { script: `${draw}\n${joined}`, variables };
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

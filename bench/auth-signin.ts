import os from 'node:os';
import { PASSWORD_WORKERS } from '../runtime/auth/credentials/passwords.js';
import { BENCH_PASSWORD, signUpUsers } from './auth-users.js';
import { autocannon, type LoadResult } from './load.js';
import { cpuSeconds } from './mixed.js';
import { fmt, median } from './report-format.js';

/**
 * Issue 26 item 5: password sign-ins (bcrypt cost 10, CPU-bound, in the host's worker pool) and
 * what they leave the event loop for data requests. Each round measures, `duration` s each: the
 * 20-row read alone, sign-ins alone (with the server's CPU time, for sign-ins per core), and
 * both at once. Sign-ins go to as many users as connections, each from an address of its own.
 */
export interface SigninScenario {
  /** `{base}/v1/<ref>/auth/v1` */
  readonly authUrl: string;
  readonly anonKey: string;
  /** The 20-row read and its headers (a user's token). */
  readonly readUrl: string;
  readonly readHeaders: Record<string, string>;
  readonly serverPid: number;
  /** Sign-ins in flight. */
  readonly connections: number;
  /** Reads in flight meanwhile. */
  readonly readConnections: number;
  readonly duration: number;
  readonly runs: number;
}

interface Phase {
  readonly signins: LoadResult | null;
  readonly reads: LoadResult | null;
  /** Server CPU seconds per wall second. */
  readonly cores: number;
}

const toLoad = (r: Awaited<ReturnType<typeof autocannon>>): LoadResult => ({
  rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors,
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number);
}

export async function signinTable(options: SigninScenario): Promise<string[]> {
  const { connections, duration, runs } = options;
  console.log(`signing up ${connections} users…`);
  const users = await signUpUsers(options.authUrl, options.anonKey, connections);
  const signIn = async (i: number): Promise<number> => {
    const user = users[i % users.length]!;
    const res = await fetch(`${options.authUrl}/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: options.anonKey, 'content-type': 'application/json', 'x-forwarded-for': user.ip },
      body: JSON.stringify({ email: user.email, password: BENCH_PASSWORD }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  /**
   * `connections` loops of sign-ins until `seconds` are up, each finishing the sign-in it has in
   * flight: an abandoned sign-in would go on taking bcrypt time from the next phase. The rate is
   * over the time until the last one answered.
   */
  const signins = async (seconds: number): Promise<LoadResult> => {
    const latencies: number[] = [];
    let failed = 0;
    const started = performance.now();
    const end = started + seconds * 1000;
    await Promise.all(users.slice(0, connections).map(async (_, i) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const status = await signIn(i);
        if (status === 200) latencies.push(performance.now() - t0);
        else failed += 1;
      }
    }));
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { rps: latencies.length / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), non2xx: failed, errors: 0 };
  };
  const readOptions = { url: options.readUrl, headers: options.readHeaders, connections: options.readConnections };

  const phase = async (withSignins: boolean, withReads: boolean): Promise<Phase> => {
    const before = await cpuSeconds(options.serverPid);
    const started = performance.now();
    const [s, r] = await Promise.all([
      withSignins ? signins(duration) : null,
      withReads ? autocannon({ ...readOptions, duration }).then(toLoad) : null,
    ]);
    const cores = ((await cpuSeconds(options.serverPid)) - before) / ((performance.now() - started) / 1000);
    return { signins: s, reads: r, cores };
  };

  // Warm-up: the worker pool's threads, JIT, prepared plans.
  const first = await signIn(0);
  if (first !== 200) throw new Error(`a password sign-in answered ${first}`);
  await Promise.all(users.map((_, i) => signIn(i)));
  await autocannon({ ...readOptions, duration: 2 });
  const results = { reads: [] as Phase[], signins: [] as Phase[], both: [] as Phase[] };
  for (let run = 0; run < runs; run += 1) {
    const order: (keyof typeof results)[] = run % 2 === 0 ? ['reads', 'signins', 'both'] : ['both', 'signins', 'reads'];
    for (const key of order) results[key].push(await phase(key !== 'reads', key !== 'signins'));
    const last = (key: keyof typeof results): Phase => results[key][results[key].length - 1]!;
    console.log(`run ${run + 1}/${runs} sign-ins: ${fmt(last('signins').signins!.rps, 1)}/s on ${fmt(last('signins').cores, 2)} cores; `
      + `20-row read p99 ${fmt(last('reads').reads!.p99Ms)} ms alone, ${fmt(last('both').reads!.p99Ms)} ms during sign-ins`);
  }

  const med = (phases: readonly Phase[], pick: (p: Phase) => number): number => median(phases.map(pick));
  const row = (name: string, phases: readonly Phase[]): string => {
    const has = (key: 'signins' | 'reads'): boolean => phases[0]![key] !== null;
    const signinRate = has('signins') ? med(phases, (p) => p.signins!.rps) : NaN;
    const cores = med(phases, (p) => p.cores);
    const failed = phases.reduce((n, p) => n + (p.signins ? p.signins.non2xx + p.signins.errors : 0) + (p.reads ? p.reads.non2xx + p.reads.errors : 0), 0);
    return `| ${name} | ${has('signins') ? fmt(signinRate, 1) : '–'} | `
      + `${has('signins') ? `${fmt(med(phases, (p) => p.signins!.p50Ms))} / ${fmt(med(phases, (p) => p.signins!.p99Ms))}` : '–'} | `
      + `${fmt(cores, 2)} | ${has('signins') ? fmt(med(phases, (p) => p.signins!.rps / p.cores), 1) : '–'} | `
      + `${has('reads') ? fmt(med(phases, (p) => p.reads!.rps)) : '–'} | `
      + `${has('reads') ? `${fmt(med(phases, (p) => p.reads!.p50Ms))} / ${fmt(med(phases, (p) => p.reads!.p99Ms))}` : '–'} | ${failed} |`;
  };
  return [
    `Password sign-ins (bcrypt cost 10, ${PASSWORD_WORKERS} worker threads) at ${connections} connections, the 20-row read (RLS, user token) at `
      + `${options.readConnections}, ${duration} s per phase, median of ${runs} rounds (${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`,
    '',
    '| phase | sign-ins/s | sign-in p50 / p99 ms | server CPU (cores) | sign-ins per core-second | 20-row reads/s | read p50 / p99 ms | non-2xx |',
    '|---|---:|---|---:|---:|---:|---|---:|',
    row('20-row read alone', results.reads),
    row('sign-ins alone', results.signins),
    row('sign-ins + 20-row read', results.both),
  ];
}

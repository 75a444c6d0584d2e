/**
 * Password sign-ins against everything else: bcrypt (cost 10) runs in a worker pool so that
 * concurrent sign-ins do not stall the host's event loop. Prints, idle and while N password
 * sign-ins are always in flight, p50/p99 of GET /auth/v1/settings and of a data API read with
 * a user token; the mean time of a sign-in with an unknown e-mail against one with a wrong
 * password (the dummy-hash compare keeps them alike); and µs per cached and uncached JWT verify.
 *
 *   npx tsx bench/auth-signin-load.ts [--signins 20] [--seconds 3] [--attempts 10]
 *
 * The host runs in this process, as in the tests, on DATABASE_URL when set, else on an
 * embedded cluster in a temporary GANTRY_HOME. The project is a throwaway one, deleted after.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { generateProject } from '../generator/generate.js';
import { signJwt, verifyProjectToken } from '../runtime/tokens/jwt.js';
import { createProject, deleteProject } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { startInProcessHost } from './in-process-host.js';

const { values } = parseArgs({
  options: { signins: { type: 'string', default: '20' }, seconds: { type: 'string', default: '3' }, attempts: { type: 'string', default: '10' } },
});
const signins = Number(values.signins);
const loadMs = Number(values.seconds) * 1000;
const attempts = Number(values.attempts);
const PASSWORD = 'bench-secret-1';

const SCHEMA = `
CREATE TABLE public.notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL
);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_notes ON public.notes FOR ALL TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
`;

interface Probe {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

interface Latencies {
  readonly p50: number;
  readonly p99: number;
  readonly count: number;
}

function summarise(samples: readonly number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
  return { p50: at(0.5), p99: at(0.99), count: sorted.length };
}

/** One request at a time until `stop` says so, so each sample is one request's own latency. */
async function probeUntil(probe: Probe, stop: () => boolean): Promise<Latencies> {
  const samples: number[] = [];
  while (!stop()) {
    const started = performance.now();
    const res = await fetch(probe.url, { headers: probe.headers });
    await res.arrayBuffer();
    samples.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${probe.name} answered ${res.status}`);
  }
  return summarise(samples);
}

const fmt = (ms: number): string => ms.toFixed(1);

const { platform, host, close } = await startInProcessHost('gantry-auth-bench-');
const ref = `authbench_${Date.now().toString(36)}`;

try {
  const created = await createProject(platform, { ref, schemaFiles: [{ name: 'bench.sql', sql: SCHEMA }], autoconfirm: true });
  // The bench's project is its own: a sign-in limit out of reach, so no 429 stands in for bcrypt work.
  const record = (await platform.setSettings(ref, { 'auth.rate_limit.token_refresh': 1_000_000 })) ?? created;
  await generateProject(platform, record);
  await host.directory.reload(ref);
  const keys = projectKeys(platform.config, record);
  const projectUrl = `${host.baseUrl}/v1/${ref}`;
  const json = { apikey: keys.anon_key, 'content-type': 'application/json' };

  const email = `bench.${Date.now()}@example.com`;
  const signup = await fetch(`${projectUrl}/auth/v1/signup`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: PASSWORD }) });
  const session = (await signup.json()) as { access_token?: string };
  if (signup.status !== 200 || !session.access_token) throw new Error(`signup answered ${signup.status}`);
  const userHeaders = { ...json, authorization: `Bearer ${session.access_token}` };
  const seeded = await fetch(`${projectUrl}/rest/v1/notes`, {
    method: 'POST',
    headers: userHeaders,
    body: JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ body: `note ${i}` }))),
  });
  if (seeded.status !== 201) throw new Error(`seeding notes answered ${seeded.status}`);

  const probes: Probe[] = [
    { name: 'GET /auth/v1/settings', url: `${projectUrl}/auth/v1/settings`, headers: { apikey: keys.anon_key } },
    { name: 'GET /rest/v1/notes?select=id,body&limit=5 (user token, RLS)', url: `${projectUrl}/rest/v1/notes?select=id,body&limit=5`, headers: userHeaders },
  ];
  const signIn = async (body: object): Promise<number> => {
    const res = await fetch(`${projectUrl}/auth/v1/token?grant_type=password`, { method: 'POST', headers: json, body: JSON.stringify(body) });
    await res.arrayBuffer();
    return res.status;
  };

  // Warm-up: prepared statements, JIT, the worker pool's threads.
  await Promise.all(probes.map((probe) => probeUntil(probe, ((n) => () => n-- <= 0)(50))));
  await Promise.all(Array.from({ length: signins }, () => signIn({ email, password: PASSWORD })));

  const idleEnd = performance.now() + loadMs;
  const idle = await Promise.all(probes.map((probe) => probeUntil(probe, () => performance.now() > idleEnd)));

  let loadDone = false;
  const statuses = new Map<number, number>();
  const loadEnd = performance.now() + loadMs;
  const load = Promise.all(
    Array.from({ length: signins }, async () => {
      while (performance.now() < loadEnd) {
        const status = await signIn({ email, password: PASSWORD });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  ).finally(() => {
    loadDone = true;
  });
  const loaded = await Promise.all(probes.map((probe) => probeUntil(probe, () => loadDone)));
  await load;

  const unknownMs: number[] = [];
  const wrongMs: number[] = [];
  for (let i = 0; i < attempts; i += 1) {
    for (const [samples, body] of [
      [unknownMs, { email: `nobody.${i}.${Date.now()}@example.com`, password: PASSWORD }],
      [wrongMs, { email, password: 'not-the-password' }],
    ] as const) {
      const started = performance.now();
      const status = await signIn(body);
      samples.push(performance.now() - started);
      if (status !== 400) throw new Error(`a failed sign-in answered ${status}`);
    }
  }
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

  const secret = record.jwtSecret;
  const now = Math.floor(Date.now() / 1000);
  const tokens = (label: string): string[] =>
    Array.from({ length: 5000 }, (_, i) => signJwt(secret, { role: 'authenticated', sub: `${label}-${i}`, iat: now, exp: now + 3600 }));
  for (const token of tokens('warm-up')) verifyProjectToken(token, secret, now);
  const distinct = tokens('user');
  let started = performance.now();
  for (const token of distinct) verifyProjectToken(token, secret, now);
  const uncachedUs = ((performance.now() - started) * 1000) / distinct.length;
  const cachedRounds = 100_000;
  started = performance.now();
  for (let i = 0; i < cachedRounds; i += 1) verifyProjectToken(distinct[i % distinct.length] as string, secret, now);
  const cachedUs = ((performance.now() - started) * 1000) / cachedRounds;

  const signedIn = [...statuses.values()].reduce((a, b) => a + b, 0);
  console.log(`${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${signins} password sign-ins in flight for ${loadMs / 1000} s`);
  console.log('');
  console.log('| request | idle p50 ms | idle p99 ms | under sign-in load p50 ms | p99 ms | requests idle / loaded |');
  console.log('|---|---:|---:|---:|---:|---:|');
  probes.forEach((probe, i) => {
    const a = idle[i] as Latencies;
    const b = loaded[i] as Latencies;
    console.log(`| ${probe.name} | ${fmt(a.p50)} | ${fmt(a.p99)} | ${fmt(b.p50)} | ${fmt(b.p99)} | ${a.count} / ${b.count} |`);
  });
  console.log('');
  console.log(`sign-ins under load: ${signedIn} (${(signedIn / (loadMs / 1000)).toFixed(1)}/s), statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  console.log(`failed sign-in, mean of ${attempts}: unknown e-mail ${fmt(mean(unknownMs))} ms, wrong password ${fmt(mean(wrongMs))} ms (ratio ${(mean(unknownMs) / mean(wrongMs)).toFixed(2)})`);
  console.log(`JWT verify: uncached ${uncachedUs.toFixed(2)} µs, cached ${cachedUs.toFixed(2)} µs`);
} finally {
  if (await platform.getProject(ref)) await deleteProject(platform, ref);
  await close();
}

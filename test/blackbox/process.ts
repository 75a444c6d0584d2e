import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { repoRoot, runCli } from '../helpers/platform.js';

/**
 * Gantry driven only as users drive it: `node bin/gantry.mjs serve` as a child process
 * on real ports, CLI commands as child processes, HTTP from outside. Nothing here
 * imports the product.
 */

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of one Gantry installation: its home, its generated/ folder and its ports. */
export interface Installation {
  readonly home: string;
  readonly generatedDir: string;
  readonly baseUrl: string;
  readonly apiUrl: string;
  /** What `serve` and the CLI beside it run with. */
  readonly env: Record<string, string>;
}

/**
 * A fresh installation. `databaseUrl` shares an existing cluster (the suite's, by
 * default); `null` leaves DATABASE_URL empty, so the installation owns an embedded
 * cluster under its GANTRY_HOME.
 */
export async function installation(options: { databaseUrl?: string | null; env?: Record<string, string> } = {}): Promise<Installation> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-blackbox-'));
  const generatedDir = path.join(home, 'generated');
  const [port, callsPort] = [await freePort(), await freePort()];
  const databaseUrl = options.databaseUrl === undefined ? inject('databaseUrl') : options.databaseUrl;
  return {
    home,
    generatedDir,
    baseUrl: `http://127.0.0.1:${port}`,
    apiUrl: `http://127.0.0.1:${callsPort}`,
    env: {
      DATABASE_URL: databaseUrl ?? '',
      GANTRY_HOME: home,
      GANTRY_GENERATED_DIR: generatedDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CALLS_PORT: String(callsPort),
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  };
}

export async function removeInstallation(inst: Installation): Promise<void> {
  await fs.rm(inst.home, { recursive: true, force: true });
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON when it is exactly one JSON document, else undefined. */
  readonly json: unknown;
}

/** `node bin/gantry.mjs <args>` in its own process. */
export async function cli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const run = await runCli(args, env);
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    json = undefined;
  }
  return { ...run, json };
}

/** The one JSON object a `--json` run printed; throws unless stdout is exactly one JSON object. */
export function jsonObject(run: CliRun): Record<string, unknown> {
  const value = run.json;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected one JSON object on stdout, got: ${JSON.stringify(run.stdout)} (stderr: ${run.stderr})`);
  }
  return value as Record<string, unknown>;
}

/** Like `cli`, but a non-zero exit fails with the command's output. */
export async function cliOk(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const run = await cli(args, env);
  if (run.code !== 0) throw new Error(`gantry ${args.join(' ')} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

export interface Server {
  readonly inst: Installation;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** Sends the signal (SIGTERM by default); resolves with the exit code. */
  stop(signal?: 'SIGTERM' | 'SIGINT'): Promise<number | null>;
}

/**
 * `gantry serve` creates the demo project on its first start in a platform database;
 * two first starts at once on one cluster race on it, so starts on a shared cluster
 * take turns across the suite's worker processes (a directory is the lock).
 */
async function withStartLock<T>(databaseUrl: string, work: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), `gantry-blackbox-start-${createHash('sha256').update(databaseUrl).digest('hex').slice(0, 12)}`);
  for (;;) {
    try {
      await fs.mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stat = await fs.stat(lock).catch(() => null);
      // A holder that died (a killed run) leaves the lock behind.
      if (stat && Date.now() - stat.mtimeMs > 120_000) await fs.rm(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(lock, { recursive: true, force: true });
  }
}

async function waitHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gantry serve exited with ${child.exitCode}:\n${output()}`);
    const status = await fetch(url).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`gantry serve not healthy at ${url}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `gantry serve` for an installation and waits until both listeners answer /health. */
export async function serve(inst: Installation): Promise<Server> {
  const start = async (): Promise<Server> => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gantry.mjs'), 'serve'], {
      cwd: repoRoot,
      env: { ...process.env, ...inst.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const server: Server = {
      inst,
      output: () => output,
      async stop(signal = 'SIGTERM') {
        if (child.exitCode === null) child.kill(signal);
        return exited;
      },
    };
    try {
      await waitHealthy(`${inst.baseUrl}/health`, child, server.output);
      await waitHealthy(`${inst.apiUrl}/health`, child, server.output);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  };
  return inst.env.DATABASE_URL ? withStartLock(inst.env.DATABASE_URL, start) : start();
}

/** What `project create` and `project keys` print. */
export interface PrintedKeys {
  readonly ref: string;
  readonly url: string;
  readonly anon_key: string;
  readonly service_key: string;
  readonly jwt_secret: string;
}

/** The schema file of the black-box tests (products with two rows, and an RPC). */
export const SHOP_SQL = path.join(repoRoot, 'test/fixtures/schemas/shop.sql');

/** `project create <ref> --json` with the given extra arguments; the keys it printed. */
export async function createProject(inst: Installation, args: readonly string[]): Promise<PrintedKeys> {
  return jsonObject(await cliOk(['project', 'create', uniqueRef('bb'), ...args, '--json'], inst.env)) as unknown as PrintedKeys;
}

/** A request to a project with a key in the apikey header (the anon key by default). */
export function getProject(keys: PrintedKeys, pathAndQuery: string, key = keys.anon_key): Promise<Answer> {
  return request(`${keys.url}/${pathAndQuery}`, { headers: { apikey: key } });
}

/** The host's answer for a ref it does not serve (yet, or any more). */
export function projectNotFound(ref: string): Record<string, unknown> {
  return { message: `project "${ref}" not found`, code: 'PGRST125', details: null, hint: null };
}

/** A throwaway project ref (refs are global to a shared cluster's platform database). */
export function uniqueRef(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** Writes a SQL file into the installation's home and returns its path. */
export async function sqlFile(inst: Installation, name: string, sql: string): Promise<string> {
  const file = path.join(inst.home, name);
  await fs.writeFile(file, sql);
  return file;
}

/** The answer of a request, body parsed as JSON when it is JSON. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
}

export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the body
  }
  return { status: res.status, body, text };
}

/**
 * Polls `probe` until `done` holds, for at most `ms` from now; every answer seen is
 * handed to `seen` first (to assert what may never be answered on the way).
 */
export async function eventually(
  ms: number,
  probe: () => Promise<Answer>,
  done: (answer: Answer) => boolean,
  seen: (answer: Answer) => void = () => undefined,
): Promise<Answer> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await probe();
    seen(answer);
    if (done(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms; last answer ${answer.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls one table of a project on one host while the project comes into being. */
export interface TableWatch {
  /** From now on poll with this key (before, a served project asks for one: 401 PGRST302). */
  useKey(key: string): void;
  /** Stops polling; resolves with every answer that was not allowed. */
  stop(): Promise<Answer[]>;
}

/**
 * Starts polling `{baseUrl}/v1/<ref>/rest/v1/<table>` at once. A project that is being
 * created may answer "project not found", "not ready yet" (503 PGRST002), ask for a key,
 * or serve the table; never may it answer as if the table did not exist (42P01,
 * PGRST205, "no route") nor fail otherwise.
 */
export function watchTable(baseUrl: string, ref: string, table: string): TableWatch {
  const url = `${baseUrl}/v1/${ref}/rest/v1/${table}`;
  const notFound = JSON.stringify(projectNotFound(ref));
  const unexpected: Answer[] = [];
  let key: string | null = null;
  let stopped = false;
  const allowed = (answer: Answer, withKey: boolean): boolean =>
    (answer.status === 404 && JSON.stringify(answer.body) === notFound) ||
    // PostgREST's "schema cache not ready": the host knows the project but cannot serve it yet.
    (answer.status === 503 && (answer.body as { code?: string }).code === 'PGRST002') ||
    (!withKey && answer.status === 401 && (answer.body as { code?: string }).code === 'PGRST302') ||
    (withKey && answer.status === 200);
  const polling = (async () => {
    while (!stopped) {
      const withKey = key;
      const answer = await request(url, withKey ? { headers: { apikey: withKey } } : {});
      if (!allowed(answer, withKey !== null)) unexpected.push(answer);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    useKey(value) {
      key = value;
    },
    async stop() {
      stopped = true;
      await polling;
      return unexpected;
    },
  };
}

/** A fresh installation on the suite's cluster with `gantry serve` running on it. */
export async function servedInstallation(): Promise<Server> {
  return serve(await installation());
}

/** Stops the server, removes its installation, and fails unless it exited with 0. */
export async function shutDown(server: Server): Promise<void> {
  const code = await server.stop();
  await removeInstallation(server.inst);
  if (code !== 0) throw new Error(`gantry serve exited with ${code}:\n${server.output()}`);
}

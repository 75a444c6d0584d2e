import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../runtime/platform/ports.js';
import { repoRoot, runCli } from './platform.js';

/**
 * Gantry driven as users drive it: `node bin/gantry.mjs serve` as a child process on
 * real ports, CLI commands as child processes beside it.
 */

/** The environment of one Gantry installation: its home, its generated/ folder and its ports. */
export interface Installation {
  readonly home: string;
  readonly generatedDir: string;
  readonly port: number;
  readonly callsPort: number;
  readonly baseUrl: string;
  readonly apiUrl: string;
  /** What `serve` and the CLI beside it run with. */
  readonly env: Record<string, string>;
  /** The folder `serve` runs in: a team's repository root, or this repository's (the default). */
  readonly cwd: string;
}

/**
 * A fresh installation in a new GANTRY_HOME, on ports picked free first: PORT=0 would not
 * tell a test which port a separate process got. `databaseUrl` shares an existing cluster
 * (the suite's, by default); `null` leaves DATABASE_URL empty, so the installation owns an
 * embedded cluster under its GANTRY_HOME.
 */
export async function installation(options: { databaseUrl?: string | null; env?: Record<string, string>; cwd?: string } = {}): Promise<Installation> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-serve-'));
  const generatedDir = path.join(home, 'generated');
  const [port, callsPort] = [await freePort(), await freePort()];
  const databaseUrl = options.databaseUrl === undefined ? inject('databaseUrl') : options.databaseUrl;
  return {
    home,
    generatedDir,
    port,
    callsPort,
    baseUrl: `http://127.0.0.1:${port}`,
    apiUrl: `http://127.0.0.1:${callsPort}`,
    cwd: options.cwd ?? repoRoot,
    env: {
      DATABASE_URL: databaseUrl ?? '',
      GANTRY_HOME: home,
      GANTRY_GENERATED_DIR: generatedDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CALLS_PORT: String(callsPort),
      LOG_LEVEL: 'warn',
      // The recordings these tests send are tones: no installed engine is run on them unless a test asks.
      CALLS_SPEECH_ENGINES: 'none',
      // No load balancer to wait for: SIGTERM stops at once unless a test asks for the drain.
      SHUTDOWN_DELAY_SECONDS: '0',
      ...options.env,
    },
  };
}

export async function removeInstallation(inst: Installation): Promise<void> {
  await fs.rm(inst.home, { recursive: true, force: true });
}

/** A running `gantry serve`. */
export interface Server {
  readonly inst: Installation;
  readonly child: ChildProcess;
  /** The demo keys of the start-up banner. */
  readonly anonKey: string;
  readonly serviceKey: string;
  /** Its exit code once it has exited. */
  readonly exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Sends the signal, then its exit code; throws with its output (and kills it) when it does not exit in time. */
  stop(signal?: 'SIGTERM' | 'SIGINT', timeoutMs?: number): Promise<number | null>;
}

const START_TIMEOUT_MS = 90_000;

/** Resolves once `output` holds the whole banner: it is printed after both listeners are up. */
function banner(child: ChildProcess, output: () => string, deadline: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`gantry serve printed no banner in time:\n${output()}`)), deadline - Date.now());
    const check = (): void => {
      if (/service_key: .*\n/.test(output())) done(null);
    };
    const exit = (code: number | null): void => done(new Error(`gantry serve exited with ${code}:\n${output()}`));
    function done(error: Error | null): void {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.off('exit', exit);
      if (error) reject(error);
      else resolve(output());
    }
    child.stdout!.on('data', check);
    child.on('exit', exit);
    check();
  });
}

async function waitHealthy(url: string, child: ChildProcess, output: () => string, deadline: number): Promise<void> {
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

/**
 * Starts `gantry serve` for an installation and waits for its banner and for both
 * listeners to answer /health with 200; a start that fails stops the process and
 * throws with its output.
 */
export async function serve(inst: Installation, startTimeoutMs = START_TIMEOUT_MS): Promise<Server> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gantry.mjs'), 'serve'], {
    cwd: inst.cwd,
    env: { ...process.env, ...inst.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const output = (): string => printed;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stop = async (signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM', timeoutMs = 60_000): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    try {
      const code = await Promise.race([exited, late]);
      if (code !== 'late') return code;
    } finally {
      clearTimeout(timer);
    }
    child.kill('SIGKILL');
    throw new Error(`gantry serve did not exit within ${timeoutMs} ms of ${signal}:\n${output()}`);
  };
  let text: string;
  try {
    const deadline = Date.now() + startTimeoutMs;
    text = await banner(child, output, deadline);
    await waitHealthy(`${inst.baseUrl}/health`, child, output, deadline);
    await waitHealthy(`${inst.apiUrl}/health`, child, output, deadline);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const key = (name: string): string => new RegExp(`${name}: +(\\S+)`).exec(text)![1]!;
  return { inst, child, anonKey: key('anon_key'), serviceKey: key('service_key'), exited, output, stop };
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

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON when it is exactly one JSON document, else undefined. */
  readonly json: unknown;
}

/** `node bin/gantry.mjs <args>` in its own process. */
export async function cli(args: readonly string[], env: Record<string, string>, cwd?: string): Promise<CliRun> {
  const run = await runCli(args, env, cwd);
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    json = undefined;
  }
  return { ...run, json };
}

/** Like `cli`, but a non-zero exit fails with the command's output. */
export async function cliOk(args: readonly string[], env: Record<string, string>, cwd?: string): Promise<CliRun> {
  const run = await cli(args, env, cwd);
  if (run.code !== 0) throw new Error(`gantry ${args.join(' ')} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

/** The one JSON object a `--json` run printed; throws unless stdout is exactly one JSON object. */
export function jsonObject(run: CliRun): Record<string, unknown> {
  const value = run.json;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected one JSON object on stdout, got: ${JSON.stringify(run.stdout)} (stderr: ${run.stderr})`);
  }
  return value as Record<string, unknown>;
}

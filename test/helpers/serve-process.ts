import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../runtime/platform/ports.js';
import { repoRoot } from './platform.js';

/** `gantry serve` as its own process, as a user runs it. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** What it printed up to and including the start-up banner. */
  readonly banner: string;
  readonly anonKey: string;
  readonly serviceKey: string;
  readonly exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then its exit code; throws with its output when it does not exit in time. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export interface ServeEnv {
  readonly env: Record<string, string>;
  readonly port: number;
  readonly callsPort: number;
}

/**
 * Environment of a `gantry serve` with its own GANTRY_HOME (an embedded cluster unless
 * DATABASE_URL is given) on ports picked free first: PORT=0 would not tell a test which
 * port a separate process got.
 */
export async function serveEnv(home: string, overrides: Record<string, string> = {}): Promise<ServeEnv> {
  const [port, callsPort] = [await freePort(), await freePort()];
  const env = {
    DATABASE_URL: '',
    GANTRY_HOME: home,
    GANTRY_GENERATED_DIR: path.join(home, 'generated'),
    HOST: '127.0.0.1',
    PORT: String(port),
    CALLS_PORT: String(callsPort),
    LOG_LEVEL: 'warn',
    ...overrides,
  };
  return { env, port, callsPort };
}

export async function startServe(env: Record<string, string>, startTimeoutMs = 90_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gantry.mjs'), 'serve'], { cwd: repoRoot, env: { ...process.env, ...env } });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), startTimeoutMs);
    const ready = (): void => {
      if (!/service_key: .*\n/.test(output)) return;
      clearTimeout(timer);
      child.stdout!.off('data', ready);
      resolve(output);
    };
    child.stdout!.on('data', ready);
    child.on('exit', () => reject(new Error(`serve exited: ${output}`)));
  });
  const key = (name: string): string => new RegExp(`${name}: +(\\S+)`).exec(banner)![1]!;
  const stop = async (timeoutMs = 30_000): Promise<number | null> => {
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`serve did not exit within ${timeoutMs} ms of SIGTERM: ${output}`)), timeoutMs);
    });
    try {
      return await Promise.race([exited, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { child, banner, anonKey: key('anon_key'), serviceKey: key('service_key'), exited, output: () => output, stop };
}

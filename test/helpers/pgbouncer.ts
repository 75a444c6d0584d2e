import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../runtime/platform/ports.js';
import { unprivilegedUser } from '../../runtime/platform/postgres-user.js';

/**
 * A PgBouncer in transaction mode in front of a test cluster, started from its own config in
 * a temporary directory. It logs clients in with SCRAM against the cluster's own password
 * hashes (auth_query as the superuser), so every role keeps its password and its privileges.
 */
export interface Bouncer {
  /** `url` with its host and port replaced by the bouncer's. */
  via(url: string): string;
  readonly port: number;
  /**
   * The users of its client and of its server connections to `database` (admin console's SHOW CLIENTS /
   * SHOW SERVERS), and the prepared statements its server connections hold (1.21 and later; else 0).
   */
  connections(database: string): Promise<{ readonly clients: string[]; readonly servers: string[]; readonly preparedStatements: number }>;
  output(): string;
  stop(): Promise<void>;
}

export interface PgBouncerBinary {
  readonly path: string;
  /** [major, minor] of its `--version`. */
  readonly version: readonly [number, number];
}

function versionOf(file: string): readonly [number, number] | null {
  try {
    const match = /PgBouncer (\d+)\.(\d+)/.exec(execFileSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 }));
    return match ? [Number(match[1]), Number(match[2])] : null;
  } catch {
    return null;
  }
}

/**
 * The PgBouncers this machine has: Debian's path, the first `pgbouncer` on PATH, and the one
 * GANTRY_TEST_PGBOUNCER names (Debian 12 ships 1.18; a 1.21 or later, e.g. built from Debian
 * 13's source, lets the prepared-statement path be tested too). Distinct versions, oldest first.
 */
export function pgbouncerBinaries(): PgBouncerBinary[] {
  const candidates = [
    '/usr/sbin/pgbouncer',
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'pgbouncer')),
    ...(process.env.GANTRY_TEST_PGBOUNCER ? [process.env.GANTRY_TEST_PGBOUNCER] : []),
  ];
  const found = new Map<string, PgBouncerBinary>();
  for (const file of candidates) {
    if (file === 'pgbouncer' || !existsSync(file)) continue;
    const version = versionOf(file);
    if (version !== null && !found.has(version.join('.'))) found.set(version.join('.'), { path: file, version });
  }
  return [...found.values()].sort((a, b) => a.version[0] - b.version[0] || a.version[1] - b.version[1]);
}

/** Prepared statements a bouncer that tracks them keeps per server connection. */
export const MAX_PREPARED_STATEMENTS = 200;

/** Whether it tracks protocol-level prepared statements in transaction mode (`max_prepared_statements`, 1.21). */
export function tracksPreparedStatements(binary: PgBouncerBinary): boolean {
  return binary.version[0] > 1 || binary.version[1] >= 21;
}

function waitListening(port: number, child: ChildProcess, output: () => string, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (child.exitCode !== null) return reject(new Error(`pgbouncer exited with ${child.exitCode}:\n${output()}`));
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`pgbouncer not listening on ${port}:\n${output()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/**
 * Starts PgBouncer for the cluster of `superuserUrl` (any database of it is served: a `*` fallback entry);
 * one that tracks prepared statements does so (`max_prepared_statements`), for hosts with DB_PREPARED_STATEMENTS=true.
 */
export async function startBouncer(binary: PgBouncerBinary, superuserUrl: string, options: { poolSize: number }): Promise<Bouncer> {
  const server = new URL(superuserUrl);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-pgbouncer-'));
  // PgBouncer refuses to run as root; the unprivileged user must read its files.
  const runAs = await unprivilegedUser();
  await fs.chmod(dir, 0o755);
  const port = await freePort();
  const quote = (value: string): string => `"${value.replaceAll('"', '""')}"`;
  await fs.writeFile(path.join(dir, 'userlist.txt'), `${quote(decodeURIComponent(server.username))} ${quote(decodeURIComponent(server.password))}\n`, { mode: 0o644 });
  const ini = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    `auth_user = ${decodeURIComponent(server.username)}`,
    'auth_query = SELECT usename, passwd FROM pg_shadow WHERE usename=$1',
    `admin_users = ${decodeURIComponent(server.username)}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize}`,
    'max_client_conn = 500',
    'ignore_startup_parameters = extra_float_digits,options',
    ...(tracksPreparedStatements(binary) ? [`max_prepared_statements = ${MAX_PREPARED_STATEMENTS}`] : []),
    '',
  ].join('\n');
  const configFile = path.join(dir, 'pgbouncer.ini');
  await fs.writeFile(configFile, ini, { mode: 0o644 });
  const child = spawn(binary.path, [configFile], { ...runAs, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const output = (): string => printed;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await waitListening(port, child, output, Date.now() + 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const via = (url: string): string => {
    const target = new URL(url);
    target.hostname = '127.0.0.1';
    target.port = String(port);
    return target.toString();
  };
  return {
    port,
    output,
    stop,
    via,
    async connections(database) {
      const admin = new URL(via(superuserUrl));
      admin.pathname = '/pgbouncer';
      const client = new pg.Client(admin.toString());
      await client.connect();
      try {
        // The admin console speaks the simple protocol only: queries without parameters.
        const rows = async (command: string) =>
          (await client.query<{ database: string; user: string; prepared_statements?: string }>(command)).rows.filter((row) => row.database === database);
        const servers = await rows('SHOW SERVERS');
        return {
          clients: (await rows('SHOW CLIENTS')).map((row) => row.user),
          servers: servers.map((row) => row.user),
          preparedStatements: servers.reduce((sum, row) => sum + Number(row.prepared_statements ?? 0), 0),
        };
      } finally {
        await client.end();
      }
    },
  };
}

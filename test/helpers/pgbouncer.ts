import { spawn, type ChildProcess } from 'node:child_process';
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
  /** The users of its client and of its server connections to `database` (admin console's SHOW CLIENTS / SHOW SERVERS). */
  connections(database: string): Promise<{ readonly clients: string[]; readonly servers: string[] }>;
  output(): string;
  stop(): Promise<void>;
}

/** Debian's path, else the first `pgbouncer` on PATH; null when none is installed. */
export function pgbouncerBinary(): string | null {
  const candidates = ['/usr/sbin/pgbouncer', ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'pgbouncer'))];
  return candidates.find((file) => file !== 'pgbouncer' && existsSync(file)) ?? null;
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

/** Starts PgBouncer for the cluster of `superuserUrl` (any database of it is served: a `*` fallback entry). */
export async function startBouncer(binary: string, superuserUrl: string, options: { poolSize: number }): Promise<Bouncer> {
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
    '',
  ].join('\n');
  const configFile = path.join(dir, 'pgbouncer.ini');
  await fs.writeFile(configFile, ini, { mode: 0o644 });
  const child = spawn(binary, [configFile], { ...runAs, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
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
        const users = async (command: string): Promise<string[]> =>
          (await client.query<{ database: string; user: string }>(command)).rows.filter((row) => row.database === database).map((row) => row.user);
        return { clients: await users('SHOW CLIENTS'), servers: await users('SHOW SERVERS') };
      } finally {
        await client.end();
      }
    },
  };
}

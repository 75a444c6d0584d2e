import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../runtime/config.js';
import { acquireCluster, type Cluster } from '../../runtime/platform/cluster.js';
import { installedNativeDir } from '../../runtime/platform/cluster-placement.js';
import { unprivilegedUser } from '../../runtime/platform/postgres-user.js';

/**
 * A second embedded PostgreSQL cluster for a test file, in a home of its own on its own port, started
 * the way the embedded default is; `stop` and `start` take it away and bring it back on the same port
 * (pg_ctl, as the user it runs as).
 */
export interface SecondCluster {
  readonly cluster: Cluster;
  /** The environment declaring it as cluster `name` (GANTRY_CLUSTERS and its URL). */
  env(name: string): Record<string, string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  release(): Promise<void>;
}

/** pg_ctl of the embedded PostgreSQL, as the user the embedded clusters run as. */
export async function pgCtl(args: readonly string[]): Promise<void> {
  const runAs = await unprivilegedUser();
  const pgCtlPath = path.join(await installedNativeDir(), 'bin', 'pg_ctl');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(pgCtlPath, args, { ...runAs, cwd: '/', stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args[0]} exited ${code}`))));
  });
}

export async function startSecondCluster(): Promise<SecondCluster> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-cluster-'));
  const cluster = await acquireCluster(loadConfig({ DATABASE_URL: '', GANTRY_HOME: home }), { settings: { fsync: 'off', max_connections: '100' } });
  const { port } = JSON.parse(await fs.readFile(path.join(home, 'pg.json'), 'utf8')) as { port: number };
  return {
    cluster,
    env: (name) => ({ GANTRY_CLUSTERS: name, [`GANTRY_CLUSTER_${name.toUpperCase()}_URL`]: cluster.urlFor('postgres') }),
    stop: () => pgCtl(['stop', '-D', cluster.dataDir!, '-m', 'fast', '-w']),
    start: () =>
      pgCtl(['start', '-D', cluster.dataDir!, '-l', path.join(home, 'pg.log'), '-w', '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=100`]),
    async release() {
      await cluster.release();
      await fs.rm(home, { recursive: true, force: true });
    },
  };
}

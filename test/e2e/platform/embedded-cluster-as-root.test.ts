import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.js';
import { acquireCluster, type Cluster } from '../../../runtime/platform/cluster.js';
import { installedNativeDir } from '../../../runtime/platform/cluster-placement.js';

/**
 * As root, PostgreSQL runs as the `postgres` user: what it cannot reach (a GANTRY_HOME
 * or binaries under a 0700 directory, like /root) is placed under the system directory.
 */
const asRoot = process.getuid?.() === 0;
if (!asRoot) console.info('embedded-cluster-as-root: skipped, these tests need to run as root');

let privateDir: string;
let systemDir: string;
let home: string;
let nativeDir: string;

beforeAll(async () => {
  if (!asRoot) return;
  privateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-private-'));
  home = path.join(privateDir, 'app', '.gantry');
  await fs.mkdir(home, { recursive: true });
  // The binaries' package, reachable only through the 0700 directory, as in /root/app/node_modules.
  const installed = await installedNativeDir();
  await fs.cp(path.dirname(installed), path.join(privateDir, 'package'), { recursive: true, verbatimSymlinks: true });
  nativeDir = path.join(privateDir, 'package', 'native');
  systemDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-system-'));
  await fs.chmod(systemDir, 0o755);
});
afterAll(async () => {
  if (!asRoot) return;
  await fs.rm(privateDir, { recursive: true, force: true });
  await fs.rm(systemDir, { recursive: true, force: true });
});

const acquire = (): Promise<Cluster> =>
  acquireCluster(loadConfig({ DATABASE_URL: '', GANTRY_HOME: home }), {
    nativeDir,
    systemDir,
    settings: { fsync: 'off' },
  });

async function query(cluster: Cluster, sql: string): Promise<unknown[]> {
  const client = new pg.Client(cluster.urlFor('postgres'));
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!asRoot)('embedded cluster as root under a 0700 directory', () => {
  it('runs copies of the binaries on data outside GANTRY_HOME, and finds the same data again after a stop', async () => {
    const first = await acquire();
    let dataDir: string | null;
    try {
      expect(first.relocated).toBe(true);
      dataDir = first.dataDir;
      expect(dataDir).toMatch(new RegExp(`^${systemDir}/clusters/[0-9a-f]{16}/pg$`));
      expect((await fs.readFile(path.join(dataDir!, '..', 'GANTRY_HOME'), 'utf8')).trim()).toBe(await fs.realpath(home));
      // The control files stay in GANTRY_HOME; nothing of the user's was opened up.
      await expect(fs.stat(path.join(home, 'pg.json'))).resolves.toBeTruthy();
      await expect(fs.stat(path.join(home, 'pg'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect((await fs.stat(privateDir)).mode & 0o777).toBe(0o700);
      const copies = (await fs.readdir(systemDir)).filter((name) => name.startsWith('postgres-'));
      expect(copies).toHaveLength(1);
      expect((await fs.lstat(path.join(systemDir, copies[0]!, 'lib', 'libpq.so'))).isSymbolicLink()).toBe(true);

      await query(first, 'CREATE TABLE kept (note text); INSERT INTO kept VALUES ($$survives a restart$$)');
    } finally {
      await first.release();
    }
    await expect(fs.stat(path.join(home, 'pg.json'))).rejects.toMatchObject({ code: 'ENOENT' });

    const second = await acquire();
    try {
      expect(second.dataDir).toBe(dataDir);
      expect(await query(second, 'SELECT note FROM kept')).toEqual([{ note: 'survives a restart' }]);
    } finally {
      await second.release();
    }
  });
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { acquireCluster, type Cluster } from '../runtime/platform/cluster.js';
import { loadConfig } from '../runtime/config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the suite's PostgreSQL (any database name can be swapped in). */
    databaseUrl: string;
    /** GANTRY_HOME of the suite's embedded cluster (empty with an external DATABASE_URL). */
    clusterHome: string;
  }
}

/**
 * One PostgreSQL for the whole run: the embedded one in a temporary GANTRY_HOME
 * (durability off: throwaway data), or the cluster of DATABASE_URL when set.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.DATABASE_URL;
  let cluster: Cluster | null = null;
  let home = '';
  if (external) {
    project.provide('databaseUrl', external);
  } else {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-suite-'));
    cluster = await acquireCluster(loadConfig({ GANTRY_HOME: home }), {
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    project.provide('databaseUrl', cluster.urlFor('postgres'));
  }
  project.provide('clusterHome', home);
  return async () => {
    await cluster?.release();
    if (home) await fs.rm(home, { recursive: true, force: true });
  };
}

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.js';
import { acquireCluster, type Cluster } from '../../../runtime/platform/cluster.js';
import { runCli } from '../../helpers/platform.js';

/** These tests own an embedded cluster of their own: no DATABASE_URL. */
let home: string;
const env = () => ({ DATABASE_URL: '', GANTRY_HOME: home, GANTRY_GENERATED_DIR: path.join(home, 'generated'), LOG_LEVEL: 'silent' });
const state = async () => JSON.parse(await fs.readFile(path.join(home, 'pg.json'), 'utf8')) as { port: number; postmasterPid: number };

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-embedded-'));
});
afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('embedded cluster ownership', () => {
  it('CLI runs concurrent with a running owner reuse its cluster and leave it running', async () => {
    const owner: Cluster = await acquireCluster(loadConfig(env()));
    try {
      const before = await state();
      const runs = await Promise.all([1, 2, 3].map(() => runCli(['project', 'list', '--json'], env())));
      for (const run of runs) {
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout)).toEqual({ projects: [] });
      }
      expect(await state()).toEqual(before);
      const client = new pg.Client(owner.urlFor('postgres'));
      await client.connect();
      await client.end();
    } finally {
      await owner.release();
    }
    await expect(fs.stat(path.join(home, 'pg.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('processes starting at once never start two postmasters on one data directory', async () => {
    const runs = await Promise.all([1, 2, 3, 4].map(() => runCli(['project', 'list', '--json'], env())));
    for (const run of runs) expect(run.code).toBe(0);
    const log = await fs.readFile(path.join(home, 'pg.log'), 'utf8');
    expect(log).not.toMatch(/lock file "postmaster\.pid" already exists/);
    // The last one out stopped it.
    await expect(fs.stat(path.join(home, 'pg.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readdir(path.join(home, 'pg-leases'))).toEqual([]);
  });
});

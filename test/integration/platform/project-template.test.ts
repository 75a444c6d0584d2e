import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, deleteProject } from '../../../runtime/platform/bootstrap.js';
import { loadConfig } from '../../../runtime/config.js';
import { projectMigrationVersions } from '../../../runtime/platform/migrations.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { randomRef, testEnv } from '../../helpers/platform.js';
import { startSecondCluster, type SecondCluster } from '../../helpers/second-cluster.js';

/**
 * New project databases are clones of a per-cluster template holding the bootstrap: built once, on
 * first use, also when several creations race for it on a fresh cluster (a second embedded one here).
 */
let second: SecondCluster;
let platform: Platform;

beforeAll(async () => {
  second = await startSecondCluster();
  platform = await Platform.open(loadConfig(await testEnv(second.env('eu'))));
}, 60_000);
afterAll(async () => {
  await platform?.close();
  await second?.release();
});

async function query<T extends pg.QueryResultRow>(database: string, sql: string): Promise<T[]> {
  const client = new pg.Client(second.cluster.urlFor(database));
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('project template', () => {
  it('three creations racing on a fresh cluster build one template, closed to connections, and each project has the bootstrap and its own schema', async () => {
    const sql = 'create table notes (id int primary key, body text);';
    const records = await Promise.all([0, 1, 2].map(() => createProject(platform, { ref: randomRef(), cluster: 'eu', schemaFiles: [{ name: 'notes.sql', sql }] })));
    const later = await createProject(platform, { ref: randomRef(), cluster: 'eu', schemaFiles: [] });
    try {
      const databases = await query<{ datname: string; datallowconn: boolean; datistemplate: boolean }>(
        'postgres', `SELECT datname, datallowconn, datistemplate FROM pg_database WHERE datname LIKE 'gantry\\_template\\_%'`);
      expect(databases).toEqual([{ datname: expect.stringMatching(/^gantry_template_[0-9a-f]{16}$/), datallowconn: false, datistemplate: true }]);

      const versions = await projectMigrationVersions();
      for (const record of records) {
        const [row] = await query<{ users: boolean; notes: boolean; trigger: boolean; versions: string[] }>(record.databaseName, `SELECT
            to_regclass('auth.users') IS NOT NULL AS users, to_regclass('public.notes') IS NOT NULL AS notes,
            EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'gantry_schema_change') AS trigger,
            array(SELECT version FROM auth.schema_migrations ORDER BY version) AS versions`);
        expect(row).toEqual({ users: true, notes: true, trigger: true, versions });
      }
      expect((await query(later.databaseName, `SELECT 1 FROM pg_tables WHERE schemaname = 'public'`))).toEqual([]);
    } finally {
      for (const record of [...records, later]) await deleteProject(platform, record.ref);
    }
  }, 60_000);
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../../generator/migrations/apply.js';
import { readHistory } from '../../../generator/migrations/history.js';
import { migrationChecksum, type LocalMigration } from '../../../generator/migrations/local-files.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, testConfig } from '../../helpers/platform.js';

let platform: Platform;

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
});
afterAll(async () => {
  await platform.close();
});

function migration(version: string, name: string, sql: string): LocalMigration {
  return { version, name, path: `/repo/migrations/p/${version}_${name}.sql`, sql, checksum: migrationChecksum(sql) };
}

async function projectClient(): Promise<{ client: pg.Client; url: string }> {
  const { record } = await createTestProject(platform);
  const url = platform.cluster.urlFor(record.databaseName);
  const client = new pg.Client(url);
  await client.connect();
  return { client, url };
}

/** A development database, and one marked production. */
const DEV = { ref: 'p', folder: '/repo/migrations/p', production: false };
const PRODUCTION = { ...DEV, production: true };

const FIRST = migration('20240101000000', 'items', 'CREATE TABLE items (id int PRIMARY KEY);\n');
const SECOND = migration('20240102000000', 'items_name', 'ALTER TABLE items ADD COLUMN name text;\n');

describe('applyMigrations', () => {
  it('applies pending files in order, records version, name, statements and checksum, and a second run applies nothing', async () => {
    const { client } = await projectClient();
    try {
      const first = await applyMigrations(client, [SECOND, FIRST].sort((a, b) => a.version.localeCompare(b.version)), DEV);
      expect(first.applied.map((m) => m.version)).toEqual([FIRST.version, SECOND.version]);
      const { rows } = await client.query('SELECT version, name, statements, checksum FROM supabase_migrations.schema_migrations ORDER BY version');
      expect(rows).toEqual([
        { version: FIRST.version, name: 'items', statements: ['CREATE TABLE items (id int PRIMARY KEY)'], checksum: FIRST.checksum },
        { version: SECOND.version, name: 'items_name', statements: ['ALTER TABLE items ADD COLUMN name text'], checksum: SECOND.checksum },
      ]);
      expect((await client.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'items' ORDER BY ordinal_position`)).rows).toEqual([
        { column_name: 'id' },
        { column_name: 'name' },
      ]);
      expect(await applyMigrations(client, [FIRST, SECOND], DEV)).toEqual({ applied: [], missingLocally: [] });
      // Not granted to the API roles: the data API cannot read it.
      expect((await client.query(`SELECT has_schema_privilege('anon', 'supabase_migrations', 'USAGE') AS anon`)).rows).toEqual([{ anon: false }]);
    } finally {
      await client.end();
    }
  });

  it('refuses an applied file whose content changed, with both checksums, before applying anything', async () => {
    const { client } = await projectClient();
    try {
      await applyMigrations(client, [FIRST], DEV);
      const edited = migration(FIRST.version, FIRST.name, 'CREATE TABLE items (id bigint PRIMARY KEY);\n');
      const error = await applyMigrations(client, [edited, SECOND], DEV).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'migration_modified' });
      expect((error as Error).message).toContain(`applied with checksum ${FIRST.checksum}, the file now has checksum ${edited.checksum}`);
      expect((await readHistory(client)).map((h) => h.version)).toEqual([FIRST.version]);
    } finally {
      await client.end();
    }
  });

  it('a failing file rolls back with its history row, and the files before it stay applied', async () => {
    const { client } = await projectClient();
    try {
      const broken = migration('20240103000000', 'broken', 'ALTER TABLE items ADD COLUMN x int;\nALTER TABLE nowhere ADD COLUMN y int;\n');
      await expect(applyMigrations(client, [FIRST, broken], DEV)).rejects.toMatchObject({ code: 'schema_failed' });
      expect((await readHistory(client)).map((h) => h.version)).toEqual([FIRST.version]);
      expect((await client.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'items' AND column_name = 'x'`)).rows).toEqual([{ n: 0 }]);
    } finally {
      await client.end();
    }
  });

  it('beforeRecord runs inside the transaction: throwing there leaves neither the change nor its record', async () => {
    const { client } = await projectClient();
    try {
      const seen: string[] = [];
      const refusal = new Error('refused');
      await expect(
        applyMigrations(client, [FIRST], {
          ...DEV,
          beforeRecord: async (inside, m, inTransaction) => {
            seen.push(m.version, String(inTransaction), String((await inside.query(`SELECT to_regclass('items') IS NOT NULL AS t`)).rows[0].t));
            throw refusal;
          },
        }),
      ).rejects.toBe(refusal);
      expect(seen).toEqual([FIRST.version, 'true', 'true']);
      expect((await client.query(`SELECT to_regclass('items') IS NULL AS gone`)).rows).toEqual([{ gone: true }]);
      expect(await readHistory(client)).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('two sessions at once apply each file once', async () => {
    const { client, url } = await projectClient();
    const other = new pg.Client(url);
    await other.connect();
    try {
      const slow = migration('20240101000000', 'slow', 'SELECT pg_sleep(0.3);\nCREATE TABLE items (id int PRIMARY KEY);\n');
      const [a, b] = await Promise.all([applyMigrations(client, [slow, SECOND], DEV), applyMigrations(other, [slow, SECOND], DEV)]);
      expect([...a.applied, ...b.applied].map((m) => m.version).sort()).toEqual([slow.version, SECOND.version]);
      expect((await readHistory(client)).map((h) => h.version)).toEqual([slow.version, SECOND.version]);
    } finally {
      await other.end();
      await client.end();
    }
  });

  it('honours a Supabase CLI history table: its rows count as applied and take the files checksums', async () => {
    const { client } = await projectClient();
    try {
      await client.query(`CREATE SCHEMA supabase_migrations;
        CREATE TABLE supabase_migrations.schema_migrations (version text NOT NULL PRIMARY KEY, statements text[], name text);
        CREATE TABLE items (id int PRIMARY KEY);
        INSERT INTO supabase_migrations.schema_migrations VALUES ('20240101000000', '{"CREATE TABLE items (id int PRIMARY KEY)"}', 'items');`);
      const result = await applyMigrations(client, [FIRST, SECOND], DEV);
      expect(result.applied.map((m) => m.version)).toEqual([SECOND.version]);
      const history = await readHistory(client);
      expect(history.map((h) => [h.version, h.checksum, h.appliedAt === null])).toEqual([
        [FIRST.version, FIRST.checksum, true],
        [SECOND.version, SECOND.checksum, false],
      ]);
    } finally {
      await client.end();
    }
  });

  it('a recorded version without a local file: refused on a development database, reported and left alone on production', async () => {
    const { client } = await projectClient();
    try {
      await applyMigrations(client, [FIRST, SECOND], DEV);
      const third = migration('20240103000000', 'third', 'ALTER TABLE items ADD COLUMN x int;\n');
      const error = await applyMigrations(client, [FIRST, third], DEV).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'history_diverged' });
      expect((error as Error).message.split('\n')).toEqual([
        `${SECOND.version}_items_name: applied to the database, not in /repo/migrations/p`,
        "the local database was migrated from other files than this branch's (another branch's, or a file edited since it ran)",
        "rebuild it from this branch's migrations and seed.sql, keeping keys and settings (its rows are lost): npx gantry db reset p --yes",
      ]);
      expect((await readHistory(client)).map((h) => h.version)).toEqual([FIRST.version, SECOND.version]);
      const result = await applyMigrations(client, [FIRST], PRODUCTION);
      expect(result.applied).toEqual([]);
      expect(result.missingLocally.map((m) => [m.version, m.state])).toEqual([[SECOND.version, 'missing-locally']]);
    } finally {
      await client.end();
    }
  });
});

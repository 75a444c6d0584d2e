import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateProject, projectMigrationsPending } from '../../../runtime/platform/migrations.js';
import { createTestProject, repoRoot, startTestHost, type TestHost } from '../../helpers/platform.js';

/** Project databases carry their own migration record, so a host can bring an older one up to date. */

let host: TestHost;
let versions: string[];

beforeAll(async () => {
  host = await startTestHost();
  versions = (await fs.readdir(path.join(repoRoot, 'runtime/platform/project-migrations'))).map((f) => f.replace(/\.sql$/, '')).sort();
});
afterAll(() => host?.close());

async function withDatabase<T>(databaseName: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(host.platform.cluster.urlFor(databaseName));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const emailChangeShape = `
  SELECT (SELECT array_agg(column_name::text ORDER BY column_name) FROM information_schema.columns
           WHERE table_schema = 'auth' AND table_name = 'users' AND column_name IN ('new_email', 'email_change_sent_at')) AS columns,
         (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'one_time_tokens_token_type_check') AS token_types,
         (SELECT array_agg(version ORDER BY version) FROM auth.schema_migrations) AS recorded`;

describe('project database migrations', () => {
  it('a new project records every project migration as applied, and migrating it again does nothing', async () => {
    const { record } = await createTestProject(host.platform);
    expect(versions).toContain('001_email_change');
    await withDatabase(record.databaseName, async (client) => {
      expect((await client.query(emailChangeShape)).rows[0]).toMatchObject({ columns: ['email_change_sent_at', 'new_email'], recorded: versions });
      expect(await migrateProject(client)).toEqual([]);
    });
  });

  it('sees pending migrations with reads alone (a pooled connection suffices): a missing version, or no record table', async () => {
    const { record } = await createTestProject(host.platform);
    await withDatabase(record.databaseName, async (client) => {
      expect(await projectMigrationsPending(client)).toBe(false);
      await client.query('DELETE FROM auth.schema_migrations WHERE version = $1', [versions[0]]);
      expect(await projectMigrationsPending(client)).toBe(true);
      await client.query('DROP TABLE auth.schema_migrations');
      expect(await projectMigrationsPending(client)).toBe(true);
    });
  });

  it('a host loading a database made before e-mail changes existed migrates it before serving it', async () => {
    const { record } = await createTestProject(host.platform, { host: host.host });
    await withDatabase(record.databaseName, async (client) => {
      await client.query(`ALTER TABLE auth.users DROP COLUMN new_email, DROP COLUMN email_change_sent_at`);
      await client.query(`ALTER TABLE auth.one_time_tokens DROP CONSTRAINT one_time_tokens_token_type_check,
        ADD CONSTRAINT one_time_tokens_token_type_check CHECK (token_type IN ('confirmation', 'recovery'))`);
      await client.query(`DELETE FROM auth.schema_migrations`);
    });
    await host.host.directory.reload(record.ref);
    await withDatabase(record.databaseName, async (client) => {
      expect((await client.query(emailChangeShape)).rows[0]).toEqual({
        columns: ['email_change_sent_at', 'new_email'],
        token_types:
          "CHECK ((token_type = ANY (ARRAY['confirmation'::text, 'recovery'::text, 'email_change'::text, 'email_change_current'::text, 'magiclink'::text, 'reauthentication'::text, 'sms'::text, 'phone_change'::text])))",
        recorded: versions,
      });
    });
    const health = await fetch(`${host.host.baseUrl}/v1/${record.ref}/auth/v1/health`);
    expect(health.status).toBe(200);
  });

  it('a database made before MFA gets its factor tables, session columns and user_factors() when a host loads it', async () => {
    const { record } = await createTestProject(host.platform, { host: host.host });
    await withDatabase(record.databaseName, async (client) => {
      await client.query(`DROP FUNCTION auth.user_factors(uuid); DROP TABLE auth.mfa_challenges, auth.mfa_factors;
        ALTER TABLE auth.sessions DROP COLUMN factor_id, DROP COLUMN mfa_verified_at;
        DELETE FROM auth.schema_migrations WHERE version = '005_mfa_factors'`);
    });
    await host.host.directory.reload(record.ref);
    await withDatabase(record.databaseName, async (client) => {
      const { rows } = await client.query(`
        SELECT to_regclass('auth.mfa_factors') IS NOT NULL AS factors, to_regclass('auth.mfa_challenges') IS NOT NULL AS challenges,
               (SELECT array_agg(column_name::text ORDER BY column_name) FROM information_schema.columns
                 WHERE table_schema = 'auth' AND table_name = 'sessions' AND column_name IN ('factor_id', 'mfa_verified_at')) AS columns,
               auth.user_factors(gen_random_uuid()) AS none,
               (SELECT array_agg(version ORDER BY version) FROM auth.schema_migrations) AS recorded`);
      expect(rows[0]).toEqual({ factors: true, challenges: true, columns: ['factor_id', 'mfa_verified_at'], none: null, recorded: versions });
    });
  });

  it('a database made before phone sign-in gets its phone columns, unique index and token and factor types when a host loads it', async () => {
    const { record } = await createTestProject(host.platform, { host: host.host });
    await withDatabase(record.databaseName, async (client) => {
      await client.query(`ALTER TABLE auth.users DROP COLUMN phone, DROP COLUMN phone_confirmed_at, DROP COLUMN phone_change, DROP COLUMN phone_change_sent_at;
        ALTER TABLE auth.mfa_factors DROP COLUMN phone; ALTER TABLE auth.mfa_challenges DROP COLUMN otp_hash;
        DELETE FROM auth.schema_migrations WHERE version = '011_phone'`);
    });
    await host.host.directory.reload(record.ref);
    await withDatabase(record.databaseName, async (client) => {
      const { rows } = await client.query(`
        SELECT (SELECT array_agg(column_name::text ORDER BY column_name) FROM information_schema.columns
                 WHERE table_schema = 'auth' AND table_name = 'users' AND column_name LIKE 'phone%') AS columns,
               to_regclass('auth.users_phone_key') IS NOT NULL AS unique_phone,
               (SELECT array_agg(version ORDER BY version) FROM auth.schema_migrations) AS recorded`);
      expect(rows[0]).toEqual({ columns: ['phone', 'phone_change', 'phone_change_sent_at', 'phone_confirmed_at'], unique_phone: true, recorded: versions });
      await client.query(`INSERT INTO auth.users (phone) VALUES ('15555550100')`);
      await expect(client.query(`INSERT INTO auth.users (phone) VALUES ('15555550100')`)).rejects.toThrow('users_phone_key');
    });
  });

  it('a database made before authorization codes kept their session gets the column when a host loads it', async () => {
    const { record } = await createTestProject(host.platform, { host: host.host });
    await withDatabase(record.databaseName, async (client) => {
      await client.query(`ALTER TABLE auth.oauth_authorizations DROP COLUMN session_id;
        DELETE FROM auth.schema_migrations WHERE version = '012_oauth_code_session'`);
    });
    await host.host.directory.reload(record.ref);
    await withDatabase(record.databaseName, async (client) => {
      const { rows } = await client.query(`
        SELECT (SELECT data_type FROM information_schema.columns
                 WHERE table_schema = 'auth' AND table_name = 'oauth_authorizations' AND column_name = 'session_id') AS session_id,
               (SELECT array_agg(version ORDER BY version) FROM auth.schema_migrations) AS recorded`);
      expect(rows[0]).toEqual({ session_id: 'uuid', recorded: versions });
    });
  });

  it('loading a current database runs no DDL, so the schema watcher is not woken (no reload loop)', async () => {
    const { record } = await createTestProject(host.platform, { host: host.host });
    await withDatabase(record.databaseName, async (client) => {
      const heard: string[] = [];
      client.on('notification', (message) => heard.push(message.payload ?? ''));
      await client.query('LISTEN gantry_schema');
      await host.host.directory.reload(record.ref);
      await host.host.directory.reload(record.ref);
      // Notifications arrive in commit order: once this marker is heard, any DDL event of the reloads would have been.
      await client.query(`SELECT pg_notify('gantry_schema', 'marker')`);
      await expect.poll(() => heard.includes('marker')).toBe(true);
      expect(heard).toEqual(['marker']);
    });
  });
});

import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyProjectToken } from '../../../runtime/tokens/jwt.js';
import { createProject, databaseNameFor, ProjectError } from '../../../runtime/platform/bootstrap.js';
import { migratePlatform } from '../../../runtime/platform/migrations.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, randomRef, repoRoot, testConfig } from '../../helpers/platform.js';

let platform: Platform;

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
});
afterAll(async () => {
  await platform.close();
});

async function queryProject<T extends pg.QueryResultRow>(ref: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client(platform.cluster.urlFor(databaseNameFor(ref)));
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const { rowCount } = await platform.pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return rowCount === 1;
}

describe('platform registry', () => {
  it('re-running the migrations is a no-op', async () => {
    const client = await platform.pool.connect();
    try {
      expect(await migratePlatform(client)).toEqual([]);
      const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
      const files = (await fs.readdir(path.join(repoRoot, 'runtime/platform/migrations'))).filter((f) => f.endsWith('.sql')).sort();
      expect(rows.map((r) => r.version)).toEqual(files.map((f) => f.replace(/\.sql$/, '')));
      expect(files[0]).toBe('001_projects.sql');
    } finally {
      client.release();
    }
  });
});

describe('project bootstrap', () => {
  const sql = `
    CREATE TABLE notes (id serial PRIMARY KEY, owner uuid DEFAULT auth.uid(), body text);
    ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
    CREATE POLICY own ON notes USING (owner = auth.uid());
  `;
  let ref: string;

  beforeAll(async () => {
    ref = (await createTestProject(platform, { sql, autoconfirm: true })).record.ref;
  });

  it('creates the API roles cluster-wide, with the right attributes and memberships', async () => {
    const roles = await queryProject<{ rolname: string; rolbypassrls: boolean; rolinherit: boolean; rolcanlogin: boolean }>(
      ref,
      `SELECT rolname, rolbypassrls, rolinherit, rolcanlogin FROM pg_roles
        WHERE rolname IN ('anon', 'authenticated', 'service_role', 'authenticator') ORDER BY rolname`,
    );
    expect(roles).toEqual([
      { rolname: 'anon', rolbypassrls: false, rolinherit: false, rolcanlogin: false },
      { rolname: 'authenticated', rolbypassrls: false, rolinherit: false, rolcanlogin: false },
      { rolname: 'authenticator', rolbypassrls: false, rolinherit: false, rolcanlogin: true },
      { rolname: 'service_role', rolbypassrls: true, rolinherit: false, rolcanlogin: false },
    ]);
    const members = await queryProject<{ role: string }>(
      ref,
      `SELECT r.rolname AS role FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
        JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = 'authenticator'
          AND r.rolname NOT LIKE 't\\_%' ORDER BY 1`,
    );
    // Other suites on this cluster grant roles of their own to authenticator, named after their throwaway project (t_…).
    expect(members.map((m) => m.role)).toEqual(['anon', 'authenticated', 'service_role']);
  });

  it('creates the auth schema with users unique by e-mail case-insensitively', async () => {
    const tables = await queryProject<{ table_name: string }>(
      ref,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'auth' ORDER BY 1`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['audit_log_entries', 'one_time_tokens', 'refresh_tokens', 'sessions', 'users']));
    await queryProject(ref, `INSERT INTO auth.users (email) VALUES ('Ada@Example.com')`);
    await expect(queryProject(ref, `INSERT INTO auth.users (email) VALUES ('ada@example.COM')`)).rejects.toMatchObject({ code: '23505' });
  });

  it('auth.uid(), auth.role() and auth.jwt() read request.jwt.claims', async () => {
    const claims = { sub: '11111111-2222-3333-4444-555555555555', role: 'authenticated', email: 'a@b.c' };
    const [row] = await queryProject<{ uid: string; role: string; email: string; none: string | null }>(
      ref,
      `SELECT set_config('request.jwt.claims', $1, false), auth.uid()::text AS uid, auth.role() AS role,
              auth.jwt() ->> 'email' AS email, NULL AS none`,
      [JSON.stringify(claims)],
    );
    expect(row).toMatchObject({ uid: claims.sub, role: 'authenticated', email: 'a@b.c' });
    const [empty] = await queryProject<{ uid: string | null }>(ref, `SELECT auth.uid() AS uid`);
    expect(empty).toEqual({ uid: null });
  });

  it('grants the API roles Supabase-style privileges on public, now and by default', async () => {
    const grants = await queryProject<{ grantee: string; privilege_type: string }>(
      ref,
      `SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = 'public' AND table_name = 'notes' AND grantee IN ('anon', 'authenticated', 'service_role')
          AND privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE') ORDER BY 1, 2`,
    );
    expect(grants).toHaveLength(12);
    await queryProject(ref, 'CREATE TABLE later (id int)');
    const [later] = await queryProject<{ ok: boolean }>(ref, `SELECT has_table_privilege('anon', 'public.later', 'SELECT') AS ok`);
    expect(later).toEqual({ ok: true });
  });

  it('row-level security applies through the authenticator role', async () => {
    const url = platform.authenticatorUrl(databaseNameFor(ref));
    const client = new pg.Client(url);
    await client.connect();
    try {
      await queryProject(ref, `INSERT INTO notes (owner, body) VALUES ('00000000-0000-0000-0000-000000000001', 'one'), ('00000000-0000-0000-0000-000000000002', 'two')`);
      await client.query('BEGIN');
      await client.query(`SELECT set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub: '00000000-0000-0000-0000-000000000001', role: 'authenticated' }),
      ]);
      const { rows } = await client.query('SELECT body FROM notes ORDER BY id');
      await client.query('COMMIT');
      expect(rows).toEqual([{ body: 'one' }]);
    } finally {
      await client.end();
    }
  });

  it('registers the project with a 256-bit secret, its settings and signed keys', async () => {
    const record = (await platform.getProject(ref))!;
    expect(Buffer.from(record.jwtSecret, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(record.settings).toEqual({
      'api.schemas': ['public'],
      'api.aggregates': false,
      'api.plan': false,
      'api.extra_search_path': ['public', 'extensions'],
      'api.max_rows': 1000,
      'api.pre_request': '',
      'app.settings': {},
      'auth.autoconfirm': true,
      'auth.signing_alg': 'HS256',
      'auth.disable_signup': false,
      'auth.anonymous_users': false,
      'auth.site_url': '',
      'auth.redirect_allow_list': [],
      'auth.otp_expiry': 3600,
      'auth.secure_email_change': true,
      'auth.update_password_require_reauthentication': false,
      'auth.refresh_reuse_interval': 0,
      'auth.rate_limit.token_refresh': 150,
      'auth.rate_limit.verify': 30,
      'auth.rate_limit.otp': 30,
      'auth.rate_limit.anonymous_users': 30,
      'auth.rate_limit.passkey': 30,
      'auth.rate_limit.sms_sent': 30,
      'auth.passkey.enabled': false,
      'auth.mfa.webauthn.enabled': false,
      'auth.mfa.phone.enabled': false,
      'auth.webauthn.rp_id': '',
      'auth.webauthn.rp_origins': [],
      'auth.external': {},
      'auth.manual_linking': false,
      'auth.oauth_server.enabled': false,
      'auth.oauth_server.allow_dynamic_registration': false,
      'auth.oauth_server.authorization_path': '',
      'auth.hook': Object.fromEntries(
        ['custom_access_token', 'before_user_created', 'password_verification_attempt', 'mfa_verification_attempt', 'send_email', 'send_sms'].map((name) => [
          name,
          { enabled: false, uri: '', secrets_sealed: '' },
        ]),
      ),
      'auth.sms': {
        provider: '',
        autoconfirm: false,
        template: 'Your code is {{ .Code }}',
        otp_exp: 60,
        otp_length: 6,
        max_frequency: 60,
        test_otp: {},
        test_otp_valid_until: null,
        twilio: { account_sid: '', auth_token_sealed: '', message_service_sid: '', base_url: 'https://api.twilio.com' },
        vonage: { api_key: '', api_secret_sealed: '', from: '', base_url: 'https://rest.nexmo.com' },
      },
    });
    const { keys } = await createTestProject(platform);
    const anon = verifyProjectToken(keys.anon_key, keys.jwt_secret);
    const service = verifyProjectToken(keys.service_key, keys.jwt_secret);
    expect(anon).toMatchObject({ role: 'anon', iss: 'gantry', ref: keys.ref });
    expect(service).toMatchObject({ role: 'service_role', iss: 'gantry', ref: keys.ref });
    expect(() => verifyProjectToken(keys.anon_key, record.jwtSecret)).toThrow();
  });

  it('signs with its jwt_secret by default (no signing key); --signing-alg ES256 gives one current key, its private half readable by no API role', async () => {
    expect((await platform.getProject(ref))!.signingKeys).toEqual([]);
    const record = (await createTestProject(platform, { signingAlg: 'ES256' })).record;
    expect(record.settings['auth.signing_alg']).toBe('ES256');
    const [key] = record.signingKeys;
    expect(record.signingKeys).toEqual([
      {
        kid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        alg: 'ES256',
        status: 'current',
        expiresAt: null,
        privateJwk: { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), d: expect.any(String), kid: key?.kid, alg: 'ES256', key_ops: ['sign'] },
        publicJwk: { kty: 'EC', crv: 'P-256', x: key?.privateJwk.x, y: key?.privateJwk.y, kid: key?.kid, alg: 'ES256', use: 'sig', key_ops: ['verify'] },
      },
    ]);
    const { rows } = await platform.pool.query(
      `SELECT r.rolname, has_table_privilege(r.rolname, 'project_signing_keys', 'SELECT') AS readable FROM pg_roles r
        WHERE r.rolname IN ('anon', 'authenticated', 'service_role', 'authenticator') ORDER BY r.rolname`,
    );
    expect(rows).toEqual(['anon', 'authenticated', 'authenticator', 'service_role'].map((rolname) => ({ rolname, readable: false })));
  });

  it('a project stored with a current key and no auth.signing_alg (created before the setting) keeps signing with that key', async () => {
    const { record } = await createTestProject(platform, { signingAlg: 'RS256' });
    await platform.pool.query(`UPDATE projects SET settings = settings - 'auth.signing_alg' WHERE ref = $1`, [record.ref]);
    expect((await platform.getProject(record.ref))!.settings['auth.signing_alg']).toBe('RS256');
    await platform.pool.query('DELETE FROM project_signing_keys WHERE ref = $1', [record.ref]);
    expect((await platform.getProject(record.ref))!.settings['auth.signing_alg']).toBe('HS256');
  });
});

describe('project bootstrap failures', () => {
  it('a failing schema file leaves no database and no registry row, and names file and line', async () => {
    const ref = randomRef();
    const sql = 'CREATE TABLE ok (id int);\n\nCREATE TABLE broken (id int REFERENCES nowhere(id));\n';
    const error = await createProject(platform, { ref, schemaFiles: [{ name: 'schema/bad.sql', sql }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProjectError);
    expect(error).toMatchObject({ code: 'schema_failed' });
    expect((error as Error).message).toMatch(/^schema\/bad\.sql:3: relation "nowhere" does not exist \(SQLSTATE 42P01\)$/);
    expect(await platform.getProject(ref)).toBeNull();
    expect(await databaseExists(databaseNameFor(ref))).toBe(false);
  });

  it('rejects invalid and duplicate refs', async () => {
    for (const bad of ['ab', '1abc', 'Abc', 'a-bc', 'a'.repeat(41)]) {
      await expect(createProject(platform, { ref: bad, schemaFiles: [] })).rejects.toMatchObject({ code: 'invalid_ref' });
    }
    const { record } = await createTestProject(platform);
    await expect(createProject(platform, { ref: record.ref, schemaFiles: [] })).rejects.toMatchObject({ code: 'project_exists' });
  });
});

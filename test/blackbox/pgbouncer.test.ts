import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject, vi } from 'vitest';
import { pgbouncerBinaries, startBouncer, tracksPreparedStatements, type Bouncer, type PgBouncerBinary } from '../helpers/pgbouncer.js';
import { cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { callProject, eventually, session, sqlFile, uniqueRef, type Answer, type PrintedKeys as Keys } from '../helpers/blackbox-projects.js';

/**
 * A host behind PgBouncer in transaction mode: DATABASE_URL names the bouncer,
 * DATABASE_DIRECT_URL the cluster. The data API's pipelined transactions and auth's pools go
 * through the bouncer; LISTEN, migrations and CREATE DATABASE go direct. Each PgBouncer
 * version the machine has runs it: one before 1.21 (Debian 12's 1.18) with the data API's
 * unnamed statements (DB_PREPARED_STATEMENTS' default beside a direct URL), one of 1.21 or
 * later with `max_prepared_statements` and DB_PREPARED_STATEMENTS=true.
 */

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const binaries = pgbouncerBinaries();
const older = binaries.find((b) => !tracksPreparedStatements(b)) ?? null;
const newer = binaries.find(tracksPreparedStatements) ?? null;
if (!older) console.warn('no PgBouncer before 1.21 (apt-get install pgbouncer): test/blackbox/pgbouncer.test.ts skips its unnamed-statement case');
if (!newer) {
  console.warn('no PgBouncer 1.21 or later (Debian 12 ships 1.18; GANTRY_TEST_PGBOUNCER may name one): test/blackbox/pgbouncer.test.ts skips its prepared-statement case');
}

const PASSWORD = 'correct horse battery staple';
const OTHER = '00000000-0000-0000-0000-000000000001';

/** Notes in notebooks, each note seen by its owner only, and a function that counts what the caller sees. */
const SCHEMA = `
CREATE TABLE public.notebooks (id int PRIMARY KEY, title text NOT NULL);
INSERT INTO public.notebooks VALUES (1, 'Work'), (2, 'Home');
CREATE TABLE public.notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  notebook_id int NOT NULL REFERENCES public.notebooks (id),
  body text NOT NULL
);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_notes ON public.notes FOR ALL TO authenticated
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
INSERT INTO public.notes (owner, notebook_id, body) VALUES ('${OTHER}', 1, 'someone else''s');
CREATE FUNCTION public.visible_notes() RETURNS int LANGUAGE sql STABLE AS $$ SELECT count(*)::int FROM public.notes $$;
`;

const direct = inject('databaseUrl');

function behindBouncer(binary: PgBouncerBinary): void {
  let prepared: boolean;
  let bouncer: Bouncer;
  let inst: Installation;
  let host: Server;
  let keys: Keys;

  function call(method: string, pathAndQuery: string, body?: unknown, bearer?: string, headers?: Record<string, string>): Promise<Answer> {
    return callProject(inst.baseUrl, keys, method, pathAndQuery, { body, bearer, headers });
  }

  beforeAll(async () => {
    // Two server connections per database and user: concurrent transactions must share them.
    prepared = tracksPreparedStatements(binary);
    bouncer = await startBouncer(binary, direct, { poolSize: 2 });
    const env: Record<string, string> = { DATABASE_DIRECT_URL: direct, ...(prepared ? { DB_PREPARED_STATEMENTS: 'true' } : {}) };
    inst = await installation({ databaseUrl: bouncer.via(direct), env });
    host = await serve(inst);
    const schema = await sqlFile(inst, 'notes.sql', SCHEMA);
    keys = jsonObject(await cliOk(['project', 'create', uniqueRef('pgb'), '--schema', schema, '--autoconfirm', '--json'], inst.env)) as unknown as Keys;
    await eventually(5000, () => call('GET', 'rest/v1/notes'), (x) => x.status === 200);
  });
  afterAll(async () => {
    if (host) expect(await host.stop(), host.output()).toBe(0);
    if (inst) await removeInstallation(inst);
    await bouncer?.stop();
  });

  it('serves sign-up, sign-in, refresh with reuse detection, and RLS reads, writes, embeds and RPC', async () => {
    const email = 'bounced@example.com';
    const signedUp = session(await call('POST', 'auth/v1/signup', { email, password: PASSWORD }));
    expect(signedUp.user.email).toBe(email);
    const signedIn = session(await call('POST', 'auth/v1/token?grant_type=password', { email, password: PASSWORD }));
    expect(signedIn.user.id).toBe(signedUp.user.id);
    const me = signedIn.user.id;
    const token = signedIn.access_token;

    const first = await call('POST', 'rest/v1/notes', { notebook_id: 1, body: 'first' }, token);
    expect([first.status, first.body]).toEqual([201, [{ id: 2, owner: me, notebook_id: 1, body: 'first' }]]);
    const second = await call('POST', 'rest/v1/notes?select=id,body', { notebook_id: 2, body: 'second' }, token);
    expect([second.status, second.body]).toEqual([201, [{ id: 3, body: 'second' }]]);
    const patched = await call('PATCH', 'rest/v1/notes?id=eq.3&select=id,body', { body: 'changed' }, token);
    expect([patched.status, patched.body]).toEqual([200, [{ id: 3, body: 'changed' }]]);
    // Someone else's note is out of reach: the update matches nothing.
    const foreign = await call('PATCH', 'rest/v1/notes?id=eq.1&select=id', { body: 'mine now' }, token);
    expect([foreign.status, foreign.body]).toEqual([200, []]);

    const embedded = await call('GET', 'rest/v1/notes?select=body,notebooks(title)&order=id', undefined, token);
    expect([embedded.status, embedded.body]).toEqual([200, [{ body: 'first', notebooks: { title: 'Work' } }, { body: 'changed', notebooks: { title: 'Home' } }]]);
    const counted = await call('GET', 'rest/v1/notes?select=id', undefined, token, { Prefer: 'count=exact' });
    expect([counted.status, counted.headers.get('content-range'), counted.body]).toEqual([200, '0-1/2', [{ id: 2 }, { id: 3 }]]);
    const reverse = await call('GET', 'rest/v1/notebooks?select=title,notes(body)&order=id', undefined, token);
    expect([reverse.status, reverse.body]).toEqual([200, [{ title: 'Work', notes: [{ body: 'first' }] }, { title: 'Home', notes: [{ body: 'changed' }] }]]);

    const mine = await call('POST', 'rest/v1/rpc/visible_notes', {}, token);
    expect([mine.status, mine.body]).toEqual([200, 2]);
    const anonymous = await call('POST', 'rest/v1/rpc/visible_notes', {});
    expect([anonymous.status, anonymous.body]).toEqual([200, 0]);
    const deleted = await call('DELETE', 'rest/v1/notes?id=eq.2&select=id', undefined, token);
    expect([deleted.status, deleted.body]).toEqual([200, [{ id: 2 }]]);

    const rotated = session(await call('POST', 'auth/v1/token?grant_type=refresh_token', { refresh_token: signedIn.refresh_token }));
    expect(rotated.user.id).toBe(me);
    const reuse = await call('POST', 'auth/v1/token?grant_type=refresh_token', { refresh_token: signedIn.refresh_token });
    expect([reuse.status, reuse.body]).toEqual([400, { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' }]);
    const user = await call('GET', 'auth/v1/user', undefined, rotated.access_token);
    expect([user.status, (user.body as { code?: string }).code]).toEqual([403, 'session_not_found']);
  });

  it('keeps concurrent pipelined transactions of different callers apart on two server connections', async () => {
    const email = 'concurrent@example.com';
    const { access_token: token } = session(await call('POST', 'auth/v1/signup', { email, password: PASSWORD }));
    const wrote = await call('POST', 'rest/v1/notes?select=body', { notebook_id: 1, body: 'concurrent' }, token);
    expect([wrote.status, wrote.body]).toEqual([201, [{ body: 'concurrent' }]]);
    // Each answer depends on the caller's claims set in its own transaction: a transaction that ran
    // on the wrong server connection, or with another's settings, answers differently.
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? call('GET', 'rest/v1/notes?select=body', undefined, token) : call('GET', 'rest/v1/notes?select=body'))),
    );
    answers.forEach((answer, i) => expect([answer.status, answer.body]).toEqual([200, i % 2 === 0 ? [{ body: 'concurrent' }] : []]));
    // They went through the bouncer, which held at most two server connections per user for them.
    const { clients, servers, preparedStatements } = await bouncer.connections(`project_${keys.ref}`);
    expect(clients).toContain('authenticator');
    expect(servers.filter((user) => user === 'authenticator').length).toBeLessThanOrEqual(2);
    // Named statements went through as such, prepared once per server connection by the bouncer; unnamed ones leave none.
    if (prepared) expect(preparedStatements).toBeGreaterThan(0);
    else expect(preparedStatements).toBe(0);
  });

  it('notices a schema change made behind its back (LISTEN on the direct URL)', async () => {
    const client = new pg.Client(Object.assign(new URL(direct), { pathname: `/project_${keys.ref}` }).toString());
    await client.connect();
    try {
      await client.query('ALTER TABLE public.notebooks ADD COLUMN colour text');
      await client.query(`UPDATE public.notebooks SET colour = 'blue' WHERE id = 1`);
    } finally {
      await client.end();
    }
    const answer = await eventually(20_000, () => call('GET', 'rest/v1/notebooks?select=title,colour&order=id'), (x) => x.status === 200);
    expect(answer.body).toEqual([{ title: 'Work', colour: 'blue' }, { title: 'Home', colour: null }]);
  });
}

describe.skipIf(!older)(`a host whose DATABASE_URL is PgBouncer ${older?.version.join('.')} in transaction mode (unnamed statements)`, () => {
  behindBouncer(older!);
});

describe.skipIf(!newer)(`a host whose DATABASE_URL is PgBouncer ${newer?.version.join('.')} in transaction mode (prepared statements)`, () => {
  behindBouncer(newer!);
});

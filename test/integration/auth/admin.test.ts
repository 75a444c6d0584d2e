import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../../runtime/tokens/jwt.js';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';

let suite: AuthSuite;
let project: AuthProject;
let other: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [project, other] = await Promise.all([suite.project(), suite.project()]);
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

function admin(method: string, path: string, body?: unknown) {
  return project.call(method, path, { apikey: project.serviceKey, bearer: project.serviceKey, body, headers: V });
}

describe('admin authorisation', () => {
  it('refuses missing keys, the anon key, a user token and another project service key', async () => {
    const none = await project.call('GET', '/admin/users', { apikey: null, headers: V });
    expect([none.status, none.body.code]).toEqual([401, 'no_authorization']);
    const anon = await project.call('GET', '/admin/users', { bearer: project.anonKey, headers: V });
    expect([anon.status, anon.body]).toEqual([403, { code: 'not_admin', message: 'User not allowed' }]);
    const created = await admin('POST', '/admin/users', { email: uniqueEmail('u'), password: 'secret1' });
    const login = await project.call('POST', '/token?grant_type=password', { body: { email: created.body.email, password: 'secret1' } });
    const user = await project.call('GET', '/admin/users', { bearer: login.body.access_token, headers: V });
    expect([user.status, user.body.code]).toEqual([403, 'not_admin']);
    const foreign = await project.call('GET', '/admin/users', { apikey: null, bearer: other.serviceKey, headers: V });
    expect([foreign.status, foreign.body]).toEqual([
      403,
      { code: 'bad_jwt', message: 'invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid' },
    ]);
  });

  it("accepts a supabase_admin token, GoTrue's other default admin role, and records it as the actor", async () => {
    const iat = Math.floor(Date.now() / 1000);
    const token = signJwt(project.record.jwtSecret, { role: 'supabase_admin', iat, exp: iat + 60 });
    const email = uniqueEmail('byadmin');
    const res = await project.call('POST', '/admin/users', { apikey: null, bearer: token, body: { email, password: 'secret1' }, headers: V });
    expect([res.status, res.body.email]).toEqual([200, email]);
    const audit = await project.db.query(
      `SELECT payload->>'actor' AS actor FROM auth.audit_log_entries WHERE event = 'user_created' AND payload->>'email' = $1`,
      [email],
    );
    expect(audit.rows).toEqual([{ actor: 'supabase_admin' }]);
  });

  it('accepts the service key as apikey alone', async () => {
    const res = await project.call('GET', '/admin/users', { apikey: project.serviceKey });
    expect(res.status).toBe(200);
  });
});

describe('admin users', () => {
  it('creates confirmed users who can sign in, with metadata', async () => {
    const email = uniqueEmail('adm');
    const res = await admin('POST', '/admin/users', {
      email,
      password: 'secret1',
      user_metadata: { name: 'Bo' },
      app_metadata: { plan: 'pro', provider: 'ignored' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email,
      user_metadata: { name: 'Bo' },
      app_metadata: { plan: 'pro', provider: 'email', providers: ['email'] },
    });
    expect(typeof res.body.email_confirmed_at).toBe('string');
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);
    const dup = await admin('POST', '/admin/users', { email: email.toUpperCase(), password: 'secret1' });
    expect([dup.status, dup.body.code]).toEqual([422, 'email_exists']);
  });

  it('creates unconfirmed users when email_confirm is false', async () => {
    const email = uniqueEmail('unc');
    const res = await admin('POST', '/admin/users', { email, password: 'secret1', email_confirm: false });
    expect(res.body.email_confirmed_at).toBeUndefined();
    const login = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' }, headers: V });
    expect(login.body.code).toBe('email_not_confirmed');
  });

  it('gets, updates metadata and password, and 404s unknown ids', async () => {
    const email = uniqueEmail('upd');
    const created = await admin('POST', '/admin/users', { email, password: 'secret1', user_metadata: { a: 1, b: 2 } });
    const id = created.body.id as string;
    const session = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    expect((await admin('GET', `/admin/users/${id}`)).body).toEqual(session.body.user);
    const updated = await admin('PUT', `/admin/users/${id}`, { user_metadata: { b: null, c: 3 }, password: 'changed-1' });
    expect(updated.status).toBe(200);
    expect(updated.body.user_metadata).toEqual({ a: 1, c: 3 });
    const refresh = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: session.body.refresh_token }, headers: V });
    expect(refresh.body.code).toBe('session_not_found');
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'changed-1' } })).status).toBe(200);
    for (const path of ['/admin/users/00000000-0000-4000-8000-000000000000', '/admin/users/not-a-uuid']) {
      const res = await admin('GET', path);
      expect([res.status, res.body]).toEqual([404, { code: 'user_not_found', message: 'User not found' }]);
    }
    expect((await admin('PUT', '/admin/users/00000000-0000-4000-8000-000000000000', { banned: true })).status).toBe(404);
    expect((await admin('DELETE', '/admin/users/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('changes the e-mail address, refusing one that is taken', async () => {
    const created = await admin('POST', '/admin/users', { email: uniqueEmail('old'), password: 'secret1' });
    const taken = await admin('POST', '/admin/users', { email: uniqueEmail('taken'), password: 'secret1' });
    const email = uniqueEmail('new');
    const moved = await admin('PUT', `/admin/users/${created.body.id}`, { email: email.toUpperCase() });
    expect([moved.status, moved.body.email]).toEqual([200, email]);
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);
    const clash = await admin('PUT', `/admin/users/${created.body.id}`, { email: taken.body.email });
    expect([clash.status, clash.body.code]).toEqual([422, 'email_exists']);
  });

  it('bans for 100 years and lifts the ban; ban_duration works too', async () => {
    const email = uniqueEmail('ban');
    const created = await admin('POST', '/admin/users', { email, password: 'secret1' });
    const id = created.body.id as string;
    const session = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });

    const banned = await admin('PUT', `/admin/users/${id}`, { banned: true });
    const until = new Date(banned.body.banned_until as string).getTime();
    expect(until - Date.now()).toBeGreaterThan(99 * 365 * 86_400_000);
    const login = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' }, headers: V });
    expect([login.status, login.body]).toEqual([400, { code: 'user_banned', message: 'User is banned' }]);
    const wrongPw = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'wrong-pw' }, headers: V });
    expect(wrongPw.body.code).toBe('invalid_credentials');
    const refresh = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: session.body.refresh_token }, headers: V });
    expect([refresh.status, refresh.body.code]).toEqual([400, 'user_banned']);
    const me = await project.call('GET', '/user', { bearer: session.body.access_token, headers: V });
    expect([me.status, me.body.code]).toEqual([403, 'user_banned']);

    const lifted = await admin('PUT', `/admin/users/${id}`, { banned: false });
    expect(lifted.body.banned_until).toBeUndefined();
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);

    const day = await admin('PUT', `/admin/users/${id}`, { ban_duration: '24h' });
    expect(Math.round((new Date(day.body.banned_until as string).getTime() - Date.now()) / 3_600_000)).toBe(24);
    project.clock.advance(24 * 3600 + 1);
    try {
      expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);
    } finally {
      project.clock.advance(-(24 * 3600 + 1));
    }
    const none = await admin('PUT', `/admin/users/${id}`, { ban_duration: 'none' });
    expect(none.body.banned_until).toBeUndefined();
    const bad = await admin('PUT', `/admin/users/${id}`, { ban_duration: 'forever' });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
    const events = await project.db.query(`SELECT event FROM auth.audit_log_entries WHERE user_id = $1 AND event LIKE 'user_%banned' ORDER BY id`, [id]);
    expect(events.rows.map((r) => r.event)).toEqual(['user_banned', 'user_unbanned', 'user_banned', 'user_unbanned']);
  });

  it('deletes a user (200 with the deleted user) and the sessions with it', async () => {
    const email = uniqueEmail('del');
    const created = await admin('POST', '/admin/users', { email, password: 'secret1' });
    const session = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const res = await project.call('DELETE', `/admin/users/${created.body.id}`, {
      apikey: project.serviceKey,
      bearer: project.serviceKey,
      body: { should_soft_delete: false },
    });
    expect([res.status, res.body.id, res.body.email]).toEqual([200, created.body.id, email]);
    expect((await admin('GET', `/admin/users/${created.body.id}`)).status).toBe(404);
    const refresh = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: session.body.refresh_token }, headers: V });
    expect(refresh.body.code).toBe('refresh_token_not_found');
    const me = await project.call('GET', '/user', { bearer: session.body.access_token, headers: V });
    expect([me.status, me.body.code]).toEqual([403, 'user_not_found']);
  });
});

describe('admin user listing', () => {
  it('paginates with limit/offset and page/per_page, with X-Total-Count and a Link header', async () => {
    const fresh = await suite.project();
    const call = (path: string) => fresh.call('GET', path, { apikey: fresh.serviceKey, bearer: fresh.serviceKey });
    const emails: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const email = uniqueEmail(`list${i}`);
      emails.push(email);
      const res = await fresh.call('POST', '/admin/users', { apikey: fresh.serviceKey, body: { email, password: 'secret1' } });
      expect(res.status).toBe(200);
    }
    const newestFirst = [...emails].reverse();

    const all = await call('/admin/users');
    expect(all.status).toBe(200);
    expect(all.body.aud).toBe('authenticated');
    expect(all.body.users.map((u: any) => u.email)).toEqual(newestFirst);
    expect(all.headers.get('x-total-count')).toBe('5');

    const slice = await call('/admin/users?limit=2&offset=1');
    expect(slice.body.users.map((u: any) => u.email)).toEqual(newestFirst.slice(1, 3));
    expect(slice.headers.get('x-total-count')).toBe('5');

    const page2 = await call('/admin/users?page=2&per_page=2');
    expect(page2.body.users.map((u: any) => u.email)).toEqual(newestFirst.slice(2, 4));
    expect(page2.headers.get('link')).toBe(
      `</v1/${fresh.ref}/auth/v1/admin/users?page=3&per_page=2>; rel="next", </v1/${fresh.ref}/auth/v1/admin/users?page=3&per_page=2>; rel="last"`,
    );
    const page3 = await call('/admin/users?page=3&per_page=2');
    expect(page3.body.users).toHaveLength(1);
    expect(page3.headers.get('link')).toBe(`</v1/${fresh.ref}/auth/v1/admin/users?page=3&per_page=2>; rel="last"`);

    const bad = await fresh.call('GET', '/admin/users?limit=-1', { apikey: fresh.serviceKey, headers: V });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });
});

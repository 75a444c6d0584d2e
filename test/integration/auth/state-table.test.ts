import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

/** One test per row of the service document's state table (section 3), in its order. */

let suite: AuthSuite;
let confirmOn: AuthProject;
let autoconfirm: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [confirmOn, autoconfirm] = await Promise.all([suite.project(), suite.project({ autoconfirm: true })]);
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

function signIn(project: AuthProject, email: string, password = 'secret1') {
  return project.call('POST', '/token?grant_type=password', { body: { email, password }, headers: V });
}

function refresh(project: AuthProject, refreshToken: string) {
  return project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: refreshToken }, headers: V });
}

async function adminCreate(project: AuthProject, email: string) {
  return project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1' }, headers: V });
}

async function confirmedWithSessions(project: AuthProject, count: number) {
  const email = uniqueEmail('st');
  const created = await adminCreate(project, email);
  const sessions = [];
  for (let i = 0; i < count; i += 1) sessions.push((await signIn(project, email)).body);
  return { email, id: created.body.id as string, sessions };
}

describe('state table', () => {
  it('(none) -> POST signup, AUTH_AUTOCONFIRM true -> confirmed, session returned', async () => {
    const res = await autoconfirm.call('POST', '/signup', { body: { email: uniqueEmail('st'), password: 'secret1' } });
    expect(res.status).toBe(200);
    expect(res.body.session.access_token).toEqual(expect.any(String));
    expect(res.body.user.email_confirmed_at).toEqual(expect.any(String));
  });

  it('(none) -> POST signup, AUTH_AUTOCONFIRM not true -> unconfirmed, link mailed, session null', async () => {
    const email = uniqueEmail('st');
    const res = await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    expect([res.status, res.body.session, res.body.user.email_confirmed_at]).toEqual([200, null, undefined]);
    expect(linkFrom(await suite.smtp.waitFor(email)).searchParams.get('type')).toBe('signup');
  });

  it('unconfirmed -> GET verify type=signup with a valid token -> confirmed, session returned', async () => {
    const email = uniqueEmail('st');
    await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const res = await fetch(linkFrom(await suite.smtp.waitFor(email)));
    const body = (await res.json()) as { access_token: string; user: { email_confirmed_at?: string } };
    expect(res.status).toBe(200);
    expect(body.access_token).toEqual(expect.any(String));
    expect(body.user.email_confirmed_at).toEqual(expect.any(String));
  });

  it('(none) -> POST admin/users with service_key -> confirmed immediately', async () => {
    const email = uniqueEmail('st');
    const res = await adminCreate(confirmOn, email);
    expect(res.body.email_confirmed_at).toEqual(expect.any(String));
    expect((await signIn(confirmOn, email)).status).toBe(200);
  });

  it('unconfirmed -> POST token (password grant) -> unchanged, sign-in rejected', async () => {
    const email = uniqueEmail('st');
    await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const res = await signIn(confirmOn, email);
    expect([res.status, res.body.code]).toEqual([400, 'email_not_confirmed']);
    const { rows } = await confirmOn.db.query('SELECT email_confirmed_at FROM auth.users WHERE email = $1', [email]);
    expect(rows).toEqual([{ email_confirmed_at: null }]);
  });

  it('confirmed -> PUT admin/users/:id banned true -> banned for 100 years, sign-in rejected', async () => {
    const { email, id } = await confirmedWithSessions(confirmOn, 0);
    const res = await confirmOn.call('PUT', `/admin/users/${id}`, { apikey: confirmOn.serviceKey, body: { banned: true } });
    const years = (new Date(res.body.banned_until as string).getTime() - Date.now()) / (365.25 * 86_400_000);
    expect(Math.round(years)).toBe(100);
    expect((await signIn(confirmOn, email)).body.code).toBe('user_banned');
  });

  it('banned -> PUT admin/users/:id banned false -> not banned', async () => {
    const { email, id } = await confirmedWithSessions(confirmOn, 0);
    await confirmOn.call('PUT', `/admin/users/${id}`, { apikey: confirmOn.serviceKey, body: { banned: true } });
    const res = await confirmOn.call('PUT', `/admin/users/${id}`, { apikey: confirmOn.serviceKey, body: { banned: false } });
    expect(res.body.banned_until).toBeUndefined();
    expect((await signIn(confirmOn, email)).status).toBe(200);
  });

  it('any -> DELETE admin/users/:id -> deleted', async () => {
    const { email, id } = await confirmedWithSessions(confirmOn, 1);
    expect((await confirmOn.call('DELETE', `/admin/users/${id}`, { apikey: confirmOn.serviceKey })).status).toBe(200);
    expect((await confirmOn.db.query('SELECT 1 FROM auth.users WHERE id = $1', [id])).rowCount).toBe(0);
    expect((await signIn(confirmOn, email)).body.code).toBe('invalid_credentials');
  });

  it('refresh token active -> POST token (refresh grant) -> revoked, new session with a new refresh token', async () => {
    const { sessions } = await confirmedWithSessions(confirmOn, 1);
    const next = await refresh(confirmOn, sessions[0].refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(sessions[0].refresh_token);
    expect((await refresh(confirmOn, sessions[0].refresh_token)).status).toBe(400);
  });

  it('refresh tokens active (all of the user) -> POST logout -> revoked, 204', async () => {
    const { sessions } = await confirmedWithSessions(confirmOn, 3);
    const res = await confirmOn.call('POST', '/logout', { bearer: sessions[0].access_token });
    expect(res.status).toBe(204);
    for (const session of sessions) expect((await refresh(confirmOn, session.refresh_token)).status).toBe(400);
  });

  it('refresh tokens active (all of the user) -> POST reset with a valid recovery token -> revoked everywhere', async () => {
    const { email, sessions } = await confirmedWithSessions(confirmOn, 2);
    await confirmOn.call('POST', '/recover', { body: { email } });
    const token = linkFrom(await suite.smtp.waitFor(email, 'Reset')).searchParams.get('token');
    expect((await confirmOn.call('POST', '/reset', { body: { token, password: 'secret2' } })).status).toBe(200);
    for (const session of sessions) expect((await refresh(confirmOn, session.refresh_token)).status).toBe(400);
  });

  it('recovery token issued -> POST recover, e-mail exists -> valid 1 hour, mailed; no visible difference otherwise', async () => {
    const { email } = await confirmedWithSessions(confirmOn, 0);
    const known = await confirmOn.call('POST', '/recover', { body: { email } });
    const unknown = await confirmOn.call('POST', '/recover', { body: { email: uniqueEmail('nobody') } });
    expect([known.status, known.body]).toEqual([unknown.status, unknown.body]);
    const token = linkFrom(await suite.smtp.waitFor(email, 'Reset')).searchParams.get('token');
    const { rows } = await confirmOn.db.query(
      `SELECT extract(epoch FROM t.expires_at - t.created_at)::int AS lifetime FROM auth.one_time_tokens t JOIN auth.users u ON u.id = t.user_id WHERE u.email = $1 AND t.token_type = 'recovery'`,
      [email],
    );
    expect(rows.map((r) => r.lifetime)).toEqual([3600]);
    expect(token).toEqual(expect.any(String));
  });
});

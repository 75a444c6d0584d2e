import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD_HASH, PasswordPool } from '../../../runtime/auth/credentials/passwords.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';

/** The real worker pool, recording what each compare was asked to check. */
class RecordingPasswordPool extends PasswordPool {
  readonly compared: Array<{ password: string; hash: string }> = [];

  override compare(password: string, hash: string): Promise<boolean> {
    this.compared.push({ password, hash });
    return super.compare(password, hash);
  }
}

let suite: AuthSuite;
let strict: AuthProject;
let graceful: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [strict, graceful] = await Promise.all([suite.project({ autoconfirm: true }), suite.project({ autoconfirm: true, reuseInterval: 10 })]);
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

async function signUp(project: AuthProject, password = 'secret1'): Promise<{ email: string; session: any }> {
  const email = uniqueEmail('s');
  const res = await project.call('POST', '/signup', { body: { email, password } });
  expect(res.status).toBe(200);
  return { email, session: res.body };
}

async function refresh(project: AuthProject, token: string) {
  return project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: token }, headers: V });
}

describe('password grant', () => {
  it('returns a GoTrue session and records the sign-in', async () => {
    const { email, session: first } = await signUp(strict);
    const res = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1', gotrue_meta_security: {} } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['access_token', 'token_type', 'expires_in', 'expires_at', 'refresh_token', 'user']);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, user: { id: first.user.id, email } });
    expect(res.body.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(3590);
    expect(res.body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const claims = decodeJwt(res.body.access_token);
    expect(claims.session_id).not.toBe(decodeJwt(first.access_token).session_id);
    expect(claims.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }]);
    const stored = await strict.db.query('SELECT token_hash FROM auth.refresh_tokens WHERE user_id = $1', [first.user.id]);
    expect(stored.rows.map((r) => r.token_hash)).not.toContain(res.body.refresh_token);
  });

  it('gives unknown e-mail and wrong password the same answer', async () => {
    const { email } = await signUp(strict);
    const wrong = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'wrong-password' }, headers: V });
    const unknown = await strict.call('POST', '/token?grant_type=password', { body: { email: uniqueEmail('nobody'), password: 'secret1' }, headers: V });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    }
    const legacy = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'nope-nope' } });
    expect(legacy.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    const failures = await strict.db.query(`SELECT payload->>'reason' AS reason FROM auth.audit_log_entries WHERE event = 'login_failed' AND payload->>'email' = $1`, [email]);
    expect(failures.rows).toEqual([{ reason: 'invalid_credentials' }, { reason: 'invalid_credentials' }]);
  });

  it('runs one bcrypt compare for unknown, malformed and password-less e-mails too, against the dummy hash', async () => {
    // The same cost on every path is what keeps "no such user" from answering faster than "wrong password".
    const passwords = new RecordingPasswordPool(1);
    try {
      const spied = await suite.mirror(strict, { autoconfirm: true, passwords });
      const { email, session } = await signUp(strict);
      const stored = await strict.db.query<{ encrypted_password: string }>('SELECT encrypted_password FROM auth.users WHERE id = $1', [session.user.id]);
      const passwordless = await strict.call('POST', '/admin/users', { apikey: strict.serviceKey, bearer: strict.serviceKey, body: { email: uniqueEmail('nopass'), email_confirm: true } });
      expect(passwordless.status).toBe(200);
      const attempts = [
        { email, password: 'wrong-one' },
        { email: uniqueEmail('ghost'), password: 'secret1' },
        { email: 'not an address', password: 'secret1' },
        { email: passwordless.body.email, password: 'secret1' },
        { email, password: 'secret1' },
      ];
      const statuses: number[] = [];
      for (const body of attempts) statuses.push((await spied.call('POST', '/token?grant_type=password', { body })).status);
      expect(statuses).toEqual([400, 400, 400, 400, 200]);
      const hash = stored.rows[0]!.encrypted_password;
      expect(passwords.compared).toEqual([
        { password: 'wrong-one', hash },
        { password: 'secret1', hash: DUMMY_PASSWORD_HASH },
        { password: 'secret1', hash: DUMMY_PASSWORD_HASH },
        { password: 'secret1', hash: DUMMY_PASSWORD_HASH },
        { password: 'secret1', hash },
      ]);
    } finally {
      await passwords.close();
    }
  });

  it('signs one user in 20 times at once: every sign-in gets its own session', async () => {
    const { email, session } = await signUp(strict);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => strict.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(new Set(results.map((r) => decodeJwt(r.body.access_token).session_id)).size).toBe(20);
    const sessions = await strict.db.query('SELECT count(*)::int AS n FROM auth.sessions WHERE user_id = $1', [session.user.id]);
    expect(sessions.rows).toEqual([{ n: 21 }]);
  });

  it('rejects unknown grant types and missing e-mail', async () => {
    const grant = await strict.call('POST', '/token?grant_type=magic', { body: {}, headers: V });
    expect([grant.status, grant.body]).toEqual([400, { code: 'invalid_credentials', message: 'unsupported_grant_type' }]);
    const missing = await strict.call('POST', '/token?grant_type=password', { body: { password: 'x' }, headers: V });
    expect([missing.status, missing.body.code]).toEqual([400, 'validation_failed']);
  });
});

describe('refresh grant', () => {
  it('rotates: the new token works, the old one is revoked at once', async () => {
    const { session } = await signUp(strict);
    const first = await refresh(strict, session.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(session.refresh_token);
    expect(first.body.user.id).toBe(session.user.id);
    expect(decodeJwt(first.body.access_token).session_id).toBe(decodeJwt(session.access_token).session_id);
    const second = await refresh(strict, first.body.refresh_token);
    expect(second.status).toBe(200);
    const rows = await strict.db.query('SELECT revoked, parent_id IS NULL AS root FROM auth.refresh_tokens WHERE user_id = $1 ORDER BY id', [session.user.id]);
    expect(rows.rows).toEqual([
      { revoked: true, root: true },
      { revoked: true, root: false },
      { revoked: false, root: false },
    ]);
    // Each token names the one it replaced; the session records the refresh; each rotation is audited.
    const chain = await strict.db.query('SELECT id, parent_id FROM auth.refresh_tokens WHERE user_id = $1 ORDER BY id', [session.user.id]);
    expect(chain.rows.map((r) => r.parent_id)).toEqual([null, chain.rows[0].id, chain.rows[1].id]);
    const sessionId = decodeJwt(session.access_token).session_id;
    const refreshed = await strict.db.query('SELECT refreshed_at IS NOT NULL AND refreshed_at = updated_at AS refreshed FROM auth.sessions WHERE id = $1', [sessionId]);
    expect(refreshed.rows).toEqual([{ refreshed: true }]);
    const audit = await strict.db.query(`SELECT payload FROM auth.audit_log_entries WHERE event = 'token_refreshed' AND user_id = $1`, [session.user.id]);
    expect(audit.rows).toEqual([{ payload: { session_id: sessionId } }, { payload: { session_id: sessionId } }]);
  });

  it('treats a used token as reuse: refused and the whole session revoked', async () => {
    const { session } = await signUp(strict);
    const next = await refresh(strict, session.refresh_token);
    expect(next.status).toBe(200);
    const reuse = await refresh(strict, session.refresh_token);
    expect([reuse.status, reuse.body]).toEqual([400, { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' }]);
    const child = await refresh(strict, next.body.refresh_token);
    expect([child.status, child.body.code]).toEqual([400, 'refresh_token_already_used']);
    const me = await strict.call('GET', '/user', { bearer: next.body.access_token, headers: V });
    expect([me.status, me.body.code]).toEqual([403, 'session_not_found']);
    const audit = await strict.db.query(`SELECT count(*)::int AS n FROM auth.audit_log_entries WHERE event = 'token_reuse_detected' AND user_id = $1`, [session.user.id]);
    expect(audit.rows[0].n).toBe(1);
  });

  it('refuses unknown and malformed tokens', async () => {
    const unknown = await refresh(strict, 'A'.repeat(43));
    expect([unknown.status, unknown.body]).toEqual([400, { code: 'refresh_token_not_found', message: 'Invalid Refresh Token: Refresh Token Not Found' }]);
    const malformed = await refresh(strict, 'short');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'validation_failed']);
  });

  it.each([
    ['interval 0', () => strict, 1],
    ['interval 10', () => graceful, 20],
  ])('never issues two live children for 20 parallel refreshes (%s)', async (_label, project, successes) => {
    const p = project();
    const { session } = await signUp(p);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(p, session.refresh_token)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(successes);
    expect(new Set(ok.map((r) => r.body.refresh_token)).size).toBe(1);
    for (const failed of results.filter((r) => r.status !== 200)) {
      expect([failed.status, failed.body.code]).toEqual([400, 'refresh_token_already_used']);
    }
    const live = await p.db.query('SELECT count(*)::int AS n FROM auth.refresh_tokens WHERE user_id = $1 AND NOT revoked', [session.user.id]);
    expect(live.rows[0].n).toBe(successes === 1 ? 0 : 1);
  });

  it('inside the grace window answers a reused token with the current one, outside it detects reuse', async () => {
    const { session } = await signUp(graceful);
    const a = await refresh(graceful, session.refresh_token);
    const b = await refresh(graceful, a.body.refresh_token);
    const again = await refresh(graceful, session.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(b.body.refresh_token);
    graceful.clock.advance(11);
    try {
      const late = await refresh(graceful, a.body.refresh_token);
      expect([late.status, late.body.code]).toEqual([400, 'refresh_token_already_used']);
      const current = await refresh(graceful, b.body.refresh_token);
      expect([current.status, current.body.code]).toEqual([400, 'refresh_token_already_used']);
    } finally {
      graceful.clock.advance(-11);
    }
  });
});

describe('GET and PUT /user', () => {
  it('returns the user of a valid access token', async () => {
    const { session } = await signUp(strict);
    const res = await strict.call('GET', '/user', { bearer: session.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(session.user);
  });

  it('takes the access token from the apikey header alone (service document 5.1), but not a project API key', async () => {
    const { session } = await signUp(strict);
    const res = await strict.call('GET', '/user', { apikey: session.access_token });
    expect([res.status, res.body]).toEqual([200, session.user]);
    const service = await strict.call('GET', '/user', { apikey: strict.serviceKey, headers: V });
    expect([service.status, service.body]).toEqual([401, { code: 'no_authorization', message: 'This endpoint requires a valid Bearer token' }]);
  });

  it('needs a valid, unexpired user token', async () => {
    const { session } = await signUp(strict);
    const none = await strict.call('GET', '/user', { headers: V });
    expect([none.status, none.body]).toEqual([401, { code: 'no_authorization', message: 'This endpoint requires a valid Bearer token' }]);
    const garbage = await strict.call('GET', '/user', { bearer: 'x.y.z', headers: V });
    expect([garbage.status, garbage.body.code]).toEqual([403, 'bad_jwt']);
    expect(garbage.body.message).toMatch(/^invalid JWT: unable to parse or verify signature, token is malformed: /);
    const forged = await strict.call('GET', '/user', { bearer: `${session.access_token.slice(0, -4)}AAAA`, headers: V });
    expect([forged.status, forged.body]).toEqual([
      403,
      { code: 'bad_jwt', message: 'invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid' },
    ]);
    // The anon key verifies but names no user: GoTrue's missing-sub answer.
    const anon = await strict.call('GET', '/user', { bearer: strict.anonKey, headers: V });
    expect([anon.status, anon.body]).toEqual([403, { code: 'bad_jwt', message: 'invalid claim: missing sub claim' }]);
    strict.clock.advance(3600 + 31);
    try {
      const expired = await strict.call('GET', '/user', { bearer: session.access_token, headers: V });
      expect([expired.status, expired.body]).toEqual([
        403,
        { code: 'bad_jwt', message: 'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired' },
      ]);
    } finally {
      strict.clock.advance(-(3600 + 31));
    }
  });

  it('updates metadata (shallow merge, null deletes) and the password, signing out other sessions', async () => {
    const { email, session } = await signUp(strict);
    const other = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const meta = await strict.call('PUT', '/user', { bearer: session.access_token, body: { data: { theme: 'dark', x: 1 } } });
    expect([meta.status, meta.body.user_metadata]).toEqual([200, { theme: 'dark', x: 1 }]);
    const drop = await strict.call('PUT', '/user', { bearer: session.access_token, body: { data: { x: null }, code_challenge: null } });
    expect(drop.body.user_metadata).toEqual({ theme: 'dark' });

    const same = await strict.call('PUT', '/user', { bearer: session.access_token, body: { password: 'secret1' }, headers: V });
    expect([same.status, same.body.code]).toEqual([422, 'same_password']);
    const weak = await strict.call('PUT', '/user', { bearer: session.access_token, body: { password: '123' }, headers: V });
    expect([weak.status, weak.body.code]).toEqual([422, 'weak_password']);
    const changed = await strict.call('PUT', '/user', { bearer: session.access_token, body: { password: 'brand-new-1' } });
    expect(changed.status).toBe(200);

    expect((await refresh(strict, other.body.refresh_token)).body.code).toBe('session_not_found');
    expect((await refresh(strict, session.refresh_token)).status).toBe(200);
    const oldPw = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    expect(oldPw.status).toBe(400);
    const newPw = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'brand-new-1' } });
    expect(newPw.status).toBe(200);
  });
});

describe('POST /logout', () => {
  async function threeSessions() {
    const { email, session } = await signUp(strict);
    const b = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const c = await strict.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    return [session, b.body, c.body] as const;
  }

  it('global (default) revokes every refresh token of the user and returns 204', async () => {
    const [a, b, c] = await threeSessions();
    const res = await strict.call('POST', '/logout', { bearer: a.access_token });
    expect([res.status, res.text]).toEqual([204, '']);
    for (const s of [a, b, c]) {
      const r = await refresh(strict, s.refresh_token);
      expect([r.status, r.body.code]).toEqual([400, 'session_not_found']);
    }
    const live = await strict.db.query('SELECT count(*)::int AS n FROM auth.refresh_tokens WHERE user_id = $1 AND NOT revoked', [a.user.id]);
    expect(live.rows[0].n).toBe(0);
    const me = await strict.call('GET', '/user', { bearer: a.access_token, headers: V });
    expect([me.status, me.body.code]).toEqual([403, 'session_not_found']);
  });

  it('local and others', async () => {
    const [a, b, c] = await threeSessions();
    expect((await strict.call('POST', '/logout?scope=local', { bearer: a.access_token })).status).toBe(204);
    expect((await refresh(strict, a.refresh_token)).status).toBe(400);
    const bNext = await refresh(strict, b.refresh_token);
    expect(bNext.status).toBe(200);
    expect((await strict.call('POST', '/logout?scope=others', { bearer: bNext.body.access_token })).status).toBe(204);
    expect((await refresh(strict, c.refresh_token)).status).toBe(400);
    expect((await refresh(strict, bNext.body.refresh_token)).status).toBe(200);
    const bad = await strict.call('POST', '/logout?scope=everything', { bearer: bNext.body.access_token, headers: V });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });

  it('needs an access token', async () => {
    const res = await strict.call('POST', '/logout', { headers: V });
    expect([res.status, res.body.code]).toEqual([401, 'no_authorization']);
  });
});

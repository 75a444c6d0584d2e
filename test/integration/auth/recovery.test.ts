import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECOVER_MESSAGE, RESET_MESSAGE } from '../../../runtime/auth/routes/recovery.js';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

let suite: AuthSuite;
let project: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  project = await suite.project({ autoconfirm: true });
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };

async function userWithSessions(): Promise<{ email: string; sessions: any[] }> {
  const email = uniqueEmail('rec');
  const first = await project.call('POST', '/signup', { body: { email, password: 'secret1' } });
  const second = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
  return { email, sessions: [first.body, second.body] };
}

async function recoveryLink(email: string): Promise<URL> {
  const res = await project.call('POST', '/recover', { body: { email, code_challenge: null, gotrue_meta_security: {} } });
  expect([res.status, res.body]).toEqual([200, { message: RECOVER_MESSAGE }]);
  return linkFrom(await suite.smtp.waitFor(email, 'Reset'));
}

describe('POST /recover', () => {
  it('answers the same for unknown addresses and mails nothing', async () => {
    const ghost = uniqueEmail('ghost');
    const res = await project.call('POST', '/recover', { body: { email: ghost } });
    expect([res.status, res.body]).toEqual([200, { message: RECOVER_MESSAGE }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(suite.smtp.countTo(ghost)).toBe(0);
  });

  it('mails a recovery link of the contract form for a known address', async () => {
    const { email } = await userWithSessions();
    const link = await recoveryLink(email);
    expect(`${link.origin}${link.pathname}`).toBe(`${project.authUrl}/verify`);
    expect(link.searchParams.get('type')).toBe('recovery');
    const audit = await project.db.query(
      `SELECT count(*)::int AS n FROM auth.audit_log_entries a JOIN auth.users u ON u.id = a.user_id WHERE u.email = $1 AND a.event = 'user_recovery_requested'`,
      [email],
    );
    expect(audit.rows[0].n).toBe(1);
  });

  it('validates the address', async () => {
    const res = await project.call('POST', '/recover', { body: { email: 'nope' }, headers: V });
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
  });
});

describe('GET /verify?type=recovery', () => {
  it('tells a JSON client the token is valid without consuming it', async () => {
    const { email } = await userWithSessions();
    const link = await recoveryLink(email);
    for (let i = 0; i < 2; i += 1) {
      const res = await fetch(link, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: 'Recovery token is valid: POST it with a new password to /reset', type: 'recovery', valid: true });
    }
  });

  it('serves a browser the reset page that posts to /reset', async () => {
    const { email } = await userWithSessions();
    const link = await recoveryLink(email);
    const res = await fetch(link, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain(`action="/v1/${project.ref}/auth/v1/reset"`);
    expect(html).toContain(`name="token" value="${link.searchParams.get('token')}"`);
    expect(html).toContain(email);
    const bad = await fetch(`${project.authUrl}/verify?type=recovery&token=${'x'.repeat(43)}`, { headers: { accept: 'text/html' } });
    expect(bad.status).toBe(403);
    expect(await bad.text()).toContain('Email link is invalid or has expired');
  });

  it('with redirect_to, consumes the token and redirects with a recovery session', async () => {
    const { email } = await userWithSessions();
    const target = `${new URL(project.authUrl).origin}/update-password`;
    const res = await project.call('POST', `/recover?redirect_to=${encodeURIComponent(target)}`, { body: { email } });
    expect(res.status).toBe(200);
    const link = linkFrom(await suite.smtp.waitFor(email, 'Reset'));
    const verified = await fetch(link, { redirect: 'manual' });
    expect(verified.status).toBe(303);
    const fragment = new URLSearchParams(new URL(verified.headers.get('location') as string).hash.slice(1));
    expect(fragment.get('type')).toBe('recovery');
    const access = fragment.get('access_token') as string;
    const update = await project.call('PUT', '/user', { bearer: access, body: { password: 'recovered-1' } });
    expect(update.status).toBe(200);
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'recovered-1' } })).status).toBe(200);
  });
});

describe('POST /reset', () => {
  it('sets the password, signs out everywhere, and works once', async () => {
    const { email, sessions } = await userWithSessions();
    const link = await recoveryLink(email);
    const token = link.searchParams.get('token');
    const res = await project.call('POST', '/reset', { body: { token, password: 'new-secret-1' } });
    expect([res.status, res.body]).toEqual([200, { message: RESET_MESSAGE }]);
    for (const session of sessions) {
      const r = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token }, headers: V });
      expect([r.status, r.body.code]).toEqual([400, 'session_not_found']);
    }
    const live = await project.db.query(
      'SELECT count(*)::int AS n FROM auth.refresh_tokens t JOIN auth.users u ON u.id = t.user_id WHERE u.email = $1 AND NOT t.revoked',
      [email],
    );
    expect(live.rows[0].n).toBe(0);
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(400);
    expect((await project.call('POST', '/token?grant_type=password', { body: { email, password: 'new-secret-1' } })).status).toBe(200);

    const again = await project.call('POST', '/reset', { body: { token, password: 'third-secret' }, headers: V });
    expect([again.status, again.body]).toEqual([403, { code: 'otp_expired', message: 'Email link is invalid or has expired' }]);
  });

  it('refuses a weak password without consuming the token', async () => {
    const { email } = await userWithSessions();
    const token = (await recoveryLink(email)).searchParams.get('token');
    const weak = await project.call('POST', '/reset', { body: { token, password: '123' }, headers: V });
    expect([weak.status, weak.body.code]).toEqual([422, 'weak_password']);
    expect((await project.call('POST', '/reset', { body: { token, password: 'good-one-1' } })).status).toBe(200);
  });

  it('refuses a recovery token after one hour', async () => {
    const { email } = await userWithSessions();
    const token = (await recoveryLink(email)).searchParams.get('token');
    project.clock.advance(3601);
    try {
      const res = await project.call('POST', '/reset', { body: { token, password: 'late-secret' }, headers: V });
      expect([res.status, res.body.code]).toEqual([403, 'otp_expired']);
    } finally {
      project.clock.advance(-3601);
    }
  });

  it('does not accept a confirmation token as a recovery token', async () => {
    const confirmOn = await suite.project();
    const email = uniqueEmail('swap');
    await confirmOn.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const token = linkFrom(await suite.smtp.waitFor(email, 'Confirm')).searchParams.get('token');
    const res = await confirmOn.call('POST', '/reset', { body: { token, password: 'hijacked-1' }, headers: V });
    expect([res.status, res.body.code]).toEqual([403, 'otp_expired']);
  });
});

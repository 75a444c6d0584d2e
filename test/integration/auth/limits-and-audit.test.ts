import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

let suite: AuthSuite;

beforeAll(async () => {
  suite = await AuthSuite.open();
});
afterAll(() => suite?.close());

const V = { 'X-Supabase-Api-Version': '2024-01-01' };
const tight = { 'auth.rate_limit.otp': 3, 'auth.rate_limit.token_refresh': 4, 'auth.rate_limit.verify': 2 };

describe('rate limits', () => {
  let project: AuthProject;
  beforeAll(async () => {
    project = await suite.project({ autoconfirm: true, settings: tight });
  });

  it('answer 429 over_request_rate_limit with Retry-After per endpoint bucket, and reset after the 5-minute window', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await project.call('POST', '/signup', { body: { email: uniqueEmail('rl'), password: 'secret1' } })).status).toBe(200);
    }
    const limited = await project.call('POST', '/signup', { body: { email: uniqueEmail('rl'), password: 'secret1' }, headers: V });
    expect([limited.status, limited.body]).toEqual([429, { code: 'over_request_rate_limit', message: 'Request rate limit reached' }]);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(290);
    expect(retryAfter).toBeLessThanOrEqual(300);

    // Recover, resend and PUT /user count against the same OTP limit, each in its own bucket (as GoTrue).
    for (let i = 0; i < 3; i += 1) expect((await project.call('POST', '/recover', { body: { email: uniqueEmail() } })).status).toBe(200);
    expect((await project.call('POST', '/recover', { body: { email: uniqueEmail() } })).status).toBe(429);
    for (let i = 0; i < 3; i += 1) expect((await project.call('POST', '/resend', { body: { type: 'signup', email: uniqueEmail() } })).status).toBe(200);
    expect((await project.call('POST', '/resend', { body: { type: 'signup', email: uniqueEmail() } })).status).toBe(429);

    expect((await project.call('GET', '/verify?type=signup&token=x')).status).toBe(403);
    expect((await project.call('GET', '/verify?type=signup&token=x')).status).toBe(403);
    expect((await project.call('GET', '/verify?type=signup&token=x')).status).toBe(429);
    expect((await project.call('POST', '/reset', { body: { token: 'x', password: 'secret2' } })).status).toBe(429);

    project.clock.advance(301);
    try {
      expect((await project.call('POST', '/signup', { body: { email: uniqueEmail('rl'), password: 'secret1' } })).status).toBe(200);
    } finally {
      project.clock.advance(-301);
    }
  });

  it('limit PUT /user with the OTP limit', async () => {
    const own = await suite.project({ autoconfirm: true, settings: { 'auth.rate_limit.otp': 2 } });
    const session = (await own.call('POST', '/signup', { body: { email: uniqueEmail('rlu'), password: 'secret1' } })).body;
    const put = (): Promise<number> => own.call('PUT', '/user', { bearer: session.access_token, body: { data: { n: 1 } } }).then((r) => r.status);
    expect([await put(), await put(), await put()]).toEqual([200, 200, 429]);
  });

  it('drop counters of clients not seen for a day when a new window opens', async () => {
    const fresh = await suite.project({ settings: tight });
    await fresh.db.query(`INSERT INTO auth.rate_limits VALUES ('token', '203.0.113.9', now() - interval '2 days', 5), ('token', '203.0.113.10', now() - interval '1 hour', 5)`);
    await fresh.call('POST', '/token?grant_type=password', { body: { email: uniqueEmail(), password: 'secret1' } });
    const { rows } = await fresh.db.query(`SELECT key FROM auth.rate_limits WHERE bucket = 'token' ORDER BY key`);
    expect(rows.map((r) => r.key)).toEqual(['127.0.0.1', '203.0.113.10']);
  });

  it('are shared by several server processes on the same project', async () => {
    const first = await suite.project({ settings: tight });
    const second = await suite.mirror(first, { settings: tight });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const server = i % 2 === 0 ? first : second;
      statuses.push((await server.call('POST', '/token?grant_type=password', { body: { email: uniqueEmail(), password: 'secret1' } })).status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 429, 429]);
    const { rows } = await first.db.query(`SELECT bucket, hits FROM auth.rate_limits WHERE bucket = 'token'`);
    expect(rows).toEqual([{ bucket: 'token', hits: 6 }]);
  });
});

describe('audit log', () => {
  it('records every kind of auth event without secrets', async () => {
    const project = await suite.project();
    const email = uniqueEmail('audit');
    const signup = await project.call('POST', '/signup', { body: { email, password: 'secret1' } });
    const id = signup.body.user.id as string;
    const confirm = await fetch(linkFrom(await suite.smtp.waitFor(email)));
    const session = (await confirm.json()) as { refresh_token: string; access_token: string };
    await project.call('POST', '/token?grant_type=password', { body: { email, password: 'wrong-one' } });
    const login = await project.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const refreshed = await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: login.body.refresh_token } });
    await project.call('POST', '/token?grant_type=refresh_token', { body: { refresh_token: login.body.refresh_token } });
    await project.call('POST', '/logout', { bearer: session.access_token });
    await project.call('POST', '/recover', { body: { email } });
    const token = linkFrom(await suite.smtp.waitFor(email, 'Reset')).searchParams.get('token');
    await project.call('POST', '/reset', { body: { token, password: 'secret2' } });
    await project.call('PUT', `/admin/users/${id}`, { apikey: project.serviceKey, body: { user_metadata: { x: 1 } } });
    await project.call('DELETE', `/admin/users/${id}`, { apikey: project.serviceKey });
    expect(refreshed.status).toBe(200);

    const { rows } = await project.db.query('SELECT event, ip_address, payload::text AS payload FROM auth.audit_log_entries WHERE user_id = $1 ORDER BY id', [id]);
    expect(rows.map((r) => r.event)).toEqual([
      'user_signedup',
      'user_confirmation_requested',
      'user_confirmed',
      'login',
      'login_failed',
      'login',
      'token_refreshed',
      'token_reuse_detected',
      'logout',
      'user_recovery_requested',
      'user_updated_password',
      'user_modified',
      'user_deleted',
    ]);
    expect(new Set(rows.map((r) => r.ip_address))).toEqual(new Set(['127.0.0.1']));
    const everything = JSON.stringify(rows);
    for (const secret of ['secret1', 'secret2', 'wrong-one', login.body.refresh_token, token]) expect(everything).not.toContain(secret);
  });
});

describe('misc', () => {
  it('serves health and settings, and 404s unknown auth paths in the auth error shape', async () => {
    const project = await suite.project({ autoconfirm: true });
    const health = await project.call('GET', '/health');
    expect([health.status, health.body.name]).toEqual([200, 'GoTrue']);
    const settings = await project.call('GET', '/settings');
    expect(settings.body).toMatchObject({ external: { email: true }, mailer_autoconfirm: true, disable_signup: false });
    const missing = await project.call('GET', '/nothing-here', { headers: V });
    expect([missing.status, missing.body]).toEqual([404, { code: 'not_found', message: 'Not found' }]);
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });
});

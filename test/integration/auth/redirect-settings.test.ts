import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, followToFragment, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { linkFrom } from '../../helpers/auth/smtp-capture.js';

/** auth.site_url, auth.redirect_allow_list and auth.disable_signup, as Supabase Auth's SITE_URL, URI_ALLOW_LIST and DISABLE_SIGNUP. */

let suite: AuthSuite;
let app: AuthProject;
let closed: AuthProject;

const SITE = 'https://app.example.com';
const V = { 'X-Supabase-Api-Version': '2024-01-01' };

beforeAll(async () => {
  suite = await AuthSuite.open();
  [app, closed] = await Promise.all([
    suite.project({
      settings: { 'auth.site_url': SITE, 'auth.redirect_allow_list': ['https://*.preview.example.com/**', 'myapp://auth/callback'] },
    }),
    suite.project({ settings: { 'auth.disable_signup': true } }),
  ]);
});
afterAll(() => suite?.close());

async function signUpLink(redirectTo: string | null, headers: Record<string, string> = {}): Promise<URL> {
  const email = uniqueEmail('redir');
  const query = redirectTo === null ? '' : `?redirect_to=${encodeURIComponent(redirectTo)}`;
  const res = await app.call('POST', `/signup${query}`, { body: { email, password: 'secret1' }, headers: { ...V, ...headers } });
  expect(res.status).toBe(200);
  return linkFrom(await suite.smtp.waitFor(email));
}

describe('redirect_to against auth.site_url and auth.redirect_allow_list', () => {
  it('keeps an allowed redirect_to (site URL host, glob, exact custom scheme) in the mail link', async () => {
    for (const target of [`${SITE}/welcome?x=1`, 'https://pr-12.preview.example.com/auth/cb', 'myapp://auth/callback']) {
      expect((await signUpLink(target)).searchParams.get('redirect_to')).toBe(target);
    }
  });

  it('replaces one that is not allowed by the site URL, and uses the site URL when there is none', async () => {
    for (const target of ['https://evil.example/', 'https://a.b.preview.example.com/x', `${SITE}:8443/`, null]) {
      expect((await signUpLink(target)).searchParams.get('redirect_to')).toBe(SITE);
    }
  });

  it('falls back to an allowed Referer before the site URL, as GoTrue', async () => {
    const link = await signUpLink('https://evil.example/', { referer: `${SITE}/signup-page` });
    expect(link.searchParams.get('redirect_to')).toBe(`${SITE}/signup-page`);
  });

  it('sends the session to the site URL when the link is opened with a redirect_to that is not allowed', async () => {
    const link = await signUpLink(null);
    link.searchParams.set('redirect_to', 'https://evil.example/steal');
    const followed = await followToFragment(link);
    expect([followed.status, followed.target]).toEqual([303, `${SITE}/`]);
    expect(followed.fragment.get('type')).toBe('signup');
    expect(followed.fragment.get('access_token')).toEqual(expect.any(String));
  });

  it('never follows a redirect_to a browser reads as another host: the issue URL https://evil.example\@127.0.0.1/ lands on the site URL', async () => {
    const evil = 'https://evil.example\\@127.0.0.1/';
    const link = await signUpLink(null);
    // The exact URL of the issue, the backslash as typed (not percent-encoded).
    const opened = `${link.origin}${link.pathname}?token=${link.searchParams.get('token')}&type=signup&redirect_to=${evil}`;
    const confirmed = await fetch(opened, { redirect: 'manual' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toMatch(new RegExp(`^${SITE}#access_token=`));
    // The token is spent: the error redirect goes to the site URL too.
    const spent = await fetch(opened, { redirect: 'manual' });
    expect(spent.status).toBe(303);
    expect(spent.headers.get('location')).toBe(`${SITE}#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=`);

    expect((await signUpLink(evil)).searchParams.get('redirect_to')).toBe(SITE);
    const email = uniqueEmail('gen');
    await app.call('POST', '/admin/users', { bearer: app.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const generated = await app.call('POST', '/admin/generate_link', { bearer: app.serviceKey, body: { type: 'magiclink', email, redirect_to: evil } });
    expect(generated.status).toBe(200);
    expect(generated.body.redirect_to).toBe(SITE);
    expect(new URL(generated.body.action_link as string).searchParams.get('redirect_to')).toBe(SITE);
  });

  it('writes an allowed redirect_to as a browser reads it (scheme and host lower case), never as given', async () => {
    expect((await signUpLink('HTTPS://PR-3.Preview.Example.com/cb')).searchParams.get('redirect_to')).toBe('https://pr-3.preview.example.com/cb');
  });

  it('applies to /recover (which keeps its {message} body) and /resend', async () => {
    const email = uniqueEmail('rec');
    await app.call('POST', '/admin/users', { bearer: app.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const recover = await app.call('POST', `/recover?redirect_to=${encodeURIComponent('https://evil.example/')}`, { body: { email }, headers: V });
    expect([recover.status, Object.keys(recover.body)]).toEqual([200, ['message']]);
    expect(linkFrom(await suite.smtp.waitFor(email, 'Reset')).searchParams.get('redirect_to')).toBe(SITE);

    const pending = uniqueEmail('res');
    await app.call('POST', '/signup', { body: { email: pending, password: 'secret1' } });
    await suite.smtp.waitFor(pending);
    const target = 'https://pr-1.preview.example.com/confirmed';
    const resend = await app.call('POST', `/resend?redirect_to=${encodeURIComponent(target)}`, { body: { type: 'signup', email: pending }, headers: V });
    expect(resend.status).toBe(200);
    expect(linkFrom(await suite.smtp.waitFor(pending)).searchParams.get('redirect_to')).toBe(target);
  });
});

describe('auth.disable_signup', () => {
  it('refuses sign-ups with 422 signup_disabled, in both error shapes', async () => {
    const body = { email: uniqueEmail('closed'), password: 'secret1' };
    const versioned = await closed.call('POST', '/signup', { body, headers: V });
    expect([versioned.status, versioned.body]).toEqual([422, { code: 'signup_disabled', message: 'Signups not allowed for this instance' }]);
    const legacy = await closed.call('POST', '/signup', { body });
    expect([legacy.status, legacy.body]).toEqual([422, { code: 422, error_code: 'signup_disabled', msg: 'Signups not allowed for this instance' }]);
    expect(legacy.headers.get('x-sb-error-code')).toBe('signup_disabled');
  });

  it('still lets admins create users, who can sign in', async () => {
    const email = uniqueEmail('admin-made');
    const created = await closed.call('POST', '/admin/users', { bearer: closed.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    expect(created.status).toBe(200);
    expect((await closed.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } })).status).toBe(200);
  });
});

describe('GET /settings', () => {
  it('tells every setting as it holds', async () => {
    const open = await app.call('GET', '/settings');
    const shut = await closed.call('GET', '/settings');
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ disable_signup: false, mailer_autoconfirm: false });
    expect(shut.body).toEqual({
      external: {
        anonymous_users: false, apple: false, azure: false, bitbucket: false, discord: false, facebook: false, snapchat: false,
        figma: false, fly: false, github: false, gitlab: false, google: false, keycloak: false, kakao: false, linkedin: false,
        linkedin_oidc: false, notion: false, spotify: false, slack: false, slack_oidc: false, workos: false, twitch: false,
        twitter: false, email: true, phone: false, zoom: false,
      },
      disable_signup: true,
      mailer_autoconfirm: false,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
      saml_private_key_next_configured: false,
      passkeys_enabled: false,
      mailer_otp_exp: 3600,
      security_update_password_require_reauthentication: false,
    });
  });
});

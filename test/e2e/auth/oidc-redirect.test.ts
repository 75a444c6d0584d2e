import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveExternalProviders, sealProviderSecret } from '../../../runtime/settings/provider-settings.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { browse, OidcServer, type OidcAccount } from '../../helpers/oidc-server.js';
import { authClient } from './client.js';

/**
 * signInWithOAuth with a custom: OIDC provider, end to end: supabase-js's /authorize URL, the
 * real provider's login (oidc-provider on loopback), Gantry's /callback, the app's redirect —
 * implicit (session in the fragment) and PKCE (code exchanged by supabase-js) — and linkIdentity.
 */

const APP = 'http://127.0.0.1:9/app';
let suite: AuthSuite;
let oidc: OidcServer;
let project: AuthProject;

function account(label: string): OidcAccount {
  return { sub: `${label}-${randomUUID()}`, email: uniqueEmail(label), email_verified: true, name: `Corp ${label}` };
}

/** Opens the URL as a browser would and stops where the app is reached. */
async function toApp(url: string): Promise<URL> {
  const landed = await browse(url, (at) => at.href.startsWith(APP));
  expect(landed.url.href.startsWith(APP)).toBe(true);
  return landed.url;
}

beforeAll(async () => {
  suite = await AuthSuite.open();
  oidc = await OidcServer.start(() => [
    { client_id: 'gantry-web', client_secret: 'web-secret', redirect_uris: [`${project.authUrl}/callback`], token_endpoint_auth_method: 'client_secret_post' },
  ]);
  project = await suite.project({ allowPrivateProviderUrls: true, settings: { 'auth.redirect_allow_list': [`${APP}/**`, APP], 'auth.manual_linking': true } });
  const settings = resolveExternalProviders({
    'auth.external.custom:corp.enabled': true,
    'auth.external.custom:corp.client_id': 'gantry-web',
    'auth.external.custom:corp.secret': sealProviderSecret(project.record.jwtSecret, 'custom:corp', 'web-secret'),
    'auth.external.custom:corp.url': oidc.issuer,
  });
  project = await suite.mirror(project, {
    allowPrivateProviderUrls: true,
    settings: { 'auth.redirect_allow_list': [`${APP}/**`, APP], 'auth.manual_linking': true, 'auth.external': settings },
  });
}, 60_000);
afterAll(async () => {
  await oidc?.close();
  await suite?.close();
});

describe('signInWithOAuth through the provider', () => {
  it('implicit: the app lands with the session and the provider token in the fragment', async () => {
    const who = account('implicit');
    oidc.signInAs(who);
    const supabase = authClient(project);
    const { data, error } = await supabase.auth.signInWithOAuth({ provider: 'custom:corp', options: { redirectTo: APP, skipBrowserRedirect: true } });
    expect(error).toBeNull();
    const authorize = new URL(data.url as string);
    expect(authorize.href.startsWith(`${project.authUrl}/authorize?`)).toBe(true);

    const first = await fetch(authorize, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const atProvider = new URL(first.headers.get('location') as string);
    expect(`${atProvider.origin}${atProvider.pathname}`).toBe(`${oidc.issuer}/auth`);
    expect(Object.fromEntries(atProvider.searchParams)).toMatchObject({
      client_id: 'gantry-web',
      redirect_uri: `${project.authUrl}/callback`,
      response_type: 'code',
      scope: 'openid email profile',
      state: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    const landed = await toApp(authorize.href);
    expect(`${landed.origin}${landed.pathname}`).toBe(APP);
    const fragment = new URLSearchParams(landed.hash.slice(1));
    expect([...fragment.keys()].sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'provider_token', 'refresh_token', 'sb', 'token_type']);
    const claims = decodeJwt(fragment.get('access_token') as string);
    expect(claims).toMatchObject({ email: who.email, app_metadata: { provider: 'custom:corp', providers: ['custom:corp'] }, amr: [{ method: 'oauth', timestamp: expect.any(Number) }] });
    const { data: session } = await supabase.auth.setSession({ access_token: fragment.get('access_token') as string, refresh_token: fragment.get('refresh_token') as string });
    expect(session.user?.identities?.map((identity) => [identity.provider, identity.id])).toEqual([['custom:corp', who.sub]]);
    // The flow of the first, unfollowed redirect is left to expire; the one the browser completed is gone.
    expect((await project.db.query('SELECT 1 FROM auth.flow_state WHERE id = $1', [atProvider.searchParams.get('state')])).rowCount).toBe(1);
    expect((await project.db.query(`SELECT 1 FROM auth.flow_state WHERE provider_type = 'custom:corp' AND referrer = $1`, [APP])).rowCount).toBe(1);
  });

  it('PKCE: the app lands with ?code=, which supabase-js exchanges for a session carrying the provider token', async () => {
    const who = account('pkce');
    oidc.signInAs(who);
    const supabase = authClient(project, project.anonKey, 'pkce');
    const { data } = await supabase.auth.signInWithOAuth({ provider: 'custom:corp', options: { redirectTo: APP, skipBrowserRedirect: true } });
    expect(new URL(data.url as string).searchParams.get('code_challenge_method')).toBe('s256');
    const landed = await toApp(data.url as string);
    expect(landed.hash).toBe('');
    const code = landed.searchParams.get('code') as string;
    expect(code).toMatch(/^[0-9a-f-]{36}$/);
    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.session?.provider_token).toEqual(expect.any(String));
    expect(exchanged.data.user).toMatchObject({ email: who.email, app_metadata: { provider: 'custom:corp' } });
    const again = await project.call('POST', '/token?grant_type=pkce', { body: { auth_code: code, code_verifier: 'x'.repeat(43) } });
    expect([again.status, again.body.error_code]).toEqual([404, 'flow_state_not_found']);
  });

  it('sends a redirect_to outside the allow-list to the site URL, and a bad state back with the error', async () => {
    const bad = await fetch(`${project.authUrl}/callback?state=${randomUUID()}&code=x`, { redirect: 'manual' });
    expect(bad.status).toBe(303);
    const location = new URL(bad.headers.get('location') as string);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: 'invalid_request', error_code: 'bad_oauth_state', error_description: 'OAuth state not found or expired' });

    const who = account('elsewhere');
    oidc.signInAs(who);
    const outside = await browse(`${project.authUrl}/authorize?provider=custom:corp&redirect_to=${encodeURIComponent('https://evil.example.com/')}`, (at) =>
      at.hostname === 'evil.example.com' || at.pathname === '/',
    );
    expect(outside.url.origin).toBe(new URL(project.authUrl).origin);
    expect(new URLSearchParams(outside.url.hash.slice(1)).get('access_token')).toEqual(expect.any(String));
  });

  it("signs the owner of an address someone else registered and never confirmed into that account, and voids the registrant's password", async () => {
    const owner = account('preregistered');
    const registrant = await authClient(project).auth.signUp({ email: owner.email, password: 'attacker-pw-1' });
    expect([registrant.error, registrant.data.session]).toEqual([null, null]);
    oidc.signInAs(owner);
    const { data } = await authClient(project).auth.signInWithOAuth({ provider: 'custom:corp', options: { redirectTo: APP, skipBrowserRedirect: true } });
    const fragment = new URLSearchParams((await toApp(data.url as string)).hash.slice(1));
    expect(fragment.get('error')).toBeNull();
    expect(decodeJwt(fragment.get('access_token') as string)).toMatchObject({ sub: registrant.data.user?.id, email: owner.email, app_metadata: { providers: ['custom:corp'] } });
    const late = await authClient(project).auth.signInWithPassword({ email: owner.email, password: 'attacker-pw-1' });
    expect(late.error).toMatchObject({ status: 400, code: 'invalid_credentials' });
  });

  it('answers a provider that is not enabled as before', async () => {
    const res = await project.call('GET', '/authorize?provider=github');
    expect([res.status, res.body.msg]).toEqual([400, 'Unsupported provider: provider is not enabled']);
  });
});

describe('linkIdentity through the provider', () => {
  it('links the provider identity to the signed-in password user', async () => {
    const email = uniqueEmail('oauthlink');
    await project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const supabase = authClient(project);
    await supabase.auth.signInWithPassword({ email, password: 'secret1' });
    const who = account('oauthlinked');
    oidc.signInAs(who);
    const { data, error } = await supabase.auth.linkIdentity({ provider: 'custom:corp', options: { redirectTo: APP, skipBrowserRedirect: true } });
    expect(error).toBeNull();
    const landed = await toApp(data.url as string);
    expect(new URLSearchParams(landed.hash.slice(1)).get('access_token')).toEqual(expect.any(String));
    const identities = await supabase.auth.getUserIdentities();
    expect(identities.data?.identities.map((identity) => [identity.provider, identity.id])).toEqual([
      ['email', (await supabase.auth.getUser()).data.user?.id],
      ['custom:corp', who.sub],
    ]);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveExternalProviders, sealProviderSecret } from '../../../runtime/settings/provider-settings.js';
import { AuthSuite, decodeJwt, type AuthProject } from '../../helpers/auth/harness.js';
import { BEFORE_USER_CREATED_SQL, hookCallsFor, pgFunctionHook } from '../../helpers/pg-hook-functions.js';
import { browse } from '../../helpers/oidc-server.js';
import { OAuth2ProviderServer, type OAuth2ProviderName } from '../../helpers/oauth2-provider-server.js';
import { authClient } from './client.js';

/**
 * signInWithOAuth with the GitHub, GitLab and Discord presets, end to end: supabase-js's
 * /authorize URL, the provider (a local server answering with the providers' documented
 * shapes, reached through `auth.external.<provider>.url`), Gantry's code exchange and user-API
 * calls, and the app's landing with the session — then the rows GoTrue would have written.
 */

const APP = 'http://127.0.0.1:9/app';
const SECRETS: Readonly<Record<OAuth2ProviderName, string>> = { github: 'gh-secret', gitlab: 'gl-secret', discord: 'dc-secret' };
let suite: AuthSuite;
let providers: OAuth2ProviderServer;
let project: AuthProject;

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/oauth-providers', name), 'utf8')) as Record<string, unknown>;

/** A provider-side id no other run of the suite uses. */
function uniqueId(): number {
  return Math.floor(Math.random() * 1e9) + 1e9;
}

beforeAll(async () => {
  suite = await AuthSuite.open();
  const client = (provider: OAuth2ProviderName) => ({ clientId: `gantry-${provider}`, clientSecret: SECRETS[provider], redirectUri: () => `${project.authUrl}/callback` });
  providers = await OAuth2ProviderServer.start({ github: client('github'), gitlab: client('gitlab'), discord: client('discord') });
  project = await suite.project({ allowPrivateProviderUrls: true });
  const stored: Record<string, unknown> = {};
  for (const provider of ['github', 'gitlab', 'discord'] as const) {
    Object.assign(stored, {
      [`auth.external.${provider}.enabled`]: true,
      [`auth.external.${provider}.client_id`]: `gantry-${provider}`,
      [`auth.external.${provider}.secret`]: sealProviderSecret(project.record.jwtSecret, provider, SECRETS[provider]),
      [`auth.external.${provider}.url`]: providers.origin,
    });
  }
  await project.db.query(BEFORE_USER_CREATED_SQL);
  project = await suite.mirror(project, {
    allowPrivateProviderUrls: true,
    settings: {
      'auth.redirect_allow_list': [APP],
      'auth.external': resolveExternalProviders(stored),
      'auth.hook': pgFunctionHook('before_user_created', 'before_user_created'),
    },
  });
}, 60_000);
afterAll(async () => {
  await providers?.close();
  await suite?.close();
});

interface Landing {
  readonly authorizeQuery: Record<string, string>;
  readonly authorizeAt: string;
  readonly fragment: URLSearchParams;
}

/** supabase-js's sign-in URL followed as a browser would, until the app is reached. */
async function signIn(provider: OAuth2ProviderName): Promise<Landing> {
  const { data, error } = await authClient(project).auth.signInWithOAuth({ provider, options: { redirectTo: APP, skipBrowserRedirect: true } });
  expect(error).toBeNull();
  const first = await fetch(data.url as string, { redirect: 'manual' });
  expect(first.status).toBe(302);
  const atProvider = new URL(first.headers.get('location') as string);
  const landed = await browse(data.url as string, (at) => at.href.startsWith(APP));
  expect(`${landed.url.origin}${landed.url.pathname}`).toBe(APP);
  return {
    authorizeAt: `${atProvider.origin}${atProvider.pathname}`,
    authorizeQuery: Object.fromEntries(atProvider.searchParams),
    fragment: new URLSearchParams(landed.url.hash.slice(1)),
  };
}

async function rowsOf(provider: OAuth2ProviderName, providerId: string) {
  const { rows } = await project.db.query(
    `SELECT i.provider, i.provider_id, i.identity_data, i.email, i.user_id, u.email AS user_email, u.email_confirmed_at IS NOT NULL AS confirmed,
            u.raw_app_meta_data, u.raw_user_meta_data
       FROM auth.identities i JOIN auth.users u ON u.id = i.user_id
      WHERE i.provider = $1 AND i.provider_id = $2`,
    [provider, providerId],
  );
  return rows;
}

/** The rows of a user the provider's identity created: confirmed, the provider in app_metadata, its data as user_metadata. */
function newUserRows(provider: OAuth2ProviderName, providerId: string, email: string, identityData: Record<string, unknown>) {
  return [{
    provider,
    provider_id: providerId,
    identity_data: identityData,
    email,
    user_id: expect.any(String),
    user_email: email,
    confirmed: true,
    raw_app_meta_data: { provider, providers: [provider] },
    raw_user_meta_data: identityData,
  }];
}

/** What Gantry sent the provider in the last flow: the token request's form and the user-API calls' tokens. */
function sentTo(provider: OAuth2ProviderName) {
  const mine = providers.requests.filter((r) => r.provider === provider);
  const tokenCall = mine.filter((r) => r.method === 'POST').at(-1);
  const issued = providers.issued.get(provider);
  return { tokenCall, userCalls: mine.filter((r) => r.method === 'GET' && r.path.includes('/api/')).slice(-(provider === 'github' ? 2 : 1)), issued };
}

describe('signInWithOAuth with the OAuth 2.0 presets', () => {
  it('GitHub: authorize at /login/oauth/authorize, the code exchanged, /user and /user/emails read, a new user with the identity', async () => {
    const id = uniqueId();
    const email = `octo${id}@example.com`;
    providers.signInAs('github', [
      { ...fixture('github-user.json'), id, login: `octo${id}` },
      [
        { email: `${id}+octo@users.noreply.github.com`, primary: false, verified: true, visibility: null },
        { email, primary: true, verified: true, visibility: 'public' },
      ],
    ]);
    const landing = await signIn('github');
    expect(landing.authorizeAt).toBe(`${providers.origin}/login/oauth/authorize`);
    expect(landing.authorizeQuery).toEqual({
      client_id: 'gantry-github',
      redirect_uri: `${project.authUrl}/callback`,
      response_type: 'code',
      scope: 'user:email',
      state: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    const { tokenCall, userCalls, issued } = sentTo('github');
    expect(tokenCall?.path).toBe('/login/oauth/access_token');
    expect(tokenCall?.accept).toBe('application/json');
    expect(tokenCall?.form).toEqual({
      grant_type: 'authorization_code',
      code: expect.stringMatching(/^[0-9a-f-]{36}$/),
      redirect_uri: `${project.authUrl}/callback`,
      client_id: 'gantry-github',
      client_secret: 'gh-secret',
    });
    expect(userCalls.map((call) => [call.path, call.authorization])).toEqual([
      ['/api/v3/user', `Bearer ${issued?.accessToken}`],
      ['/api/v3/user/emails', `Bearer ${issued?.accessToken}`],
    ]);
    // GitHub's OAuth apps give no refresh token, so the fragment has none for it.
    expect([...landing.fragment.keys()].sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'provider_token', 'refresh_token', 'sb', 'token_type']);
    expect(landing.fragment.get('provider_token')).toBe(issued?.accessToken);

    const identityData = {
      iss: `${providers.origin}/api/v3`,
      sub: String(id),
      name: 'The Octocat',
      preferred_username: `octo${id}`,
      email,
      email_verified: true,
      phone_verified: false,
      avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
      full_name: 'The Octocat',
      user_name: `octo${id}`,
      provider_id: String(id),
    };
    const rows = await rowsOf('github', String(id));
    expect(rows).toEqual(newUserRows('github', String(id), email, identityData));
    expect(decodeJwt(landing.fragment.get('access_token') as string)).toMatchObject({
      sub: rows[0].user_id,
      email,
      app_metadata: { provider: 'github', providers: ['github'] },
      user_metadata: identityData,
      amr: [{ method: 'oauth', timestamp: expect.any(Number) }],
    });
  });

  it('GitHub again: the known identity signs the same user in, its data and the user metadata refreshed', async () => {
    const id = uniqueId();
    const email = `again${id}@example.com`;
    const answers = (name: string) => [{ ...fixture('github-user.json'), id, login: `again${id}`, name }, [{ email, primary: true, verified: true }]];
    providers.signInAs('github', answers('Before'));
    const first = await signIn('github');
    providers.signInAs('github', answers('After'));
    const second = await signIn('github');
    const userOf = (landing: Landing) => decodeJwt(landing.fragment.get('access_token') as string).sub;
    expect(userOf(second)).toBe(userOf(first));
    const rows = await rowsOf('github', String(id));
    expect(rows.map((row) => [row.identity_data.name, row.identity_data.full_name, row.raw_user_meta_data.name])).toEqual([['After', 'After', 'After']]);
  });

  it('GitLab: authorize at /oauth/authorize, /api/v4/user read, confirmed_at makes the address confirmed, the provider refresh token handed on', async () => {
    const id = uniqueId();
    const email = `lab${id}@example.com`;
    providers.signInAs('gitlab', [{ ...fixture('gitlab-user.json'), id, username: `lab${id}`, email }]);
    const landing = await signIn('gitlab');
    expect(landing.authorizeAt).toBe(`${providers.origin}/oauth/authorize`);
    expect(landing.authorizeQuery).toMatchObject({ client_id: 'gantry-gitlab', response_type: 'code', scope: 'read_user' });

    const { tokenCall, userCalls, issued } = sentTo('gitlab');
    expect([tokenCall?.path, tokenCall?.form.client_secret]).toEqual(['/oauth/token', 'gl-secret']);
    expect(userCalls.map((call) => [call.path, call.authorization])).toEqual([['/api/v4/user', `Bearer ${issued?.accessToken}`]]);
    expect(landing.fragment.get('provider_token')).toBe(issued?.accessToken);
    expect(landing.fragment.get('provider_refresh_token')).toBe(issued?.refreshToken);

    const identityData = {
      iss: providers.origin,
      sub: String(id),
      name: 'John Smith',
      email,
      email_verified: true,
      phone_verified: false,
      picture: 'http://localhost:3000/uploads/user/avatar/1/index.jpg',
      avatar_url: 'http://localhost:3000/uploads/user/avatar/1/index.jpg',
      full_name: 'John Smith',
      provider_id: String(id),
    };
    expect(await rowsOf('gitlab', String(id))).toEqual(newUserRows('gitlab', String(id), email, identityData));
  });

  it('GitLab: an address GitLab has not confirmed is refused as GoTrue refuses it, and no account is made', async () => {
    const id = uniqueId();
    providers.signInAs('gitlab', [{ ...fixture('gitlab-user.json'), id, email: `unconfirmed${id}@example.com`, confirmed_at: null }]);
    const { data } = await authClient(project).auth.signInWithOAuth({ provider: 'gitlab', options: { redirectTo: APP, skipBrowserRedirect: true } });
    const landed = await browse(data.url as string, (at) => at.href.startsWith(APP));
    expect(Object.fromEntries(landed.url.searchParams)).toEqual({
      error: 'access_denied',
      error_code: 'provider_email_needs_verification',
      error_description: 'Unverified email with gitlab. Verify the email with gitlab in order to sign in',
    });
    // GoTrue repeats the error in the fragment (with its `sb` marker) for implicit-flow clients.
    expect(Object.fromEntries(new URLSearchParams(landed.url.hash.slice(1)))).toEqual({ ...Object.fromEntries(landed.url.searchParams), sb: '' });
    expect(await rowsOf('gitlab', String(id))).toEqual([]);
    const { rows } = await project.db.query('SELECT 1 FROM auth.users WHERE email = $1', [`unconfirmed${id}@example.com`]);
    expect(rows).toEqual([]);
  });

  it('Discord: authorize at /api/oauth2/authorize, /api/users/@me read, name#discriminator and the global name as GoTrue keeps them', async () => {
    const id = String(uniqueId());
    const email = `nelly${id}@example.com`;
    providers.signInAs('discord', [{ ...fixture('discord-user.json'), id, email }]);
    const landing = await signIn('discord');
    expect(landing.authorizeAt).toBe(`${providers.origin}/api/oauth2/authorize`);
    expect(landing.authorizeQuery).toMatchObject({ client_id: 'gantry-discord', response_type: 'code', scope: 'email identify' });

    const { tokenCall, userCalls, issued } = sentTo('discord');
    expect([tokenCall?.path, tokenCall?.form.client_secret, tokenCall?.form.redirect_uri]).toEqual(['/api/oauth2/token', 'dc-secret', `${project.authUrl}/callback`]);
    expect(userCalls.map((call) => [call.path, call.authorization])).toEqual([['/api/users/@me', `Bearer ${issued?.accessToken}`]]);
    expect(landing.fragment.get('provider_token')).toBe(issued?.accessToken);
    expect(landing.fragment.get('provider_refresh_token')).toBe(issued?.refreshToken);

    const avatar = `https://cdn.discordapp.com/avatars/${id}/8342729096ea3675442027381ff50dfe.png`;
    const identityData = {
      iss: `${providers.origin}/api`,
      sub: id,
      name: 'nelly#0',
      email,
      email_verified: true,
      phone_verified: false,
      picture: avatar,
      custom_claims: { global_name: 'Nelly' },
      avatar_url: avatar,
      full_name: 'nelly',
      provider_id: id,
    };
    expect(await rowsOf('discord', id)).toEqual(newUserRows('discord', id, email, identityData));
  });
});

describe('the before_user_created hook', () => {
  it('is asked before a provider sign-in makes a new user, with that user; not when the identity signs in again', async () => {
    const id = uniqueId();
    const email = `hooked${id}@example.com`;
    providers.signInAs('gitlab', [{ ...fixture('gitlab-user.json'), id, email }]);
    await signIn('gitlab');
    const calls = await hookCallsFor(project, email);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      metadata: { name: 'before-user-created' },
      user: { email, app_metadata: { provider: 'gitlab', providers: ['gitlab'] }, user_metadata: { sub: String(id), email }, is_anonymous: false },
    });
    await signIn('gitlab');
    expect(await hookCallsFor(project, email)).toHaveLength(1);
  });

  it("refuses the sign-in with the hook's error, back at the app, and makes no user", async () => {
    const id = uniqueId();
    const email = `someone${id}@blocked.example.org`;
    providers.signInAs('discord', [{ ...fixture('discord-user.json'), id: String(id), email }]);
    const { data } = await authClient(project).auth.signInWithOAuth({ provider: 'discord', options: { redirectTo: APP, skipBrowserRedirect: true } });
    const landed = await browse(data.url as string, (at) => at.href.startsWith(APP));
    expect(Object.fromEntries(landed.url.searchParams)).toEqual({
      error: 'access_denied',
      error_code: 'unknown',
      error_description: 'Sign-ups from this domain are not allowed',
    });
    expect(await rowsOf('discord', String(id))).toEqual([]);
    expect(await hookCallsFor(project, email)).toHaveLength(1);
  });
});

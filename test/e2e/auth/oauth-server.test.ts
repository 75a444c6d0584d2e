import { createHash, createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';

/**
 * The project as an OAuth 2.1 server, end to end over HTTP: a third-party client registered with
 * supabase-js's admin API, a user consenting through auth-js's `auth.oauth` on the consent page,
 * the code exchanged with PKCE at `/oauth/token`, the token read by an RLS policy through
 * `/rest/v1` (its `client_id` claim), refreshed, and the grant withdrawn.
 */

const schema = `
CREATE TABLE public.notes (id int PRIMARY KEY, audience text NOT NULL, body text NOT NULL);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY by_client ON public.notes FOR SELECT TO authenticated USING (audience = coalesce(auth.jwt() ->> 'client_id', 'first-party'));
GRANT SELECT ON public.notes TO authenticated;
`;

const SITE = 'https://app.example.com';
const CALLBACK = 'https://partner.example.org/callback';

let host: TestHost;
let project: TestProject;
let clientId: string;
let clientSecret: string;

function supabase(key = project.keys.anon_key): SupabaseClient {
  return createClient(project.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

async function verifiedWithJwks(token: string): Promise<boolean> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const { kid, alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { kid: string; alg: string };
  const jwks = (await (await fetch(`${project.url}/auth/v1/.well-known/jwks.json`)).json()) as { keys: (JsonWebKey & { kid: string })[] };
  const jwk = jwks.keys.find((key) => key.kid === kid);
  if (jwk === undefined || alg !== 'ES256') return false;
  return verify('sha256', Buffer.from(`${header}.${payload}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The browser's first step: the client sends it to /oauth/authorize, which redirects to the consent page. */
async function authorize(params: Record<string, string>): Promise<Response> {
  const query = new URLSearchParams({ client_id: clientId, redirect_uri: CALLBACK, response_type: 'code', ...params });
  return fetch(`${project.url}/auth/v1/oauth/authorize?${query}`, { redirect: 'manual' });
}

async function authorizationIdOf(params: Record<string, string>): Promise<string> {
  const res = await authorize(params);
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(`${SITE}/oauth/consent`);
  return location.searchParams.get('authorization_id')!;
}

/** The client's back end at the token endpoint, form-encoded with HTTP Basic as RFC 6749 has it. */
async function tokenRequest(form: Record<string, string>, secret = clientSecret): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${project.url}/auth/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function notesWith(accessToken: string): Promise<unknown> {
  const res = await fetch(`${project.url}/rest/v1/notes?select=id,body&order=id`, {
    headers: { apikey: project.keys.anon_key, authorization: `Bearer ${accessToken}` },
  });
  expect(res.status).toBe(200);
  return res.json();
}

async function signedInUser(): Promise<{ client: SupabaseClient; id: string; email: string; accessToken: string }> {
  const client = createClient(project.url, project.keys.anon_key, {
    auth: { persistSession: true, autoRefreshToken: false, detectSessionInUrl: false, storage: memoryStorage() },
    realtime: { transport: WebSocket as never },
  });
  const email = uniqueEmail('oauth-user');
  const { data, error } = await client.auth.signUp({ email, password: 'secret-pw-1' });
  expect(error).toBeNull();
  return { client, id: data.user!.id, email, accessToken: data.session!.access_token };
}

function memoryStorage(): { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void } {
  const items = new Map<string, string>();
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value), removeItem: (key) => void items.delete(key) };
}

/** A code the user approved at the consent API, for a request with this PKCE challenge. */
async function approvedCode(user: { client: SupabaseClient }, challenge: string): Promise<string> {
  const authorizationId = await authorizationIdOf({ scope: 'email', code_challenge: challenge, code_challenge_method: 'S256' });
  const details = await user.client.auth.oauth.getAuthorizationDetails(authorizationId);
  if (details.data !== null && 'redirect_url' in details.data) return new URL(details.data.redirect_url).searchParams.get('code')!;
  const approved = await user.client.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
  expect(approved.error).toBeNull();
  return new URL(approved.data!.redirect_url).searchParams.get('code')!;
}

/** What GET /user answers for an access token: its status and the user's id or the error code. */
async function userWith(accessToken: string): Promise<[number, unknown]> {
  const res = await fetch(`${project.url}/auth/v1/user`, { headers: { apikey: project.keys.anon_key, authorization: `Bearer ${accessToken}` } });
  const body = (await res.json()) as Record<string, unknown>;
  return [res.status, body.id ?? body.error_code];
}

async function storedCodeHash(authorizationId: string): Promise<unknown> {
  const db = new pg.Client(host.platform.cluster.urlFor(project.record.databaseName));
  await db.connect();
  try {
    const { rows } = await db.query('SELECT authorization_code_hash FROM auth.oauth_authorizations WHERE authorization_id = $1', [authorizationId]);
    return rows[0]?.authorization_code_hash;
  } finally {
    await db.end();
  }
}

beforeAll(async () => {
  host = await startTestHost();
  // An asymmetric signing key, as ID tokens need (GoTrue signs none with the shared secret).
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true, signingAlg: 'ES256' });
  await host.platform.setSettings(project.record.ref, {
    'auth.site_url': SITE,
    'auth.oauth_server.enabled': true,
    'auth.oauth_server.authorization_path': '/oauth/consent',
  });
  await host.host.directory.reload(project.record.ref);
  const { data, error } = await supabase(project.keys.service_key).auth.admin.oauth.createClient({ client_name: 'Partner app', redirect_uris: [CALLBACK] });
  expect(error).toBeNull();
  clientId = data!.client_id;
  clientSecret = data!.client_secret!;
  const inserted = await supabase(project.keys.service_key).from('notes').insert([
    { id: 1, audience: clientId, body: 'for the partner app' },
    { id: 2, audience: 'first-party', body: 'for our own app' },
  ]);
  expect(inserted.error).toBeNull();
});
afterAll(() => host?.close());

describe('the OAuth 2.1 authorization code flow with PKCE', () => {
  it('consent, code exchange, a token RLS sees as the client, refresh, and a withdrawn grant', async () => {
    const user = await signedInUser();
    const { verifier, challenge } = pkcePair();
    const authorizationId = await authorizationIdOf({ scope: 'openid email', state: 'st-42', nonce: 'n-42', code_challenge: challenge, code_challenge_method: 'S256' });

    const details = await user.client.auth.oauth.getAuthorizationDetails(authorizationId);
    expect(details).toEqual({
      data: {
        authorization_id: authorizationId,
        redirect_uri: CALLBACK,
        client: { id: clientId, name: 'Partner app' },
        user: { id: user.id, email: user.email },
        scope: 'openid email',
      },
      error: null,
    });
    const approved = await user.client.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
    expect(approved.error).toBeNull();
    const redirect = new URL(approved.data!.redirect_url);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(CALLBACK);
    expect(redirect.searchParams.get('state')).toBe('st-42');
    const code = redirect.searchParams.get('code')!;
    // Stored only as its hash.
    expect(await storedCodeHash(authorizationId)).toBe(createHash('sha256').update(code).digest('hex'));

    const wrongVerifier = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: pkcePair().verifier });
    expect(wrongVerifier).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'PKCE verification failed: code challenge does not match previously saved code verifier' },
    });
    const wrongSecret = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier }, 'not-the-secret');
    expect(wrongSecret).toEqual({ status: 400, body: { code: 400, error_code: 'invalid_credentials', msg: 'invalid client credentials' } });

    const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier });
    expect(exchanged.status).toBe(200);
    expect(Object.keys(exchanged.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'token_type']);
    // The openid scope brings an ID token, signed with the key the JWKS publishes.
    const idToken = exchanged.body.id_token as string;
    expect(await verifiedWithJwks(idToken)).toBe(true);
    expect(claimsOf(idToken)).toEqual({
      iss: `${project.url}/auth/v1`,
      sub: user.id,
      aud: [clientId],
      exp: expect.any(Number),
      iat: expect.any(Number),
      nonce: 'n-42',
      auth_time: expect.any(Number),
      email: user.email,
      email_verified: true,
      phone_number_verified: false,
      client_id: clientId,
    });
    expect(exchanged.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    const accessToken = exchanged.body.access_token as string;
    expect(claimsOf(accessToken)).toMatchObject({
      sub: user.id,
      role: 'authenticated',
      client_id: clientId,
      scope: 'openid email',
      amr: [{ method: 'oauth_provider/authorization_code', timestamp: expect.any(Number) }],
    });
    // The RLS policy tells the client's token from the user's own session by the client_id claim.
    expect(await notesWith(accessToken)).toEqual([{ id: 1, body: 'for the partner app' }]);
    expect(await notesWith(user.accessToken)).toEqual([{ id: 2, body: 'for our own app' }]);
    const userinfo = await fetch(`${project.url}/auth/v1/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect([userinfo.status, await userinfo.json()]).toEqual([200, { sub: user.id, email: user.email, email_verified: true }]);

    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.access_token as string)).toMatchObject({ sub: user.id, client_id: clientId, scope: 'openid email' });
    const latestRefresh = refreshed.body.refresh_token as string;
    // The project's own /token does not refresh a session a client holds, as GoTrue.
    const firstParty = await supabase().auth.refreshSession({ refresh_token: latestRefresh });
    expect(firstParty.error?.status).toBe(400);

    const grants = await user.client.auth.oauth.listGrants();
    expect(grants).toEqual({ data: [{ client: { id: clientId, name: 'Partner app' }, scopes: ['openid', 'email'], granted_at: expect.any(String) }], error: null });

    // A request within the scopes consented to is approved at once.
    const secondId = await authorizationIdOf({ scope: 'email', code_challenge: challenge, code_challenge_method: 'S256' });
    const auto = await user.client.auth.oauth.getAuthorizationDetails(secondId);
    expect(auto.data).toEqual({ redirect_url: expect.stringMatching(/^https:\/\/partner\.example\.org\/callback\?code=[A-Za-z0-9_-]{43}$/) });

    const revoked = await user.client.auth.oauth.revokeGrant({ clientId });
    expect(revoked).toEqual({ data: {}, error: null });
    expect((await user.client.auth.oauth.listGrants()).data).toEqual([]);
    const afterRevoke = await tokenRequest({ grant_type: 'refresh_token', refresh_token: latestRefresh });
    expect(afterRevoke).toEqual({ status: 400, body: { code: 400, error_code: 'session_not_found', msg: 'Invalid Refresh Token: No Valid Session Found' } });

    // With the grant withdrawn the user is asked again, and may deny.
    const thirdId = await authorizationIdOf({ scope: 'email', state: 'st-43', code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await user.client.auth.oauth.getAuthorizationDetails(thirdId)).data).toMatchObject({ authorization_id: thirdId, scope: 'email' });
    const denied = await user.client.auth.oauth.denyAuthorization(thirdId, { skipBrowserRedirect: true });
    expect(denied.data).toEqual({ redirect_url: `${CALLBACK}?error=access_denied&error_description=User+denied+the+request&state=st-43` });
    const deniedAgain = await user.client.auth.oauth.denyAuthorization(thirdId, { skipBrowserRedirect: true });
    expect(deniedAgain.error).toMatchObject({ status: 400, code: 'validation_failed', message: 'authorization request is no longer pending' });
  });

  it('a code presented again is refused and revokes every token its first exchange issued (OAuth 2.1 §4.1.2, RFC 6749 §10.5)', async () => {
    const user = await signedInUser();
    const { verifier, challenge } = pkcePair();
    const code = await approvedCode(user, challenge);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier };
    const first = await tokenRequest(exchange);
    expect(first.status).toBe(200);
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(await userWith(first.body.access_token as string)).toEqual([200, user.id]);

    const replayed = await tokenRequest(exchange);
    expect(replayed).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid authorization code' } });
    const gone = { status: 400, body: { code: 400, error_code: 'session_not_found', msg: 'Invalid Refresh Token: No Valid Session Found' } };
    for (const accessToken of [first.body.access_token, refreshed.body.access_token] as string[]) expect(await userWith(accessToken)).toEqual([403, 'session_not_found']);
    expect(await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token as string })).toEqual(gone);
    expect(await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string })).toEqual(gone);
    // Still refused when presented a third time; the user's own session is not the code's and stays.
    expect(await tokenRequest(exchange)).toEqual(replayed);
    expect(await userWith(user.accessToken)).toEqual([200, user.id]);
    // A fresh code of the same user and client is not touched by the replay of another.
    const next = pkcePair();
    const other = await tokenRequest({ grant_type: 'authorization_code', code: await approvedCode(user, next.challenge), code_verifier: next.verifier });
    expect(other.status).toBe(200);
    expect(await tokenRequest(exchange)).toEqual(replayed);
    expect(await userWith(other.body.access_token as string)).toEqual([200, user.id]);
  });

  it('a wrong code_verifier leaves the code unspent, so the right one still exchanges it, as GoTrue', async () => {
    const user = await signedInUser();
    const { verifier, challenge } = pkcePair();
    const code = await approvedCode(user, challenge);
    const wrong = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: pkcePair().verifier });
    expect(wrong).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'PKCE verification failed: code challenge does not match previously saved code verifier' } });
    const missing = await tokenRequest({ grant_type: 'authorization_code', code });
    expect(missing.body).toEqual({ error: 'invalid_grant', error_description: 'PKCE verification failed: code_verifier is required when PKCE challenge is present' });
    const right = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier });
    expect(right.status).toBe(200);
    expect(await userWith(right.body.access_token as string)).toEqual([200, user.id]);
  });

  it("refuses what GoTrue refuses at /oauth/authorize: an unregistered redirect URI in JSON, the rest on the client's redirect URI", async () => {
    const foreign = await authorize({ redirect_uri: 'https://evil.example.net/cb', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
    expect([foreign.status, await foreign.json()]).toEqual([400, { code: 400, error_code: 'validation_failed', msg: 'invalid redirect_uri' }]);
    const unknown = await fetch(`${project.url}/auth/v1/oauth/authorize?client_id=00000000-0000-0000-0000-000000000000&redirect_uri=${CALLBACK}`, { redirect: 'manual' });
    expect([unknown.status, await unknown.json()]).toEqual([400, { code: 400, error_code: 'oauth_client_not_found', msg: 'invalid client_id' }]);
    const noPkce = await authorize({ state: 's1' });
    expect([noPkce.status, noPkce.headers.get('location')]).toEqual([
      302,
      `${CALLBACK}?error=invalid_request&error_description=PKCE+flow+requires+both+code_challenge+and+code_challenge_method&state=s1`,
    ]);
    const badScope = await authorize({ scope: 'email admin', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
    expect(badScope.headers.get('location')).toBe(`${CALLBACK}?error=invalid_request&error_description=unsupported+scope%3A+admin`);
  });

  it('answers the consent API only for the user the request was shown to, and only from an allowed origin', async () => {
    const owner = await signedInUser();
    const other = await signedInUser();
    const id = await authorizationIdOf({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
    expect((await owner.client.auth.oauth.getAuthorizationDetails(id)).error).toBeNull();
    const stranger = await other.client.auth.oauth.approveAuthorization(id, { skipBrowserRedirect: true });
    expect(stranger.error).toMatchObject({ status: 404, code: 'oauth_authorization_not_found', message: 'authorization not found' });
    const crossSite = await fetch(`${project.url}/auth/v1/oauth/authorizations/${id}/consent`, {
      method: 'POST',
      headers: { apikey: project.keys.anon_key, authorization: `Bearer ${owner.accessToken}`, origin: 'https://evil.example.net', 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'approve' }),
    });
    expect([crossSite.status, await crossSite.json()]).toEqual([400, { code: 400, error_code: 'validation_failed', msg: 'unauthorized request origin' }]);
  });

  it('a public client of a project signing with its shared secret gets no ID token: 500 as GoTrue, and the code stays unspent', async () => {
    const hs = await createTestProject(host.platform, { host: host.host, autoconfirm: true });
    await host.platform.setSettings(hs.record.ref, { 'auth.site_url': SITE, 'auth.oauth_server.enabled': true, 'auth.oauth_server.authorization_path': '/consent' });
    await host.host.directory.reload(hs.record.ref);
    const admin = createClient(hs.url, hs.keys.service_key, { auth: { persistSession: false }, realtime: { transport: WebSocket as never } });
    const registered = await admin.auth.admin.oauth.createClient({ client_name: 'CLI tool', redirect_uris: ['http://127.0.0.1:8765/cb'], token_endpoint_auth_method: 'none' });
    expect(registered.data).toMatchObject({ client_type: 'public', token_endpoint_auth_method: 'none' });
    expect(registered.data).not.toHaveProperty('client_secret');
    const publicId = registered.data!.client_id;
    const userClient = createClient(hs.url, hs.keys.anon_key, { auth: { persistSession: true, storage: memoryStorage() }, realtime: { transport: WebSocket as never } });
    expect((await userClient.auth.signUp({ email: uniqueEmail('oauth-hs'), password: 'secret-pw-1' })).error).toBeNull();
    const { verifier, challenge } = pkcePair();
    const query = new URLSearchParams({ client_id: publicId, redirect_uri: 'http://127.0.0.1:8765/cb', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' });
    const started = await fetch(`${hs.url}/auth/v1/oauth/authorize?${query}`, { redirect: 'manual' });
    const id = new URL(started.headers.get('location')!).searchParams.get('authorization_id')!;
    expect((await userClient.auth.oauth.getAuthorizationDetails(id)).error).toBeNull();
    const approved = await userClient.auth.oauth.approveAuthorization(id, { skipBrowserRedirect: true });
    const code = new URL(approved.data!.redirect_url).searchParams.get('code')!;
    const exchange = async () => {
      const res = await fetch(`${hs.url}/auth/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'authorization_code', client_id: publicId, code, code_verifier: verifier }),
      });
      return [res.status, await res.json()];
    };
    expect(await exchange()).toEqual([500, { code: 500, error_code: 'unexpected_failure', msg: 'Error generating ID token' }]);
    expect(await exchange()).toEqual([500, { code: 500, error_code: 'unexpected_failure', msg: 'Error generating ID token' }]);
  });

  it('publishes its metadata (RFC 8414) at the well-known addresses', async () => {
    const issuer = `${project.url}/auth/v1`;
    for (const name of ['oauth-authorization-server', 'openid-configuration']) {
      const res = await fetch(`${project.url}/auth/v1/.well-known/${name}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        userinfo_endpoint: `${issuer}/oauth/userinfo`,
        scopes_supported: ['openid', 'profile', 'email', 'phone', 'offline_access'],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        subject_types_supported: ['public'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        code_challenge_methods_supported: ['S256', 'plain'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
        claims_supported: ['sub', 'aud', 'iss', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'phone_number', 'phone_number_verified', 'name', 'picture', 'preferred_username', 'updated_at'],
      });
    }
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it('lets apps register themselves without a key when the project allows it, 10 per 5 minutes and client IP as GoTrue', async () => {
    await host.platform.setSettings(project.record.ref, { 'auth.oauth_server.allow_dynamic_registration': true });
    await host.host.directory.reload(project.record.ref);
    const metadata = (await (await fetch(`${project.url}/auth/v1/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.registration_endpoint).toBe(`${project.url}/auth/v1/oauth/clients/register`);
    const register = () =>
      fetch(`${project.url}/auth/v1/oauth/clients/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'MCP client', redirect_uris: ['http://localhost:33418/callback'], token_endpoint_auth_method: 'none' }),
      });
    for (let i = 0; i < 10; i += 1) {
      const res = await register();
      expect(res.status).toBe(201);
      const created = (await res.json()) as Record<string, unknown>;
      expect(created).toMatchObject({ client_type: 'public', token_endpoint_auth_method: 'none', registration_type: 'dynamic', client_name: 'MCP client' });
      expect(created).not.toHaveProperty('client_secret');
    }
    const limited = await register();
    expect([limited.status, await limited.json()]).toEqual([429, { code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' }]);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

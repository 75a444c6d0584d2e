import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveExternalProviders } from '../../../runtime/settings/provider-settings.js';
import { AuthSuite, decodeJwt, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { BEFORE_USER_CREATED_SQL, hookCallsFor, pgFunctionHook } from '../../helpers/pg-hook-functions.js';
import { browse, OidcServer, type OidcAccount } from '../../helpers/oidc-server.js';
import { codeFrom } from '../../helpers/auth/smtp-capture.js';
import { authClient } from './client.js';

/** signInWithIdToken, linkIdentity, getUserIdentities and unlinkIdentity against a real OIDC provider on loopback. */

const APP_CALLBACK = 'http://127.0.0.1:9/app-callback';
let suite: AuthSuite;
let oidc: OidcServer;
let project: AuthProject;

function account(label: string): OidcAccount {
  return { sub: `${label}-${randomUUID()}`, email: uniqueEmail(label), email_verified: true, name: `Corp ${label}` };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What a mobile app does: logs in at the provider with its own client, takes the ID token from the code exchange. */
async function idTokenOf(who: OidcAccount, nonce?: string): Promise<string> {
  oidc.signInAs(who);
  const authorize = new URL(`${oidc.issuer}/auth`);
  authorize.search = new URLSearchParams({
    client_id: 'mobile-app',
    response_type: 'code',
    scope: 'openid email profile',
    redirect_uri: APP_CALLBACK,
    ...(nonce === undefined ? {} : { nonce: sha256(nonce) }),
  }).toString();
  const landed = await browse(authorize.href, (url) => url.href.startsWith(APP_CALLBACK));
  const code = landed.url.searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  const res = await fetch(`${oidc.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code as string, redirect_uri: APP_CALLBACK, client_id: 'mobile-app', client_secret: 'mobile-secret' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

function providerSettings(issuer: string, clientIds: string) {
  return resolveExternalProviders({
    'auth.external.custom:corp.enabled': true,
    'auth.external.custom:corp.client_id': clientIds,
    'auth.external.custom:corp.url': issuer,
  });
}

beforeAll(async () => {
  suite = await AuthSuite.open();
  oidc = await OidcServer.start(() => [
    { client_id: 'mobile-app', client_secret: 'mobile-secret', redirect_uris: [APP_CALLBACK], token_endpoint_auth_method: 'client_secret_post' },
  ]);
  project = await suite.project({
    allowPrivateProviderUrls: true,
    settings: { 'auth.external': providerSettings(oidc.issuer, 'gantry-web,mobile-app'), 'auth.manual_linking': true },
  });
}, 60_000);
afterAll(async () => {
  await oidc?.close();
  await suite?.close();
});

describe('signInWithIdToken with a custom: OIDC provider', () => {
  it('creates the user from the verified token, with its identity, and signs the same subject in again', async () => {
    const who = account('idt');
    const supabase = authClient(project);
    const nonce = randomUUID();
    const { data, error } = await supabase.auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(who, nonce), nonce });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email: who.email,
      email_confirmed_at: expect.any(String),
      app_metadata: { provider: 'custom:corp', providers: ['custom:corp'] },
      user_metadata: { sub: who.sub, email: who.email, email_verified: true, name: who.name, full_name: who.name, iss: oidc.issuer, provider_id: who.sub },
    });
    expect(data.user?.identities).toEqual([
      expect.objectContaining({ id: who.sub, provider: 'custom:corp', user_id: data.user?.id, email: who.email.toLowerCase(), identity_id: expect.any(String) }),
    ]);
    expect(decodeJwt(data.session?.access_token as string).amr).toEqual([{ method: 'oauth', timestamp: expect.any(Number) }]);

    const again = await authClient(project).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(who) });
    expect(again.error).toBeNull();
    expect(again.data.user?.id).toBe(data.user?.id);
    const { rows } = await project.db.query('SELECT provider, provider_id, user_id FROM auth.identities WHERE user_id = $1', [data.user?.id]);
    expect(rows).toEqual([{ provider: 'custom:corp', provider_id: who.sub, user_id: data.user?.id }]);
  });

  it('refuses a wrong nonce, a missing one, a forged signature and an audience it does not know', async () => {
    const who = account('refused');
    const supabase = authClient(project);
    const wrong = await supabase.auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(who, 'right'), nonce: 'wrong' });
    expect(wrong.error).toMatchObject({ status: 400, code: 'validation_failed', message: 'Nonces mismatch' });
    const missing = await supabase.auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(who, 'right') });
    expect(missing.error).toMatchObject({ status: 400, message: 'Passed nonce and nonce in id_token should either both exist or not.' });
    const token = await idTokenOf(who);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, email: 'admin@example.com' })).toString('base64url')}.${signature}`;
    const bad = await supabase.auth.signInWithIdToken({ provider: 'custom:corp', token: forged });
    expect(bad.error).toMatchObject({ status: 400, message: 'Bad ID token' });

    const strict = await suite.project({ allowPrivateProviderUrls: true, settings: { 'auth.external': providerSettings(oidc.issuer, 'gantry-web') } });
    const audience = await strict.call('POST', '/token?grant_type=id_token', { body: { provider: 'custom:corp', id_token: token } });
    expect(audience.status).toBe(400);
    expect(audience.body).toMatchObject({ msg: 'Unacceptable audience in id_token: [mobile-app]' });
    expect((await project.db.query('SELECT 1 FROM auth.users WHERE email = $1', [who.email])).rowCount).toBe(0);
  });

  it('refuses a token signed with the provider key that lacks exp or iat, signing no one in and creating no one', async () => {
    const who = account('noexp');
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: oidc.issuer, sub: who.sub, aud: 'mobile-app', iat: now, exp: now + 600, email: who.email, email_verified: true };
    const grant = async (signed: Record<string, unknown>) => {
      const res = await project.call('POST', '/token?grant_type=id_token', { body: { provider: 'custom:corp', id_token: await oidc.signIdToken(signed) } });
      return [res.status, res.body.error_code, res.body.msg];
    };
    const { exp: _exp, ...noExp } = claims;
    const { iat: _iat, ...noIat } = claims;
    expect(await grant(noExp)).toEqual([400, 'validation_failed', 'Bad ID token']);
    expect(await grant(noIat)).toEqual([400, 'validation_failed', 'Bad ID token']);
    expect(await grant({ ...claims, exp: String(claims.exp) })).toEqual([400, 'validation_failed', 'Bad ID token']);
    expect((await project.db.query('SELECT 1 FROM auth.users WHERE email = $1', [who.email])).rowCount).toBe(0);
    expect((await project.db.query('SELECT 1 FROM auth.identities WHERE provider_id = $1', [who.sub])).rowCount).toBe(0);
    // The same claims with both times sign in: the key and the rest of the token were never the problem.
    expect((await grant(claims))[0]).toBe(200);
  });

  it('does not reach a provider on loopback unless the host allows it', async () => {
    const guarded = await suite.project({ settings: { 'auth.external': providerSettings(oidc.issuer, 'mobile-app') } });
    const res = await guarded.call('POST', '/token?grant_type=id_token', { body: { provider: 'custom:corp', id_token: await idTokenOf(account('ssrf')) } });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error_code: 'unexpected_failure' });
    expect(res.body.msg).toContain('provider URL refused');
  });

  it('names a custom provider that is not configured, or off, as GoTrue does', async () => {
    const off = await suite.project({
      settings: { 'auth.external': resolveExternalProviders({ 'auth.external.custom:corp.enabled': false, 'auth.external.custom:corp.url': oidc.issuer }) },
    });
    const disabled = await off.call('POST', '/token?grant_type=id_token', { body: { provider: 'custom:corp', id_token: 'x.y.z' } });
    expect([disabled.status, disabled.body.error_code, disabled.body.msg]).toEqual([400, 'provider_disabled', 'Custom provider "custom:corp" is disabled']);
    const unknown = await off.call('POST', '/token?grant_type=id_token', { body: { provider: 'custom:other', id_token: 'x.y.z' } });
    expect([unknown.status, unknown.body.error_code, unknown.body.msg]).toEqual([400, 'validation_failed', 'Custom provider "custom:other" not found']);
  });
});

describe('linking and unlinking identities', () => {
  it('links the provider identity to a password user, lists both, unlinks one and refuses the last', async () => {
    const email = uniqueEmail('linker');
    await project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const supabase = authClient(project);
    expect((await supabase.auth.signInWithPassword({ email, password: 'secret1' })).error).toBeNull();
    const who = account('linked');
    const linked = await supabase.auth.linkIdentity({ provider: 'custom:corp', token: await idTokenOf(who) });
    expect(linked.error).toBeNull();
    expect(linked.data.user?.app_metadata.providers).toEqual(['email', 'custom:corp']);

    const listed = await supabase.auth.getUserIdentities();
    expect(listed.error).toBeNull();
    expect(listed.data?.identities.map((identity) => [identity.provider, identity.id])).toEqual([
      ['email', linked.data.user?.id],
      ['custom:corp', who.sub],
    ]);
    const again = await authClient(project).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(who) });
    expect(again.data.user?.id).toBe(linked.data.user?.id);

    const corp = listed.data?.identities.find((identity) => identity.provider === 'custom:corp');
    const unlinked = await supabase.auth.unlinkIdentity(corp!);
    expect(unlinked.error).toBeNull();
    expect((await project.db.query('SELECT 1 FROM auth.identities WHERE provider_id = $1', [who.sub])).rowCount).toBe(0);
    const { rows } = await project.db.query(`SELECT raw_app_meta_data -> 'providers' AS providers FROM auth.users WHERE email = $1`, [email]);
    expect(rows).toEqual([{ providers: ['email'] }]);

    const emailIdentity = (await supabase.auth.getUserIdentities()).data?.identities[0];
    const last = await supabase.auth.unlinkIdentity(emailIdentity!);
    expect(last.error).toMatchObject({ status: 422, code: 'single_identity_not_deletable', message: 'User must have at least 1 identity after unlinking' });
  });

  it('refuses an identity that belongs to another user', async () => {
    const who = account('taken');
    expect((await authClient(project).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(who) })).error).toBeNull();
    const other = authClient(project);
    const email = uniqueEmail('other');
    await project.call('POST', '/admin/users', { apikey: project.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    await other.auth.signInWithPassword({ email, password: 'secret1' });
    const refused = await other.auth.linkIdentity({ provider: 'custom:corp', token: await idTokenOf(who) });
    expect(refused.error).toMatchObject({ status: 422, code: 'identity_already_exists', message: 'Identity is already linked to another user' });
  });

  it('answers manual_linking_disabled while auth.manual_linking is off', async () => {
    const off = await suite.project({ allowPrivateProviderUrls: true });
    const email = uniqueEmail('nolink');
    await off.call('POST', '/admin/users', { apikey: off.serviceKey, body: { email, password: 'secret1', email_confirm: true } });
    const session = await off.call('POST', '/token?grant_type=password', { body: { email, password: 'secret1' } });
    const res = await off.call('DELETE', `/user/identities/${session.body.user.id}`, { bearer: session.body.access_token });
    expect([res.status, res.body.error_code]).toEqual([404, 'manual_linking_disabled']);
  });
});

describe('an address someone else signed up with and never confirmed', () => {
  it("lets its owner in through a provider that verified it, as GoTrue: the account is confirmed, the registrant's password, data and mail links are void", async () => {
    const victim = account('owner');
    const attacker = authClient(project);
    const signedUp = await attacker.auth.signUp({ email: victim.email, password: 'attacker-pw-1', options: { data: { name: 'Attacker', plan: 'evil' } } });
    expect([signedUp.error, signedUp.data.session, signedUp.data.user?.email_confirmed_at]).toEqual([null, null, undefined]);
    const accountId = signedUp.data.user?.id;
    const confirmation = codeFrom(await suite.smtp.waitFor(victim.email, 'Confirm your e-mail address'));
    const early = await attacker.auth.signInWithPassword({ email: victim.email, password: 'attacker-pw-1' });
    expect(early.error).toMatchObject({ status: 400, code: 'email_not_confirmed' });

    const owner = await authClient(project).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(victim) });
    expect(owner.error).toBeNull();
    expect(owner.data.user).toMatchObject({
      id: accountId,
      email: victim.email,
      email_confirmed_at: expect.any(String),
      app_metadata: { provider: 'custom:corp', providers: ['custom:corp'] },
    });
    // GoTrue overwrites what the registrant put in user_metadata with the identity's data.
    expect(owner.data.user?.user_metadata).toEqual({
      sub: victim.sub, email: victim.email, email_verified: true, phone_verified: false, name: victim.name, full_name: victim.name, iss: oidc.issuer, provider_id: victim.sub,
    });
    expect(owner.data.user?.identities?.map((identity) => identity.provider)).toEqual(['custom:corp']);
    const me = await project.call('GET', '/user', { bearer: owner.data.session?.access_token as string });
    expect([me.status, me.body.id]).toEqual([200, accountId]);

    const late = await authClient(project).auth.signInWithPassword({ email: victim.email, password: 'attacker-pw-1' });
    expect(late.error).toMatchObject({ status: 400, code: 'invalid_credentials', message: 'Invalid login credentials' });
    const link = await authClient(project).auth.verifyOtp({ email: victim.email, token: confirmation, type: 'signup' });
    expect(link.error).toMatchObject({ status: 403, code: 'otp_expired' });
    // The registrant never had a session (an unconfirmed address signs in to nothing); the owner's is the only one.
    const { rows } = await project.db.query('SELECT id FROM auth.sessions WHERE user_id = $1', [accountId]);
    expect(rows.map((row: { id: string }) => row.id)).toEqual([decodeJwt(owner.data.session?.access_token as string).session_id]);
    // And the owner signs in the same way again.
    const again = await authClient(project).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(victim) });
    expect([again.error, again.data.user?.id]).toEqual([null, accountId]);
  });

  it('is not claimed through a provider that did not verify the address: the registration stays as it was', async () => {
    const claimant = { ...account('unverified'), email_verified: false };
    const signedUp = await authClient(project).auth.signUp({ email: claimant.email, password: 'first-pw-1' });
    expect(signedUp.error).toBeNull();
    const refused = await authClient(project).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(claimant) });
    expect(refused.error).toMatchObject({ status: 422, code: 'email_exists' });
    const { rows } = await project.db.query('SELECT encrypted_password IS NOT NULL AS password, email_confirmed_at FROM auth.users WHERE id = $1', [signedUp.data.user?.id]);
    expect(rows).toEqual([{ password: true, email_confirmed_at: null }]);
  });
});

describe('signInWithIdToken and the before_user_created hook', () => {
  it('asks the hook before the token makes a new user, and answers its refusal as the sign-up would', async () => {
    const hooked = await suite.project({
      allowPrivateProviderUrls: true,
      settings: { 'auth.external': providerSettings(oidc.issuer, 'mobile-app'), 'auth.hook': pgFunctionHook('before_user_created', 'before_user_created') },
    });
    await hooked.db.query(BEFORE_USER_CREATED_SQL);
    const allowed = account('idthook');
    const signedIn = await authClient(hooked).auth.signInWithIdToken({ provider: 'custom:corp', token: await idTokenOf(allowed) });
    expect(signedIn.error).toBeNull();
    expect(await hookCallsFor(hooked, allowed.email)).toMatchObject([
      { user: { email: allowed.email, app_metadata: { provider: 'custom:corp', providers: ['custom:corp'] }, user_metadata: { sub: allowed.sub } } },
    ]);

    const blocked = { ...account('idtblocked'), email: `someone.${randomUUID()}@blocked.example.org` };
    const refused = await hooked.call('POST', '/token?grant_type=id_token', {
      headers: { 'X-Supabase-Api-Version': '2024-01-01' },
      body: { provider: 'custom:corp', id_token: await idTokenOf(blocked) },
    });
    expect([refused.status, refused.body]).toEqual([403, { code: 'unknown', message: 'Sign-ups from this domain are not allowed' }]);
    const { rows } = await hooked.db.query('SELECT 1 FROM auth.users WHERE email = $1', [blocked.email]);
    expect(rows).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { codeFrom, linkFrom, type CapturedMail } from '../../helpers/auth/smtp-capture.js';
import { authClient as client } from './client.js';

/** supabase-js flows beyond passwords: magic links and e-mail codes, PKCE, invites and generated links, reauthentication. */

let suite: AuthSuite;
let project: AuthProject;

let pkceProject: AuthProject;
const APP = 'https://app.example.com/callback';

beforeAll(async () => {
  suite = await AuthSuite.open();
  [project, pkceProject] = await Promise.all([suite.project(), suite.project({ settings: { 'auth.site_url': APP } })]);
});

/** Follows a PKCE mail link as a browser would and returns the code of the redirect. */
async function pkceCode(mail: CapturedMail): Promise<string> {
  const res = await fetch(linkFrom(mail), { redirect: 'manual' });
  const location = new URL(res.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(APP);
  return location.searchParams.get('code') as string;
}
afterAll(() => suite?.close());

describe('signInWithOtp and verifyOtp', () => {
  it('signs a new address up with a code, then signs it in again with a magic link token', async () => {
    const supabase = client(project);
    const email = uniqueEmail('sbotp');
    const sent = await supabase.auth.signInWithOtp({ email, options: { data: { name: 'Otto' } } });
    expect(sent).toEqual({ data: { user: null, session: null }, error: null });
    const first = await supabase.auth.verifyOtp({ email, token: codeFrom(await suite.smtp.waitFor(email, 'Confirm your e-mail address')), type: 'email' });
    expect(first.error).toBeNull();
    expect(first.data.user).toMatchObject({ email, user_metadata: { name: 'Otto' } });
    expect(first.data.user?.email_confirmed_at).toEqual(expect.any(String));

    const events: string[] = [];
    supabase.auth.onAuthStateChange((event) => events.push(event));
    expect((await supabase.auth.signInWithOtp({ email, options: { shouldCreateUser: false } })).error).toBeNull();
    const mail = await suite.smtp.waitFor(email, 'Your sign-in link');
    const wrong = await supabase.auth.verifyOtp({ email, token: codeFrom(mail) === '999999' ? '999998' : '999999', type: 'email' });
    expect([wrong.error?.status, wrong.error?.code, wrong.error?.message]).toEqual([403, 'otp_expired', 'Token has expired or is invalid']);
    const second = await supabase.auth.verifyOtp({ token_hash: linkFrom(mail).searchParams.get('token') as string, type: 'magiclink' });
    expect(second.error).toBeNull();
    expect(second.data.session?.user.id).toBe(first.data.user?.id);
    expect(events).toContain('SIGNED_IN');
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email);
  });

  it('answers shouldCreateUser: false for an unknown address without an error, as for a known one', async () => {
    const supabase = client(project);
    expect(await supabase.auth.signInWithOtp({ email: uniqueEmail('ghost'), options: { shouldCreateUser: false } })).toEqual({
      data: { user: null, session: null },
      error: null,
    });
  });
});

describe("flowType 'pkce' (the SSR helpers' default)", () => {
  it('signUp, then exchangeCodeForSession with the code of the confirmation link', async () => {
    const supabase = client(pkceProject, pkceProject.anonKey, 'pkce');
    const email = uniqueEmail('sbpkce');
    const signUp = await supabase.auth.signUp({ email, password: 'secret-pw-1', options: { emailRedirectTo: APP } });
    expect([signUp.error, signUp.data.session]).toEqual([null, null]);
    const code = await pkceCode(await suite.smtp.waitFor(email, 'Confirm your e-mail address'));
    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user?.email).toBe(email);
    expect((await supabase.auth.getUser()).data.user?.email_confirmed_at).toEqual(expect.any(String));
    // The verifier is spent with the first exchange: the client itself refuses a second one (the server's refusal is in pkce.test.ts).
    const again = await supabase.auth.exchangeCodeForSession(code);
    expect(again.error?.code).toBe('pkce_code_verifier_not_found');
  });

  it('signInWithOtp: the magic link code is exchanged; another client (no verifier) is refused', async () => {
    const email = uniqueEmail('sbpkceotp');
    await pkceProject.call('POST', '/admin/users', { apikey: pkceProject.serviceKey, body: { email, email_confirm: true } });
    const supabase = client(pkceProject, pkceProject.anonKey, 'pkce');
    expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
    const code = await pkceCode(await suite.smtp.waitFor(email, 'Your sign-in link'));
    const stranger = client(pkceProject, pkceProject.anonKey, 'pkce');
    const refused = await stranger.auth.exchangeCodeForSession(code);
    expect(refused.error?.code).toBe('pkce_code_verifier_not_found');
    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    expect([exchanged.error, exchanged.data.session?.user.email]).toEqual([null, email]);
  });

  it('resetPasswordForEmail: the exchange says it was a recovery, then updateUser sets the password', async () => {
    const email = uniqueEmail('sbpkcerec');
    await pkceProject.call('POST', '/admin/users', { apikey: pkceProject.serviceKey, body: { email, password: 'old-pw-123', email_confirm: true } });
    const supabase = client(pkceProject, pkceProject.anonKey, 'pkce');
    expect((await supabase.auth.resetPasswordForEmail(email, { redirectTo: APP })).error).toBeNull();
    const code = await pkceCode(await suite.smtp.waitFor(email, 'Reset your password'));
    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    // Typed without it, but auth-js returns the flow kind it stored with the verifier.
    expect([exchanged.error, (exchanged.data as { redirectType?: string }).redirectType]).toEqual([null, 'recovery']);
    expect((await supabase.auth.updateUser({ password: 'new-pw-456' })).error).toBeNull();
    expect((await client(pkceProject).auth.signInWithPassword({ email, password: 'new-pw-456' })).error).toBeNull();
  });
});

describe('auth.admin.inviteUserByEmail and generateLink', () => {
  it('invites a user who then signs in with the mailed code and sets a password', async () => {
    const adminClient = client(project, project.serviceKey);
    const email = uniqueEmail('sbinvite');
    const invited = await adminClient.auth.admin.inviteUserByEmail(email, { data: { role: 'editor' } });
    expect(invited.error).toBeNull();
    expect(invited.data.user).toMatchObject({ email, invited_at: expect.any(String), user_metadata: { role: 'editor' } });
    const supabase = client(project);
    const verified = await supabase.auth.verifyOtp({ email, token: codeFrom(await suite.smtp.waitFor(email, 'You have been invited')), type: 'invite' });
    expect(verified.error).toBeNull();
    expect((await supabase.auth.updateUser({ password: 'invited-pw-1' })).error).toBeNull();
    expect((await client(project).auth.signInWithPassword({ email, password: 'invited-pw-1' })).error).toBeNull();
    const again = await adminClient.auth.admin.inviteUserByEmail(email);
    expect([again.error?.status, again.error?.code]).toEqual([422, 'email_exists']);
  });

  it('generateLink splits the answer into properties and user, and the hashed token signs in', async () => {
    const adminClient = client(project, project.serviceKey);
    const email = uniqueEmail('sbgen');
    const generated = await adminClient.auth.admin.generateLink({ type: 'signup', email, password: 'gen-pw-123', options: { data: { via: 'generateLink' } } });
    expect(generated.error).toBeNull();
    expect(generated.data.properties).toEqual({
      action_link: expect.stringContaining(`/v1/${project.ref}/auth/v1/verify?token=`),
      email_otp: expect.stringMatching(/^\d{6}$/),
      hashed_token: expect.any(String),
      redirect_to: expect.any(String),
      verification_type: 'signup',
    });
    expect(generated.data.user).toMatchObject({ email, user_metadata: { via: 'generateLink' } });
    const verified = await client(project).auth.verifyOtp({ token_hash: generated.data.properties?.hashed_token as string, type: 'signup' });
    expect(verified.data.user?.email).toBe(email);
    const missing = await adminClient.auth.admin.generateLink({ type: 'recovery', email: uniqueEmail('none') });
    expect([missing.error?.status, missing.error?.code]).toEqual([404, 'user_not_found']);
  });
});

describe('reauthenticate', () => {
  it('mails a nonce that updateUser({password, nonce}) takes when a day-old session changes its password', async () => {
    const secure = await suite.project({ settings: { 'auth.update_password_require_reauthentication': true } });
    const email = uniqueEmail('sbreauth');
    await secure.call('POST', '/admin/users', { apikey: secure.serviceKey, body: { email, password: 'first-pw-1', email_confirm: true } });
    const supabase = client(secure);
    expect((await supabase.auth.signInWithPassword({ email, password: 'first-pw-1' })).error).toBeNull();
    secure.clock.advance(24 * 3600 + 1);
    expect((await supabase.auth.refreshSession()).error).toBeNull();

    const refused = await supabase.auth.updateUser({ password: 'second-pw-2' });
    expect([refused.error?.status, refused.error?.code]).toEqual([400, 'reauthentication_needed']);
    expect(await supabase.auth.reauthenticate()).toEqual({ data: { user: null, session: null }, error: null });
    const nonce = codeFrom(await suite.smtp.waitFor(email, 'Confirm it is you'));
    const wrong = await supabase.auth.updateUser({ password: 'second-pw-2', nonce: nonce === '111111' ? '111112' : '111111' });
    expect([wrong.error?.status, wrong.error?.code]).toEqual([422, 'reauthentication_not_valid']);
    expect((await supabase.auth.updateUser({ password: 'second-pw-2', nonce })).error).toBeNull();
    expect((await client(secure).auth.signInWithPassword({ email, password: 'second-pw-2' })).error).toBeNull();
  });
});

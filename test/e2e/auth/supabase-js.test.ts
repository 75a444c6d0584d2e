import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../helpers/auth/harness.js';
import { codeFrom, linkFrom } from '../../helpers/auth/smtp-capture.js';
import { authClient as client } from './client.js';

let suite: AuthSuite;
let confirmOn: AuthProject;
let autoconfirm: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  [confirmOn, autoconfirm] = await Promise.all([suite.project(), suite.project({ autoconfirm: true, reuseInterval: 10 })]);
});
afterAll(() => suite?.close());

describe('supabase-js auth against Gantry', () => {
  it('signs up, confirms through the mailed token, signs in, reads and updates the user, refreshes and signs out', async () => {
    const supabase = client(confirmOn);
    const email = uniqueEmail('sbjs');
    const signUp = await supabase.auth.signUp({ email, password: 'secret-pw-1', options: { data: { name: 'Sam' } } });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user?.email).toBe(email);
    expect(signUp.data.user?.user_metadata).toEqual({ name: 'Sam' });

    const early = await supabase.auth.signInWithPassword({ email, password: 'secret-pw-1' });
    expect(early.error?.code).toBe('email_not_confirmed');
    expect(early.error?.status).toBe(400);

    const token = linkFrom(await suite.smtp.waitFor(email, 'Confirm')).searchParams.get('token') as string;
    const verified = await supabase.auth.verifyOtp({ type: 'signup', token_hash: token });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.expires_in).toBe(3600);
    expect(verified.data.user?.id).toBe(signUp.data.user?.id);

    const signIn = await supabase.auth.signInWithPassword({ email, password: 'secret-pw-1' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.token_type).toBe('bearer');
    expect(signIn.data.user?.email_confirmed_at).toEqual(expect.any(String));

    const me = await supabase.auth.getUser();
    expect(me.error).toBeNull();
    expect(me.data.user?.id).toBe(signUp.data.user?.id);

    const updated = await supabase.auth.updateUser({ data: { name: 'Samantha', city: 'Oslo' } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toEqual({ name: 'Samantha', city: 'Oslo' });

    const before = signIn.data.session?.refresh_token;
    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(before);

    const { data: claims } = await supabase.auth.getClaims();
    expect(claims?.claims.sub).toBe(signUp.data.user?.id);

    expect((await supabase.auth.signOut()).error).toBeNull();
    const reuse = await client(confirmOn).auth.refreshSession({ refresh_token: refreshed.data.session?.refresh_token as string });
    expect(reuse.error?.status).toBe(400);
  });

  it('maps errors to AuthApiError codes and AuthWeakPasswordError reasons', async () => {
    const supabase = client(confirmOn);
    const wrong = await supabase.auth.signInWithPassword({ email: uniqueEmail('none'), password: 'whatever-1' });
    expect(wrong.error?.name).toBe('AuthApiError');
    expect(wrong.error?.code).toBe('invalid_credentials');
    expect(wrong.error?.message).toBe('Invalid login credentials');

    const weak = await supabase.auth.signUp({ email: uniqueEmail('weak'), password: '123' });
    expect(weak.error?.name).toBe('AuthWeakPasswordError');
    expect(weak.error?.code).toBe('weak_password');
    expect((weak.error as unknown as { reasons: string[] }).reasons).toEqual(['length']);
  });

  it('hides whether an address is taken on sign-up when confirmation is on', async () => {
    const supabase = client(confirmOn);
    const email = uniqueEmail('twice');
    const first = await supabase.auth.signUp({ email, password: 'secret-pw-1' });
    const second = await supabase.auth.signUp({ email, password: 'secret-pw-2' });
    expect(second.error).toBeNull();
    expect(second.data.session).toBeNull();
    expect(second.data.user?.id).not.toBe(first.data.user?.id);
    expect(second.data.user?.identities).toHaveLength(1);
  });

  it('recovers a password: mail, verifyOtp(recovery) emits PASSWORD_RECOVERY, updateUser sets it', async () => {
    const admin = client(confirmOn, confirmOn.serviceKey).auth.admin;
    const email = uniqueEmail('recover');
    expect((await admin.createUser({ email, password: 'old-password', email_confirm: true })).error).toBeNull();

    const supabase = client(confirmOn);
    const events: string[] = [];
    supabase.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const sent = await supabase.auth.resetPasswordForEmail(email);
    expect(sent.error).toBeNull();
    const token = linkFrom(await suite.smtp.waitFor(email, 'Reset')).searchParams.get('token') as string;
    const verified = await supabase.auth.verifyOtp({ type: 'recovery', token_hash: token });
    expect(verified.error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
    expect((await supabase.auth.updateUser({ password: 'new-password' })).error).toBeNull();
    await supabase.auth.signOut();

    const fresh = client(confirmOn);
    expect((await fresh.auth.signInWithPassword({ email, password: 'old-password' })).error?.code).toBe('invalid_credentials');
    expect((await fresh.auth.signInWithPassword({ email, password: 'new-password' })).error).toBeNull();
  });

  it('resends the confirmation link of an unconfirmed address (and says the same for any other)', async () => {
    const supabase = client(confirmOn);
    const email = uniqueEmail('resend');
    await supabase.auth.signUp({ email, password: 'secret-pw-1' });
    const first = linkFrom(await suite.smtp.waitFor(email, 'Confirm'));
    const resent = await supabase.auth.resend({ type: 'signup', email });
    expect(resent.error).toBeNull();
    const second = linkFrom(await suite.smtp.waitFor(email, 'Confirm'));
    expect(second.searchParams.get('token')).not.toBe(first.searchParams.get('token'));
    expect((await supabase.auth.verifyOtp({ type: 'signup', token_hash: second.searchParams.get('token') as string })).error).toBeNull();
    expect((await supabase.auth.resend({ type: 'signup', email })).error).toBeNull();
    expect((await supabase.auth.resend({ type: 'signup', email: uniqueEmail('ghost') })).error).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(suite.smtp.countTo(email)).toBe(0);
  });

  it('changes the e-mail address with updateUser (secure e-mail change): pending until both addresses confirm with verifyOtp(email_change)', async () => {
    const admin = client(confirmOn, confirmOn.serviceKey).auth.admin;
    const email = uniqueEmail('sbjs-old');
    expect((await admin.createUser({ email, password: 'secret-pw-1', email_confirm: true })).error).toBeNull();
    const supabase = client(confirmOn);
    expect((await supabase.auth.signInWithPassword({ email, password: 'secret-pw-1' })).error).toBeNull();

    const newEmail = uniqueEmail('sbjs-new');
    const requested = await supabase.auth.updateUser({ email: newEmail });
    expect(requested.error).toBeNull();
    expect(requested.data.user).toMatchObject({ email, new_email: newEmail, email_change_sent_at: expect.any(String) });

    const fromCurrent = codeFrom(await suite.smtp.waitFor(email, 'Confirm the change of your e-mail address'));
    const halfway = await supabase.auth.verifyOtp({ type: 'email_change', email, token: fromCurrent });
    expect(halfway.error).toBeNull();
    expect(halfway.data.session).toBeNull();
    expect((await supabase.auth.getUser()).data.user).toMatchObject({ email, new_email: newEmail });

    const token = linkFrom(await suite.smtp.waitFor(newEmail, 'Confirm your new')).searchParams.get('token') as string;
    const verified = await supabase.auth.verifyOtp({ type: 'email_change', token_hash: token });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(newEmail);
    expect((await supabase.auth.getUser()).data.user?.email).toBe(newEmail);
    expect((await client(confirmOn).auth.signInWithPassword({ email: newEmail, password: 'secret-pw-1' })).error).toBeNull();

    const other = uniqueEmail('sbjs-other');
    expect((await admin.createUser({ email: other, password: 'secret-pw-1' })).error).toBeNull();
    const refused = await supabase.auth.updateUser({ email: other });
    expect(refused.error?.status).toBe(422);
    expect(refused.error?.code).toBe('email_exists');
  });

  it('changes the e-mail address at once with updateUser when autoconfirm is on', async () => {
    const supabase = client(autoconfirm);
    const signUp = await supabase.auth.signUp({ email: uniqueEmail('sbjs-auto'), password: 'secret-pw-1' });
    expect(signUp.error).toBeNull();
    const newEmail = uniqueEmail('sbjs-auto-new');
    const changed = await supabase.auth.updateUser({ email: newEmail });
    expect(changed.error).toBeNull();
    expect(changed.data.user?.email).toBe(newEmail);
    expect(changed.data.user?.new_email).toBeUndefined();
  });

  it('gets a session straight from signUp when autoconfirm is on', async () => {
    const supabase = client(autoconfirm);
    const { data, error } = await supabase.auth.signUp({ email: uniqueEmail('auto'), password: 'secret-pw-1' });
    expect(error).toBeNull();
    expect(data.session?.access_token).toEqual(expect.any(String));
    expect(data.session?.expires_in).toBe(3600);
    expect((await supabase.auth.getSession()).data.session?.user.id).toBe(data.user?.id);
  });
});

describe('supabase-js auth.admin against Gantry', () => {
  it('creates, lists with pages, reads, bans, unbans and deletes users', async () => {
    const project = await suite.project();
    const admin = client(project, project.serviceKey).auth.admin;
    const emails: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const email = uniqueEmail(`adm${i}`);
      emails.push(email);
      const created = await admin.createUser({ email, password: 'secret-pw-1', email_confirm: true, user_metadata: { n: i } });
      expect(created.error).toBeNull();
      expect(created.data.user?.user_metadata).toEqual({ n: i });
    }

    const page1 = await admin.listUsers({ page: 1, perPage: 2 });
    expect(page1.error).toBeNull();
    expect(page1.data.users.map((u) => u.email)).toEqual([emails[2], emails[1]]);
    expect(page1.data).toMatchObject({ total: 3, nextPage: 2, lastPage: 2 });
    const page2 = await admin.listUsers({ page: 2, perPage: 2 });
    expect(page2.data.users.map((u) => u.email)).toEqual([emails[0]]);

    const target = page2.data.users[0]!;
    expect((await admin.getUserById(target.id)).data.user?.email).toBe(emails[0]);

    const banned = await admin.updateUserById(target.id, { ban_duration: '876000h' });
    expect(banned.error).toBeNull();
    expect(banned.data.user?.banned_until).toEqual(expect.any(String));
    const user = client(project);
    const blocked = await user.auth.signInWithPassword({ email: emails[0]!, password: 'secret-pw-1' });
    expect(blocked.error?.code).toBe('user_banned');

    expect((await admin.updateUserById(target.id, { ban_duration: 'none' })).error).toBeNull();
    expect((await user.auth.signInWithPassword({ email: emails[0]!, password: 'secret-pw-1' })).error).toBeNull();

    expect((await admin.updateUserById(target.id, { password: 'changed-pw-1', user_metadata: { n: 'x' } })).data.user?.user_metadata).toEqual({ n: 'x' });
    expect((await user.auth.refreshSession()).error?.status).toBe(400);

    const deleted = await admin.deleteUser(target.id);
    expect(deleted.error).toBeNull();
    const gone = await admin.getUserById(target.id);
    expect(gone.error?.status).toBe(404);
    expect((await admin.listUsers()).data.users).toHaveLength(2);
  });

  it('is refused with the anon key', async () => {
    const admin = client(confirmOn).auth.admin;
    const res = await admin.listUsers();
    expect(res.error?.status).toBe(403);
    expect(res.error?.code).toBe('not_admin');
  });
});

describe('supabase-js against Gantry settings and features it lacks', () => {
  it('falls back to the site URL for an emailRedirectTo that is not allowed, and refuses sign-ups when they are off', async () => {
    const [site, closed] = await Promise.all([
      suite.project({ settings: { 'auth.site_url': 'https://app.example.com', 'auth.redirect_allow_list': ['https://*.example.com/**'] } }),
      suite.project({ settings: { 'auth.disable_signup': true } }),
    ]);
    const allowed = uniqueEmail('allowed');
    expect((await client(site).auth.signUp({ email: allowed, password: 'secret-pw-1', options: { emailRedirectTo: 'https://pr-1.example.com/cb' } })).error).toBeNull();
    expect(linkFrom(await suite.smtp.waitFor(allowed)).searchParams.get('redirect_to')).toBe('https://pr-1.example.com/cb');
    const elsewhere = uniqueEmail('elsewhere');
    expect((await client(site).auth.signUp({ email: elsewhere, password: 'secret-pw-1', options: { emailRedirectTo: 'https://evil.example/cb' } })).error).toBeNull();
    expect(linkFrom(await suite.smtp.waitFor(elsewhere)).searchParams.get('redirect_to')).toBe('https://app.example.com');

    const refused = await client(closed).auth.signUp({ email: uniqueEmail('closed'), password: 'secret-pw-1' });
    expect([refused.error?.name, refused.error?.status, refused.error?.code, refused.error?.message]).toEqual([
      'AuthApiError', 422, 'signup_disabled', 'Signups not allowed for this instance',
    ]);
  });

  it('gets 403 bad_jwt for a forged token and the disabled codes for phone MFA and anonymous sign-ins', async () => {
    const supabase = client(autoconfirm);
    const { data } = await supabase.auth.signUp({ email: uniqueEmail('feat'), password: 'secret-pw-1' });
    const forged = await supabase.auth.getUser(`${data.session?.access_token.slice(0, -4)}AAAA`);
    expect([forged.error?.status, forged.error?.code]).toEqual([403, 'bad_jwt']);
    expect(forged.error?.message).toMatch(/^invalid JWT: unable to parse or verify signature, /);

    const enroll = await supabase.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' });
    expect([enroll.error?.status, enroll.error?.code]).toEqual([422, 'mfa_phone_enroll_not_enabled']);
    const anonymous = await client(autoconfirm).auth.signInAnonymously();
    expect([anonymous.error?.status, anonymous.error?.code]).toEqual([422, 'anonymous_provider_disabled']);
  });
});

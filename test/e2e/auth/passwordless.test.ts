import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthSuite, uniqueEmail, type AuthProject } from '../../integration/auth/harness.js';
import { codeFrom, linkFrom } from '../../integration/auth/smtp-capture.js';
import { authClient as client } from './client.js';

/** supabase-js flows beyond passwords: magic links and e-mail codes. */

let suite: AuthSuite;
let project: AuthProject;

beforeAll(async () => {
  suite = await AuthSuite.open();
  project = await suite.project();
});
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

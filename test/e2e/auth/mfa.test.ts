import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { base32Decode, hotp, totpStep } from '../../../runtime/auth/credentials/totp.js';
import { docsExample } from '../../helpers/docs-examples.js';
import { scanQrSvg } from '../../helpers/qr-svg.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';
import { supabaseClient } from '../rest/http.js';

/**
 * supabase-js's auth.mfa API against a served project, and a row-level security
 * policy that only lets aal2 sessions at the rows (docs/auth.md's example, read from the page).
 */

const schema = `
CREATE TABLE public.vault (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL
);
ALTER TABLE public.vault ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON public.vault FOR ALL TO authenticated
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
${docsExample('docs/auth.md', 'CREATE POLICY mfa_only')}`;

let host: TestHost;
let project: TestProject;

const client = (): SupabaseClient => supabaseClient(project);

function claimsOf(token: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from((token ?? '').split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true });
});
afterAll(() => host?.close());

describe('supabase-js auth.mfa', () => {
  it('enrol, challenge, verify to aal2, AAL and factor lists, replay refused, RLS on aal2, unenrol', async () => {
    const supabase = client();
    const email = uniqueEmail('sbjs-mfa');
    const signUp = await supabase.auth.signUp({ email, password: 'secret-pw-1' });
    expect(signUp.error).toBeNull();

    const before = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before).toEqual({
      data: { currentLevel: 'aal1', nextLevel: 'aal1', currentAuthenticationMethods: [{ method: 'password', timestamp: expect.any(Number) }] },
      error: null,
    });
    // The policy keeps aal1 sessions away from the table, even from their own rows.
    const refused = await supabase.from('vault').insert({ body: 'at aal1' });
    expect([refused.status, refused.error?.code]).toEqual([403, '42501']);

    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator' });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toMatchObject({ type: 'totp', friendly_name: 'Authenticator' });
    const totp = enrolled.data?.totp;
    expect(totp?.qr_code.startsWith('data:image/svg+xml;utf-8,<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(scanQrSvg(totp?.qr_code.slice('data:image/svg+xml;utf-8,'.length) ?? '')).toBe(totp?.uri);
    expect(totp?.uri).toBe(
      `otpauth://totp/${new URL(project.url).host}:${email}?algorithm=SHA1&digits=6&issuer=${encodeURIComponent(new URL(project.url).host)}&period=30&secret=${totp?.secret}`,
    );
    const factorId = enrolled.data?.id as string;
    const key = base32Decode(totp?.secret as string);

    const unverified = await supabase.auth.mfa.listFactors();
    expect(unverified.data?.all.map((f) => [f.id, f.status])).toEqual([[factorId, 'unverified']]);
    expect(unverified.data?.totp).toEqual([]);

    const challenged = await supabase.auth.mfa.challenge({ factorId });
    expect(challenged.error).toBeNull();
    expect(challenged.data).toEqual({ id: expect.any(String), type: 'totp', expires_at: expect.any(Number) });
    const step = totpStep(Date.now() / 1000);
    const code = hotp(key, step);
    const verified = await supabase.auth.mfa.verify({ factorId, challengeId: challenged.data?.id as string, code });
    expect(verified.error).toBeNull();
    expect(claimsOf(verified.data?.access_token).aal).toBe('aal2');

    const after = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(after.data).toEqual({
      currentLevel: 'aal2',
      nextLevel: 'aal2',
      currentAuthenticationMethods: [
        { method: 'totp', timestamp: expect.any(Number) },
        { method: 'password', timestamp: expect.any(Number) },
      ],
    });
    const listed = await supabase.auth.mfa.listFactors();
    expect(listed.data?.totp.map((f) => [f.id, f.status, f.friendly_name])).toEqual([[factorId, 'verified', 'Authenticator']]);

    const inserted = await supabase.from('vault').insert({ body: 'at aal2' }).select('body');
    expect([inserted.error, inserted.data]).toEqual([null, [{ body: 'at aal2' }]]);

    const replay = await supabase.auth.mfa.challengeAndVerify({ factorId, code });
    expect([replay.error?.status, replay.error?.code, replay.error?.message]).toEqual([422, 'mfa_verification_failed', 'Invalid TOTP code entered']);
    const nextCode = await supabase.auth.mfa.challengeAndVerify({ factorId, code: hotp(key, step + 1) });
    expect(nextCode.error).toBeNull();

    const refreshed = await supabase.auth.refreshSession();
    expect(claimsOf(refreshed.data.session?.access_token).aal).toBe('aal2');
    expect((await supabase.from('vault').select('body')).data).toEqual([{ body: 'at aal2' }]);

    // Another device with the password alone is aal1, told aal2 is next, and sees nothing.
    const laptop = client();
    expect((await laptop.auth.signInWithPassword({ email, password: 'secret-pw-1' })).error).toBeNull();
    expect((await laptop.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    expect((await laptop.from('vault').select('body')).data).toEqual([]);
    const weak = await laptop.auth.mfa.unenroll({ factorId });
    expect([weak.error?.status, weak.error?.code]).toEqual([422, 'insufficient_aal']);

    const unenrolled = await supabase.auth.mfa.unenroll({ factorId });
    expect([unenrolled.error, unenrolled.data]).toEqual([null, { id: factorId }]);
    expect((await supabase.auth.mfa.listFactors()).data?.all).toEqual([]);
  });

  it('the admin API lists and deletes a user\'s factors', async () => {
    const supabase = client();
    const signUp = await supabase.auth.signUp({ email: uniqueEmail('sbjs-mfa-admin'), password: 'secret-pw-1' });
    const userId = signUp.data.user?.id as string;
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'to delete' });
    const factorId = enrolled.data?.id as string;

    const adminClient = createClient(project.url, project.keys.service_key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as never },
    });
    const listed = await adminClient.auth.admin.mfa.listFactors({ userId });
    expect(listed.error).toBeNull();
    expect(listed.data?.factors.map((f) => [f.id, f.factor_type, f.status, f.friendly_name])).toEqual([[factorId, 'totp', 'unverified', 'to delete']]);

    const deleted = await adminClient.auth.admin.mfa.deleteFactor({ userId, id: factorId });
    expect(deleted.error).toBeNull();
    // auth-js hands back GoTrue's factor object wrapped once more ({data, error}) for this call.
    expect(deleted.data).toEqual({ data: expect.objectContaining({ id: factorId, factor_type: 'totp', friendly_name: 'to delete' }), error: null });
    expect((await adminClient.auth.admin.mfa.listFactors({ userId })).data?.factors).toEqual([]);
  });
});

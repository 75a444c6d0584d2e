import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';
import { isolatedClient } from './isolated-client.js';

/**
 * supabase-js signInAnonymously against a running host, and row-level security telling
 * anonymous users apart through the token: `(auth.jwt()->>'is_anonymous')::boolean`.
 */

const schema = `
CREATE TABLE public.posts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL
);
ALTER TABLE public.posts ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON public.posts FOR SELECT TO authenticated USING (true);
CREATE POLICY own_posts ON public.posts FOR INSERT TO authenticated WITH CHECK (owner = auth.uid());
-- Supabase's documented pattern: anonymous users may read, only permanent ones write.
CREATE POLICY permanent_only ON public.posts AS RESTRICTIVE FOR INSERT TO authenticated
  WITH CHECK ((SELECT (auth.jwt()->>'is_anonymous')::boolean) IS FALSE);
`;

let host: TestHost;
let project: TestProject;

function client(): SupabaseClient {
  return isolatedClient(project);
}

async function anonymousUsersSetting(): Promise<boolean> {
  const res = await fetch(`${project.url}/auth/v1/settings`, { headers: { apikey: project.keys.anon_key } });
  return ((await res.json()) as { external: { anonymous_users: boolean } }).external.anonymous_users;
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true });
});
afterAll(() => host?.close());

describe('anonymous sign-ins through supabase-js', () => {
  it('are refused until the project enables them; the host picks the setting up without restart', async () => {
    const refused = await client().auth.signInAnonymously();
    expect(refused.error?.code).toBe('anonymous_provider_disabled');
    expect(refused.error?.status).toBe(422);
    expect(await anonymousUsersSetting()).toBe(false);

    await host.platform.setSettings(project.record.ref, { 'auth.anonymous_users': true });
    const deadline = Date.now() + 30_000;
    while (!(await anonymousUsersSetting()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await anonymousUsersSetting()).toBe(true);
  });

  it('sign in anonymously, read but not write under RLS, then link an address and write', async () => {
    const supabase = client();
    const signedIn = await supabase.auth.signInAnonymously({ options: { data: { theme: 'dark' } } });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user).toMatchObject({ is_anonymous: true, email: '', role: 'authenticated', user_metadata: { theme: 'dark' } });
    const userId = signedIn.data.user!.id;
    const claims = await supabase.auth.getClaims();
    expect(claims.data?.claims).toMatchObject({ sub: userId, role: 'authenticated', is_anonymous: true });

    expect((await supabase.from('posts').select('body')).data).toEqual([]);
    const blocked = await supabase.from('posts').insert({ body: 'as a guest' });
    expect(blocked.error?.code).toBe('42501');
    expect(blocked.status).toBe(403);

    const email = uniqueEmail('anon-link');
    const linked = await supabase.auth.updateUser({ email, password: 'secret-pw-1' });
    expect(linked.error).toBeNull();
    expect(linked.data.user).toMatchObject({ id: userId, email, is_anonymous: false });
    // The token in hand still says anonymous until it is refreshed.
    expect((await supabase.from('posts').insert({ body: 'still a guest' })).error?.code).toBe('42501');
    const refreshed = await supabase.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect((await supabase.auth.getClaims()).data?.claims).toMatchObject({ sub: userId, email, is_anonymous: false });

    const written = await supabase.from('posts').insert({ body: 'now permanent' }).select('owner, body');
    expect(written.error).toBeNull();
    expect(written.data).toEqual([{ owner: userId, body: 'now permanent' }]);

    const again = client();
    const password = await again.auth.signInWithPassword({ email, password: 'secret-pw-1' });
    expect(password.error).toBeNull();
    expect(password.data.user).toMatchObject({ id: userId, is_anonymous: false });
  });
});

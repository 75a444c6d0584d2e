import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { uniqueEmail } from '../../helpers/auth/harness.js';

/** Access tokens issued by auth drive row-level security in the data API: auth.uid() is the signed-in user. */

const schema = `
CREATE TABLE public.notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL
);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_notes ON public.notes FOR ALL TO authenticated
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
CREATE FUNCTION public.whoami() RETURNS text LANGUAGE sql STABLE AS $$ SELECT auth.role() || ':' || coalesce(auth.uid()::text, '') $$;
`;

let host: TestHost;
let project: TestProject;

function client(key: string): SupabaseClient {
  return createClient(project.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: schema, autoconfirm: true, generate: true });
});
afterAll(() => host?.close());

describe('auth and row-level security', () => {
  it("isolates two users' rows; anon sees none, service_role sees all", async () => {
    const alice = client(project.keys.anon_key);
    const bob = client(project.keys.anon_key);
    const a = await alice.auth.signUp({ email: uniqueEmail('alice'), password: 'secret-pw-1' });
    const b = await bob.auth.signUp({ email: uniqueEmail('bob'), password: 'secret-pw-1' });
    expect(a.error).toBeNull();
    expect(b.error).toBeNull();

    const inserted = await alice.from('notes').insert({ body: 'alice note' }).select();
    expect(inserted.error).toBeNull();
    expect(inserted.data).toEqual([{ id: expect.any(Number), owner: a.data.user?.id, body: 'alice note' }]);
    expect((await bob.from('notes').insert({ body: 'bob note' }).select()).error).toBeNull();

    const aliceRows = await alice.from('notes').select('body, owner');
    expect(aliceRows.data).toEqual([{ body: 'alice note', owner: a.data.user?.id }]);
    const bobRows = await bob.from('notes').select('body');
    expect(bobRows.data).toEqual([{ body: 'bob note' }]);

    const forged = await bob.from('notes').insert({ body: 'as alice', owner: a.data.user?.id });
    expect(forged.error?.code).toBe('42501');
    const stolen = await bob.from('notes').update({ body: 'stolen' }).eq('body', 'alice note').select();
    expect(stolen.data).toEqual([]);

    expect((await client(project.keys.anon_key).from('notes').select('*')).data).toEqual([]);
    const all = await client(project.keys.service_key).from('notes').select('body').order('id');
    expect(all.data).toEqual([{ body: 'alice note' }, { body: 'bob note' }]);

    expect((await alice.rpc('whoami')).data).toBe(`authenticated:${a.data.user?.id}`);
    expect((await client(project.keys.anon_key).rpc('whoami')).data).toBe('anon:');
  });

  it('refuses a tampered access token in the data API', async () => {
    const carol = client(project.keys.anon_key);
    await carol.auth.signUp({ email: uniqueEmail('carol'), password: 'secret-pw-1' });
    expect((await carol.from('notes').insert({ body: 'carol' }).select()).data).toHaveLength(1);
    const session = (await carol.auth.getSession()).data.session;
    const forged = createClient(project.url, project.keys.anon_key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as never },
      global: { headers: { Authorization: `Bearer ${session?.access_token.slice(0, -4)}AAAA` } },
    });
    const refused = await forged.from('notes').select('*');
    expect(refused.status).toBe(401);
  });
});

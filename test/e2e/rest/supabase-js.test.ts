import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestProject, demoSchemaSql, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { userToken } from './http.js';

/** supabase-js, unchanged, against the demo project's data API. */

let host: TestHost;
let project: TestProject;
let anon: SupabaseClient;
let admin: SupabaseClient;
const USER = '00000000-0000-0000-0000-0000000000c1';

function client(key: string, token?: string): SupabaseClient {
  return createClient(project.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
    global: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
}

beforeAll(async () => {
  host = await startTestHost();
  const sql = await demoSchemaSql();
  project = await createTestProject(host.platform, { host: host.host, sql, generate: true });
  anon = client(project.keys.anon_key);
  admin = client(project.keys.service_key);
});
afterAll(() => host?.close());

describe('supabase-js against the data API', () => {
  it('selects with embeds, filters, order and range', async () => {
    const { data, error, status } = await anon
      .from('posts')
      .select('id, title, authors(name), tags(name)')
      .eq('author_id', 1)
      .order('id', { ascending: false })
      .order('name', { referencedTable: 'tags' });
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data).toEqual([
      { id: 2, title: 'Bernoulli numbers', authors: { name: 'Ada Lovelace' }, tags: [{ name: 'history' }, { name: 'math' }] },
      { id: 1, title: 'Notes on the Analytical Engine', authors: { name: 'Ada Lovelace' }, tags: [{ name: 'hardware' }, { name: 'history' }] },
    ]);

    const ranged = await anon.from('posts').select('id').order('id').range(1, 2);
    expect(ranged.data).toEqual([{ id: 2 }, { id: 3 }]);
    const filtered = await anon.from('posts').select('id')
      .in('id', [1, 2, 3, 5]).neq('id', 2).gt('id', 1).lte('id', 5).ilike('title', '%THE%').order('id');
    expect(filtered.data).toEqual([{ id: 5 }]);
    const or = await anon.from('authors').select('name').or('id.eq.1,name.eq.Grace Hopper').order('id');
    expect(or.data).toEqual([{ name: 'Ada Lovelace' }, { name: 'Grace Hopper' }]);
    const text = await anon.from('posts').select('id').textSearch('search', 'moth', { config: 'english', type: 'websearch' });
    expect(text.data).toEqual([{ id: 5 }]);
    const json = await anon.from('posts').select('id').contains('meta', { reading_minutes: 3 });
    expect(json.data).toEqual([{ id: 5 }]);
    const not = await anon.from('authors').select('id').not('id', 'in', '(1,2)').is('bio', null);
    expect(not.data).toEqual([]);
    const limited = await anon.from('authors').select('id, posts(id)').order('id').limit(1).limit(1, { referencedTable: 'posts' });
    expect(limited.data).toEqual([{ id: 1, posts: [{ id: 1 }] }]);
  });

  it('single, maybeSingle, csv and counts with head', async () => {
    const single = await anon.from('authors').select('name').eq('id', 2).single();
    expect(single.data).toEqual({ name: 'Alan Turing' });
    const tooMany = await anon.from('authors').select('name').single();
    expect(tooMany.status).toBe(406);
    expect(tooMany.error?.code).toBe('PGRST116');
    const maybeNone = await anon.from('authors').select('name').eq('id', 99).maybeSingle();
    expect(maybeNone.error).toBeNull();
    expect(maybeNone.data).toBeNull();
    const maybeOne = await anon.from('authors').select('name').eq('id', 1).maybeSingle();
    expect(maybeOne.data).toEqual({ name: 'Ada Lovelace' });

    const csv = await anon.from('tags').select('id,name').order('id').limit(2).csv();
    expect(csv.data).toBe('id,name\n1,history\n2,math');

    const counted = await anon.from('posts').select('*', { count: 'exact', head: true });
    expect(counted.error).toBeNull();
    expect(counted.count).toBe(4);
    expect(counted.data).toBeNull();
    const page = await anon.from('posts').select('id', { count: 'exact' }).order('id').limit(2);
    expect(page.status).toBe(206);
    expect(page.count).toBe(4);
    expect(page.data).toEqual([{ id: 1 }, { id: 2 }]);
    const estimated = await anon.from('tags').select('id', { count: 'estimated', head: true });
    expect(estimated.count).toBe(4);
  });

  it('insert, upsert, update and delete with the returned rows', async () => {
    const inserted = await admin.from('tags').insert([{ name: 'sj-one' }, { name: 'sj-two' }]).select('name');
    expect(inserted.error).toBeNull();
    expect(inserted.status).toBe(201);
    expect(inserted.data).toEqual([{ name: 'sj-one' }, { name: 'sj-two' }]);
    const quiet = await admin.from('tags').insert({ name: 'sj-quiet' });
    expect(quiet.error).toBeNull();
    expect(quiet.status).toBe(201);

    const mixed = await admin.from('authors').insert([{ name: 'sj-a', bio: 'x' }, { name: 'sj-b' }], { defaultToNull: false }).select('name, bio');
    expect(mixed.error).toBeNull();
    expect(mixed.data).toEqual([{ name: 'sj-a', bio: 'x' }, { name: 'sj-b', bio: null }]);

    const id = ((await admin.from('tags').select('id').eq('name', 'sj-one').single()).data as { id: number }).id;
    const upserted = await admin.from('tags').upsert([{ id, name: 'sj-one-renamed' }, { id: 900, name: 'sj-new' }]).select('id, name').order('id');
    expect(upserted.error).toBeNull();
    expect(upserted.data).toEqual([{ id, name: 'sj-one-renamed' }, { id: 900, name: 'sj-new' }]);
    const ignored = await admin.from('tags').upsert({ name: 'sj-new' }, { onConflict: 'name', ignoreDuplicates: true }).select();
    expect(ignored.data).toEqual([]);

    const updated = await admin.from('tags').update({ name: 'sj-two-renamed' }).eq('name', 'sj-two').select('name');
    expect(updated.data).toEqual([{ name: 'sj-two-renamed' }]);
    const singleUpdate = await admin.from('authors').update({ bio: 'y' }).like('name', 'sj-%').select().single();
    expect(singleUpdate.error?.code).toBe('PGRST116');
    expect((await admin.from('authors').select('bio').like('name', 'sj-%').order('id')).data).toEqual([{ bio: 'x' }, { bio: null }]);

    const deleted = await admin.from('tags').delete({ count: 'exact' }).like('name', 'sj-%').select('name').order('name');
    expect(deleted.count).toBe(4);
    expect(deleted.data).toEqual([{ name: 'sj-new' }, { name: 'sj-one-renamed' }, { name: 'sj-quiet' }, { name: 'sj-two-renamed' }]);
    await admin.from('authors').delete().like('name', 'sj-%');
  });

  it('reports errors with their code and status', async () => {
    const duplicate = await admin.from('tags').insert({ name: 'history' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.error).toEqual({
      code: '23505', message: 'duplicate key value violates unique constraint "tags_name_key"', details: 'Key (name)=(history) already exists.', hint: null,
    });
    const refused = await anon.from('authors').insert({ name: 'anon' });
    expect(refused.status).toBe(403);
    expect(refused.error?.code).toBe('42501');
    const unknown = await anon.from('authors').select('nope');
    expect(unknown.status).toBe(400);
    expect(unknown.error?.code).toBe('42703');
    const missing = await anon.from('nothing').select();
    expect(missing.status).toBe(404);
    expect(missing.error?.code).toBe('42P01');
  });

  it('calls functions with rpc, as POST, GET and HEAD, with filters on sets', async () => {
    expect((await anon.rpc('add_numbers', { a: 20, b: 22 })).data).toBe(42);
    expect((await anon.rpc('add_numbers', { a: 1 }, { get: true })).data).toBe(2);
    const posts = await anon.rpc('search_posts', { q: 'engine' }).select('id').order('id', { ascending: false });
    expect(posts.data).toEqual([{ id: 2 }, { id: 1 }]);
    const counted = await anon.rpc('search_posts', { q: 'engine' }, { count: 'exact', head: true });
    expect(counted.count).toBe(2);
    const user = client(project.keys.anon_key, userToken(project, USER));
    const defaulted = await user.from('todos').insert([{ task: 'one' }, { task: 'two', done: true }], { defaultToNull: false });
    expect(defaulted.error).toBeNull();
    expect((await user.rpc('my_todo_count', { only_open: true })).data).toBe(1);
    expect((await user.from('todos').select('task').order('task')).data).toEqual([{ task: 'one' }, { task: 'two' }]);
    expect((await anon.from('todos').select('task')).data).toEqual([]);
    const unknownArg = await anon.rpc('add_numbers', { x: 1 });
    expect(unknownArg.status).toBe(404);
    expect(unknownArg.error?.code).toBe('PGRST202');
    await admin.from('todos').delete().eq('user_id', USER);
  });
});

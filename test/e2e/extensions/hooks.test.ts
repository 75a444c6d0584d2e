import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestHost, TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, supabaseClient, userToken } from '../rest/http.js';
import { blogProject, sentEffects, superuser as superuserQuery } from '../../helpers/extension-project.js';

/**
 * Table hooks of a project's extension (test/fixtures/extensions/blog.ts.txt) through the data
 * API and supabase-js: they run in the request's transaction as the caller, under RLS.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
const ANN = '00000000-0000-0000-0000-0000000000a1';
const BOB = '00000000-0000-0000-0000-0000000000b2';
let ann: string;
let bob: string;

/** A query as the superuser, past RLS and hooks. */
function superuser<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
  return superuserQuery<R>(host, project, sql);
}

/** The outbox as the database holds it: `event` per row. */
async function outbox(): Promise<string[]> {
  return (await superuser<{ event: string }>('SELECT event FROM public.outbox ORDER BY id')).map((r) => r.event);
}

beforeAll(async () => {
  ({ host, project } = await blogProject());
  call = restCaller(project);
  ann = userToken(project, ANN);
  bob = userToken(project, BOB);
});
afterAll(() => host?.close());
beforeEach(() => {
  sentEffects().length = 0;
});

describe('table hooks', () => {
  it('beforeInsert changes the row before it is written (the slug from the title)', async () => {
    const res = await call('/posts?select=title,slug,status', { method: 'POST', token: ann, body: { title: 'Hello, World!', slug: '' }, headers: { Prefer: 'return=representation' } });
    expect([res.status, res.json]).toEqual([201, [{ title: 'Hello, World!', slug: 'hello-world', status: 'draft', url: '/posts/hello-world' }]]);
  });

  it('a thrown ExtensionError is the answer: status, code, message, details; nothing is written', async () => {
    const empty = await call('/posts', { method: 'POST', token: ann, body: { title: '  ', slug: 'x' } });
    expect([empty.status, empty.json]).toEqual([422, errorBody('title_required', 'A post needs a title')]);
    const patch = await call('/posts?slug=eq.hello-world', { method: 'PATCH', token: ann, body: { slug: 'other' } });
    expect([patch.status, patch.json]).toEqual([400, errorBody('slug_immutable', 'A slug cannot change')]);
    expect((await call('/posts?select=slug&order=slug', { token: ann })).json).toEqual([{ slug: 'hello-world', url: '/posts/hello-world' }]);
  });

  it("a hook's own query obeys row-level security: Bob does not see Ann's slug, Ann does", async () => {
    const again = await call('/posts', { method: 'POST', token: ann, body: { title: 'Hello world', slug: '' } });
    expect([again.status, again.json]).toEqual([409, errorBody('slug_taken', 'The slug "hello-world" is taken', ['hello-world'])]);
    const bobs = await call('/posts?select=slug', { method: 'POST', token: bob, body: { title: 'Hello world', slug: '' }, headers: { Prefer: 'return=representation' } });
    expect([bobs.status, bobs.json]).toEqual([201, [{ slug: 'hello-world', url: '/posts/hello-world' }]]);
  });

  it('afterWrite writes the outbox in the same transaction; afterCommit runs after COMMIT only', async () => {
    const res = await call('/posts', { method: 'POST', token: ann, body: [{ title: 'One', slug: '' }, { title: 'Two', slug: '' }], headers: { Prefer: 'return=minimal' } });
    expect(res.status).toBe(201);
    expect(sentEffects()).toEqual(['insert:one', 'insert:two']);
    // Two rows where one was demanded: the data API rolls back, and with it the outbox rows; no effect runs.
    sentEffects().length = 0;
    const singular = await call('/posts', { method: 'POST', token: ann, body: [{ title: 'Three', slug: '' }, { title: 'Four', slug: '' }], headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect([singular.status, (singular.json as { code: string }).code]).toEqual([406, 'PGRST116']);
    expect(sentEffects()).toEqual([]);
    expect(await outbox()).toEqual(['insert', 'insert', 'insert', 'insert']);
  });

  it('afterRead reshapes what a read returns, also through supabase-js', async () => {
    const { data, error } = await supabaseClient(project, ann).from('posts').select('slug').eq('slug', 'one').single();
    expect(error).toBeNull();
    expect(data).toEqual({ slug: 'one', url: '/posts/one' });
  });

  it('a table without hooks keeps the plain path', async () => {
    const res = await call('/notes?select=body', { method: 'POST', token: ann, body: { body: 'plain' }, headers: { Prefer: 'return=representation' } });
    expect([res.status, res.json]).toEqual([201, [{ body: 'plain' }]]);
    expect(sentEffects()).toEqual([]);
  });
});

describe('afterRead wherever rows of the table are shown', () => {
  const embedded = { slug: 'embedded', url: '/posts/embedded' };

  beforeAll(async () => {
    await superuser(`
      INSERT INTO public.blogs VALUES (1, 'Ann writes');
      WITH p AS (INSERT INTO public.posts (owner, title, slug, blog_id) VALUES ('${ANN}', 'Embedded', 'embedded', 1) RETURNING id)
      INSERT INTO public.comments (post_id, body) SELECT id, 'first!' FROM p`);
  });

  it('runs on a to-one embed, per row; RLS still decides which rows there are', async () => {
    const path = '/comments?select=body,posts(slug)&order=id';
    expect((await call(path, { token: ann })).json).toEqual([{ body: 'first!', posts: embedded }]);
    expect((await call(path, { token: bob })).json).toEqual([{ body: 'first!', posts: null }]);
    const { data, error } = await supabaseClient(project, ann).from('comments').select('body, posts(slug)');
    expect([error, data]).toEqual([null, [{ body: 'first!', posts: embedded }]]);
  });

  it('runs on a to-many embed, its own embeds kept', async () => {
    const res = await call('/blogs?select=name,posts(slug,comments(body))', { token: ann });
    expect([res.status, res.json]).toEqual([200, [{ name: 'Ann writes', posts: [{ slug: 'embedded', comments: [{ body: 'first!' }], url: '/posts/embedded' }] }]]);
  });

  it('runs on the rows a function returns, over GET and POST', async () => {
    const get = await call('/rpc/my_posts?select=slug&slug=eq.embedded', { token: ann });
    expect([get.status, get.json]).toEqual([200, [embedded]]);
    const post = await call('/rpc/my_posts?select=slug&slug=eq.embedded', { method: 'POST', token: ann, body: {} });
    expect([post.status, post.json]).toEqual([200, [embedded]]);
  });

  it("runs on a write's representation with the table embedded", async () => {
    const res = await call('/comments?select=body,posts(slug)', {
      method: 'POST', token: ann, body: { post_id: (await superuser<{ id: string }>(`SELECT id FROM public.posts WHERE slug = 'embedded'`))[0]!.id, body: 'second' },
      headers: { Prefer: 'return=representation' },
    });
    expect([res.status, res.json]).toEqual([201, [{ body: 'second', posts: embedded }]]);
  });

  it("runs a read's hooks after it, their queries in a read-only transaction of the caller's", async () => {
    const read = '/blogs?select=id,name&id=eq.1';
    expect((await call(read, { token: ann })).json).toEqual([{ id: 1, name: 'Ann writes', visible_posts: 1 }]);
    expect((await call(read, { token: bob })).json).toEqual([{ id: 1, name: 'Ann writes', visible_posts: 0 }]);
    expect((await call(read)).json).toEqual([{ id: 1, name: 'Ann writes', visible_posts: 0 }]);
    // Both hooks of one body, the inner one (posts) first; a singular Accept still gets one object.
    const one = await call('/blogs?select=id,posts(slug)&id=eq.1', { token: ann, headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect([one.status, one.json]).toEqual([200, { id: 1, posts: [embedded], visible_posts: 1 }]);
  });

  it("answers a read hook's error, and its failed query, as any error; the connection stays usable", async () => {
    await superuser(`INSERT INTO public.blogs VALUES (2, 'refused'), (3, 'broken'), (4, 'buggy')`);
    const refused = await call('/blogs?select=name&id=eq.2', { token: ann });
    expect([refused.status, refused.json]).toEqual([451, errorBody('blog_withheld', 'This blog is withheld')]);
    const broken = await call('/blogs?select=name&id=eq.3', { token: ann });
    expect([broken.status, (broken.json as { code: string }).code]).toEqual([400, '22012']);
    // A query that names a column the schema lacks is the hook's bug: 500, nothing of the schema told.
    const buggy = await call('/blogs?select=name&id=eq.4', { token: ann });
    expect([buggy.status, buggy.json]).toEqual([500, errorBody('PGRSTX00', 'Internal server error')]);
    // Every transaction those hooks opened was ended: far more reads than pooled connections still go through.
    const reads = await Promise.all(Array.from({ length: 30 }, () => call('/blogs?select=id,name&id=eq.1', { token: ann })));
    expect(reads.map((r) => r.status)).toEqual(Array.from({ length: 30 }, () => 200));
    for (let i = 0; i < 12; i += 1) expect((await call('/blogs?select=name&id=eq.3', { token: ann })).status).toBe(400);
    expect((await call('/blogs?select=id,name&id=eq.1', { token: ann })).json).toEqual([{ id: 1, name: 'Ann writes', visible_posts: 1 }]);
  });

  it('refuses to spread the table (400 PGRST127) and to answer its rows in CSV (406 PGRST107)', async () => {
    const spread = await call('/comments?select=body,...posts(slug)', { token: ann });
    expect([spread.status, spread.json]).toEqual([400, errorBody('PGRST127', 'Feature not implemented',
      "'public.posts' has an afterRead hook, which cannot see spread rows", "Embed 'posts' without the spread.")]);
    const csv = await call('/comments?select=body,posts(slug)', { token: ann, headers: { Accept: 'text/csv' } });
    expect([csv.status, csv.json]).toEqual([406, errorBody('PGRST107', 'None of these media types are available: text/csv',
      'The rows have an afterRead hook, which takes JSON rows.')]);
    // A spread of a table without hooks stays available.
    const plain = await call('/posts?select=slug,...comments(note:body)&slug=eq.embedded&comments.body=eq.first!', { token: ann });
    expect([plain.status, plain.json]).toEqual([200, [{ slug: 'embedded', note: ['first!'], url: '/posts/embedded' }]]);
  });
});

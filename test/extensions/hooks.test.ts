import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestHost, TestProject } from '../helpers/platform.js';
import { errorBody, restCaller, supabaseClient, userToken } from '../e2e/rest/http.js';
import { blogProject, sentEffects } from './project.js';

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

/** The outbox as the database holds it (read as the superuser, past RLS): `event` per row. */
async function outbox(): Promise<string[]> {
  const client = new pg.Client(host.platform.cluster.urlFor(project.record.databaseName));
  await client.connect();
  try {
    return (await client.query<{ event: string }>('SELECT event FROM public.outbox ORDER BY id')).rows.map((r) => r.event);
  } finally {
    await client.end();
  }
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

import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, demoSchemaSql, repoRoot, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { compileStrict } from '../../helpers/typescript.js';

/**
 * A frontend team's view: the generated `api.d.ts` (openapi-fetch) and
 * `database.types.ts` (supabase-js) type small client programs that compile under the
 * repository's strict settings, and those programs then run against the live project.
 * The programs live under test-output/ so they resolve packages from node_modules.
 */

const OPENAPI_CLIENT = `
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api.js';

type Author = components['schemas']['authors'];

export async function run(projectUrl: string, anonKey: string, email: string) {
  const client = createClient<paths, 'application/json'>({ baseUrl: projectUrl, headers: { apikey: anonKey } });

  const authors = await client.GET('/rest/v1/authors', { params: { query: { select: 'id,name,bio', order: 'id.asc', limit: 2 } } });
  if (authors.error) throw new Error(authors.error.message);
  const first: Author | undefined = authors.data[0];
  const names: string[] = authors.data.map((author) => author.name);

  const sum = await client.POST('/rest/v1/rpc/add_numbers', { body: { a: 40, b: 2 } });
  const total: number | null | undefined = sum.data;

  const signUp = await client.POST('/auth/v1/signup', { body: { email, password: 'typed-secret-1' } });
  if (signUp.error) throw new Error(JSON.stringify(signUp.error));
  const token = await client.POST('/auth/v1/token', {
    params: { query: { grant_type: 'password' } },
    body: { email, password: 'typed-secret-1' },
  });
  if (token.error) throw new Error(JSON.stringify(token.error));
  const bearer = { Authorization: \`Bearer \${token.data.access_token}\` };
  const created = await client.POST('/rest/v1/todos', { body: { task: 'typed insert' }, headers: bearer });
  if (created.error) throw new Error(created.error.message);
  const mine = await client.GET('/rest/v1/todos', { params: { query: { select: 'task,done,user_id' } }, headers: bearer });
  if (mine.error) throw new Error(mine.error.message);

  return {
    firstId: first?.id,
    names,
    total,
    createdStatus: created.response.status,
    todos: mine.data.map((todo) => ({ task: todo.task, done: todo.done, mine: todo.user_id === token.data.user.id })),
  };
}

/** Never called: each line must fail to compile. */
export function typeErrors(client: Client<paths, 'application/json'>) {
  // @ts-expect-error: not a path of this project
  void client.GET('/rest/v1/no_such_table');
  // @ts-expect-error: a is an integer
  void client.POST('/rest/v1/rpc/add_numbers', { body: { a: 'forty' } });
  // @ts-expect-error: title is required on insert
  void client.POST('/rest/v1/posts', { body: { author_id: 1 } });
  const insert: components['schemas']['posts.Insert'] = { author_id: 1, title: 't' };
  // @ts-expect-error: a generated column is not part of the Insert type
  void insert.search;
}
`;

const SUPABASE_CLIENT = `
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Database } from './database.types.js';

export async function run(projectUrl: string, anonKey: string, email: string) {
  const supabase = createClient<Database>(projectUrl, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });

  const posts = await supabase.from('posts').select('id, title, status, authors(name)').eq('status', 'published').order('id').limit(2);
  if (posts.error) throw new Error(posts.error.message);
  const titles: string[] = posts.data.map((post) => post.title);
  const authorNames: (string | undefined)[] = posts.data.map((post) => post.authors?.name);

  const sum = await supabase.rpc('add_numbers', { a: 1 });
  if (sum.error) throw new Error(sum.error.message);
  const total: number = sum.data;

  const signUp = await supabase.auth.signUp({ email, password: 'typed-secret-2' });
  if (signUp.error) throw new Error(signUp.error.message);
  const inserted = await supabase.from('todos').insert({ task: 'from supabase-js' }).select('id, task, done').single();
  if (inserted.error) throw new Error(inserted.error.message);
  const done: boolean = inserted.data.done;

  return { titles, authorNames, total, task: inserted.data.task, done };
}

/** Never called: each line must fail to compile. */
export function typeErrors(supabase: SupabaseClient<Database>) {
  // @ts-expect-error: not a column of todos
  void supabase.from('todos').insert({ task: 'x', colour: 'red' });
}
`;

let test: TestHost;
let project: TestProject;
let dir: string;

beforeAll(async () => {
  test = await startTestHost();
  const demo = await demoSchemaSql();
  project = await createTestProject(test.platform, { sql: demo, host: test.host, generate: true, autoconfirm: true });
  await test.host.directory.reload(project.record.ref);
  dir = path.join(repoRoot, 'test-output', 'typed-clients', project.record.ref);
  await fs.mkdir(dir, { recursive: true });
  const generated = path.join(test.platform.config.generatedDir, project.record.ref);
  for (const file of ['api.d.ts', 'database.types.ts']) await fs.copyFile(path.join(generated, file), path.join(dir, file));
  await fs.writeFile(path.join(dir, 'openapi-client.ts'), OPENAPI_CLIENT);
  await fs.writeFile(path.join(dir, 'supabase-client.ts'), SUPABASE_CLIENT);
}, 120_000);

afterAll(async () => {
  await test?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('typed clients from the generated types', () => {
  it('compile under the strict tsconfig, wrong uses included as expected errors', () => {
    expect(compileStrict([path.join(dir, 'openapi-client.ts'), path.join(dir, 'supabase-client.ts')])).toEqual([]);
  }, 120_000);

  it('openapi-fetch with api.d.ts reads, calls a function, signs in and writes against the live project', async () => {
    const { run } = (await import(path.join(dir, 'openapi-client.ts'))) as { run: (url: string, key: string, email: string) => Promise<unknown> };
    expect(await run(project.url, project.keys.anon_key, `openapi-${project.record.ref}@example.com`)).toEqual({
      firstId: 1,
      names: ['Ada Lovelace', 'Alan Turing'],
      total: 42,
      createdStatus: 201,
      todos: [{ task: 'typed insert', done: false, mine: true }],
    });
  });

  it('supabase-js with createClient<Database> reads, embeds, calls a function and writes as a signed-in user', async () => {
    const { run } = (await import(path.join(dir, 'supabase-client.ts'))) as { run: (url: string, key: string, email: string) => Promise<unknown> };
    expect(await run(project.url, project.keys.anon_key, `supabase-${project.record.ref}@example.com`)).toEqual({
      titles: ['Notes on the Analytical Engine', 'Bernoulli numbers'],
      authorNames: ['Ada Lovelace', 'Ada Lovelace'],
      total: 2,
      task: 'from supabase-js',
      done: false,
    });
  });
});

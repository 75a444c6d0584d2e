import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, readGenerated, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { compileWithTypes } from '../../helpers/typescript.js';
import { errorBody, restCaller, supabaseClient, userToken } from './http.js';

/**
 * Functions with unnamed parameters (test/fixtures/schemas/rest-functions.sql) over raw HTTP
 * and through supabase-js: the key "", raw bodies, which functions are exposed (API, OpenAPI,
 * database.types.ts, api.d.ts), row-level security inside them, and a repeated embed name.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
const ANN = '00000000-0000-0000-0000-0000000000a1';
const BEN = '00000000-0000-0000-0000-0000000000b1';

const client = (token?: string) => supabaseClient(project, token);

const generated = (file: string): Promise<string> => readGenerated(host.platform, project, file);

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-functions.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

const NOT_EXPOSED_INTEGER = errorBody(
  'PGRST202',
  'Could not find the function public.polymorphic_function_with_unnamed_integer() in the schema cache',
  'Searched for the function public.polymorphic_function_with_unnamed_integer with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
  'Perhaps you meant to call the function public.polymorphic_function_with_unnamed_text',
);
const AMBIGUOUS_MAYBE = errorBody(
  'PGRST203',
  'Could not choose the best candidate function between: public.maybe(), public.maybe( => text)',
  null,
  'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
);

describe('unnamed parameters over HTTP', () => {
  it('reads the key "" as the unnamed parameter: the (text) overload gets the whole body, as PostgREST', async () => {
    const text = await call('/rpc/poly', { method: 'POST', body: '{"": "test"}' });
    expect([text.status, text.json]).toEqual([200, 'text: {"": "test"}']);
    expect((await call('/rpc/poly', { method: 'POST', body: { x: 1, y: 2 } })).json).toBe(3);
    expect((await call('/rpc/poly?=test')).json).toBe('text: {"":"test"}');
    // A text/plain body names no parameter: it falls back to the (text) overload.
    expect((await call('/rpc/poly', { method: 'POST', body: 'raw', headers: { 'Content-Type': 'text/plain' } })).json).toBe('text: raw');
  });

  it('passes raw bodies to a single unnamed text, xml or bytea parameter by Content-Type', async () => {
    const post = (fn: string, body: string | Uint8Array, type: string) => call(`/rpc/${fn}`, { method: 'POST', body, headers: { 'Content-Type': type } });
    expect((await post('echo_text', 'plain, "quoted" {text}', 'text/plain')).json).toBe('plain, "quoted" {text}');
    expect((await post('echo_xml', '<note><to>Ada</to></note>', 'text/xml')).json).toBe('<note><to>Ada</to></note>');
    const bytes = Uint8Array.from([0xff, 0x00, 0x80, 0x41]);
    expect((await post('byte_length', bytes, 'application/octet-stream')).json).toBe(4);
    expect((await post('echo_bytea', bytes, 'application/octet-stream')).json).toBe('\\xff008041');
    expect((await call('/rpc/echo_json', { method: 'POST', body: { any: ['thing', 1] } })).json).toEqual({ any: ['thing', 1] });
    const badXml = await post('echo_xml', '<', 'text/xml');
    expect([badXml.status, (badXml.json as { code: string }).code]).toEqual([400, '2200N']);
    const noText = await post('echo_json', 'x', 'text/plain');
    expect([noText.status, noText.json]).toEqual([404, errorBody('PGRST202', 'Could not find the function public.echo_json in the schema cache',
      'Searched for the function public.echo_json with a single unnamed text parameter, but no matches were found in the schema cache.')]);
    const noBytea = await post('echo_text', bytes, 'application/octet-stream');
    expect([noBytea.status, noBytea.json]).toEqual([404, errorBody('PGRST202', 'Could not find the function public.echo_text in the schema cache',
      'Searched for the function public.echo_text with a single unnamed bytea parameter, but no matches were found in the schema cache.')]);
  });

  it('refuses a function that is not exposed with PGRST202 and its hint by name, and ambiguous ones with PGRST203', async () => {
    const integer = await call('/rpc/polymorphic_function_with_unnamed_integer', { method: 'POST', body: { '': 1 } });
    expect([integer.status, integer.json]).toEqual([404, NOT_EXPOSED_INTEGER]);
    const labelled = await call('/rpc/labelled', { method: 'POST', body: { a: 1, '': 'x' } });
    expect([labelled.status, (labelled.json as { code: string }).code]).toEqual([404, 'PGRST202']);
    const pair = await call('/rpc/pair', { method: 'POST', body: {} });
    expect([pair.status, (pair.json as { message: string }).message])
      .toEqual([404, 'Could not find the function public.pair without parameters in the schema cache']);
    const either = await call('/rpc/either', { method: 'POST', body: { a: 1 } });
    expect([either.status, either.json]).toEqual([300, errorBody('PGRST203',
      'Could not choose the best candidate function between: public.either( => json), public.either( => jsonb)', null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved')]);
    const maybe = await call('/rpc/maybe', { method: 'POST', body: {} });
    expect([maybe.status, maybe.json]).toEqual([300, AMBIGUOUS_MAYBE]);
    expect((await call('/rpc/maybe', { method: 'POST', body: { '': 'given' } })).json).toBe('{"":"given"}');
  });

  it('keeps row-level security inside the function', async () => {
    const ann = userToken(project, ANN);
    const ben = userToken(project, BEN);
    const added = await call('/rpc/add_note', { method: 'POST', token: ann, body: { id: 1, body: 'ann: first' } });
    expect([added.status, added.json]).toEqual([200, { id: 1, owner: ANN, body: 'ann: first' }]);
    expect((await call('/rpc/add_note', { method: 'POST', token: ben, body: { id: 2, body: 'ben: first' } })).status).toBe(200);
    const anon = await call('/rpc/add_note', { method: 'POST', body: { id: 3, body: 'anon' } });
    expect([anon.status, (anon.json as { code: string }).code]).toEqual([403, '42501']);
    const mine = await call('/rpc/notes_like?select=body', { method: 'POST', token: ann, body: '%first', headers: { 'Content-Type': 'text/plain' } });
    expect(mine.json).toEqual([{ body: 'ann: first' }]);
  });

  it('refuses two embeds of one name with 400 42712, and takes them under two aliases', async () => {
    const twice = await call('/authors?select=id,books(id),books(title)');
    expect([twice.status, twice.json]).toEqual([400, errorBody('42712', 'table name "authors_books_1" specified more than once')]);
    const nested = await call('/books?select=id,authors(books(id),books(title))');
    expect([nested.status, nested.json]).toEqual([400, errorBody('42712', 'table name "authors_books_2" specified more than once')]);
    const aliased = await call('/authors?select=id,first:books(id),all:books(title)&id=eq.2');
    expect(aliased.json).toEqual([{ id: 2, first: [{ id: 3 }], all: [{ title: 'Compilers' }] }]);
  });
});

describe('unnamed parameters through supabase-js', () => {
  it('calls .rpc(f, { "": value }) on the (text) overload, by POST and GET', async () => {
    const anon = client();
    const post = await anon.rpc('poly', { '': 'test' });
    expect([post.error, post.data]).toEqual([null, 'text: {"":"test"}']);
    expect((await anon.rpc('poly', { '': 'test' }, { get: true })).data).toBe('text: {"":"test"}');
    expect((await anon.rpc('poly', { x: 40, y: 2 })).data).toBe(42);
    expect((await anon.rpc('polymorphic_function_with_unnamed_json', { '': { test: 'value' } })).data).toBe(1);
    expect((await anon.rpc('polymorphic_function_with_unnamed_text', { '': 'test' })).data).toBe(1);
  });

  it('gets PostgREST\'s errors for a function that is not exposed and for ambiguous overloads', async () => {
    const anon = client();
    const integer = await anon.rpc('polymorphic_function_with_unnamed_integer', { '': 1 });
    expect([integer.status, integer.error]).toEqual([404, NOT_EXPOSED_INTEGER]);
    const maybe = await anon.rpc('maybe');
    expect([maybe.status, maybe.error]).toEqual([300, AMBIGUOUS_MAYBE]);
    const twice = await anon.from('authors').select('id, books(id), books(title)');
    expect([twice.status, twice.error]).toEqual([400, errorBody('42712', 'table name "authors_books_1" specified more than once')]);
  });

  it('keeps row-level security inside the function', async () => {
    const ann = client(userToken(project, ANN));
    const added = await ann.rpc('add_note', { id: 10, body: 'ann: second' });
    expect([added.error, added.data]).toEqual([null, { id: 10, owner: ANN, body: 'ann: second' }]);
    const ben = client(userToken(project, BEN));
    const notes = await ben.rpc('notes_like', { '': '%' });
    expect([notes.error, notes.data]).toEqual([null, []]);
  });
});

describe('which functions the generated code exposes', () => {
  const exposed = ['byte_length', 'echo_bytea', 'echo_json', 'echo_text', 'echo_xml', 'either', 'maybe', 'poly',
    'polymorphic_function_with_unnamed_json', 'polymorphic_function_with_unnamed_jsonb', 'polymorphic_function_with_unnamed_text'];
  const hidden = ['labelled', 'pair', 'polymorphic_function_with_unnamed_integer'];

  it('lists only callable functions in openapi.json, with raw bodies by media type', async () => {
    const document = JSON.parse(await generated('openapi.json')) as { paths: Record<string, { post?: { requestBody?: { content: Record<string, unknown> } } }> };
    for (const name of exposed) expect(document.paths[`/rest/v1/rpc/${name}`], name).toBeDefined();
    for (const name of hidden) expect(document.paths[`/rest/v1/rpc/${name}`], name).toBeUndefined();
    expect(Object.keys(document.paths['/rest/v1/rpc/echo_bytea']?.post?.requestBody?.content ?? {}).sort())
      .toEqual(['application/json', 'application/octet-stream']);
    expect(Object.keys(document.paths['/rest/v1/rpc/poly']?.post?.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'text/plain']);
  });

  it('types an unnamed parameter as Args: { "": T } in database.types.ts and leaves the others out of it and api.d.ts', async () => {
    const types = await generated('database.types.ts');
    expect(types).toContain('echo_text: {\n        Args: {\n          "": string;\n        };\n        Returns: string;\n      };');
    expect(types).toContain('      poly:\n      | {\n        Args: {\n          "": string;\n        };\n        Returns: string;\n      }\n'
      + '      | {\n        Args: {\n          x: number;\n          y: number;\n        };\n        Returns: number;\n      };');
    const api = await generated('api.d.ts');
    for (const name of exposed) expect(types, name).toContain(`      ${name}:`);
    for (const name of hidden) {
      expect(types, name).not.toContain(`${name}:`);
      expect(api, name).not.toContain(`/rpc/${name}"`);
    }
    expect(api).toContain('"/rest/v1/rpc/poly"');
  });

  it('lets supabase-js type .rpc(f, { "": value }) from database.types.ts, and refuses functions that are not exposed', async () => {
    expect(await compileWithTypes('typed-functions', await generated('database.types.ts'), TYPED_CLIENT)).toEqual([]);
  }, 120_000);
});

const TYPED_CLIENT = `
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from './database.types.js';

export async function typed(supabase: SupabaseClient<Database>) {
  const text: string | null = (await supabase.rpc('poly', { '': 'x' })).data;
  const sum: number | null = (await supabase.rpc('poly', { x: 1, y: 2 })).data;
  const bytes: number | null = (await supabase.rpc('byte_length', { '': '\\\\x00' })).data;
  // @ts-expect-error: an unnamed int parameter is not exposed
  void supabase.rpc('polymorphic_function_with_unnamed_integer', { '': 1 });
  // @ts-expect-error: a named and an unnamed parameter are not exposed
  void supabase.rpc('labelled', { a: 1, '': 'x' });
  return { text, sum, bytes };
}
`;

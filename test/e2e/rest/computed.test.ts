import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileWithTypes } from '../../helpers/typescript.js';
import { createTestProject, fixtureSchema, readGenerated, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, supabaseClient, userToken } from './http.js';

/**
 * Computed fields and computed relationships (test/fixtures/schemas/rest-computed.sql) over raw
 * HTTP and supabase-js, with PostgREST's bodies and error codes; row-level security inside the
 * functions; their entries in database.types.ts as \`supabase gen types\` writes them.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
const ANN = '00000000-0000-0000-0000-0000000000a1';

const client = (token?: string) => supabaseClient(project, token);

const generated = (file: string): Promise<string> => readGenerated(host.platform, project, file);

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-computed.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

describe('computed fields', () => {
  it('selects them by name only, never with *', async () => {
    const res = await call('/messages?select=id,blurb_message,message_length&order=id');
    expect([res.status, res.json]).toEqual([200, [
      { id: 1, blurb_message: 'hel', message_length: 11 },
      { id: 3, blurb_message: 'ran', message_length: 11 },
    ]]);
    expect((await call('/messages?select=*&id=eq.1')).json).toEqual([{ id: 1, channel_id: 1, author: null, message: 'hello world' }]);
  });

  it('filters and orders by them, with aliases and casts', async () => {
    const res = await call('/messages?select=id,short:blurb_message,len:message_length::text&blurb_message=eq.ran');
    expect(res.json).toEqual([{ id: 3, short: 'ran', len: '11' }]);
    const ordered = await call('/channels?select=id,slug_upper&order=slug_upper.desc');
    expect(ordered.json).toEqual([{ id: 2, slug_upper: 'RANDOM' }, { id: 1, slug_upper: 'GENERAL' }, { id: 3, slug_upper: 'ARCHIVE' }]);
    const fts = await call('/messages?select=id&blurb_message=in.(hel,xyz)');
    expect(fts.json).toEqual([{ id: 1 }]);
  });

  it('works in embeds and on RPC-like results of the table type', async () => {
    const res = await call('/channels?select=id,messages(id,blurb_message)&id=eq.1');
    expect(res.json).toEqual([{ id: 1, messages: [{ id: 1, blurb_message: 'hel' }] }]);
    const inserted = await call('/channels?select=id,slug_upper', {
      method: 'POST', body: { id: 9, slug: 'new' }, headers: { Prefer: 'return=representation', 'Content-Profile': 'public' },
      token: userToken(project, ANN, { role: 'service_role' }),
    });
    expect([inserted.status, inserted.json]).toEqual([201, [{ id: 9, slug_upper: 'NEW' }]]);
    await call('/channels?id=eq.9', { method: 'DELETE', token: userToken(project, ANN, { role: 'service_role' }) });
  });

  it('are read-only properties of the row in the OpenAPI document, not required (select=* leaves them out)', async () => {
    const doc = JSON.parse(await generated('openapi.json')) as {
      components: { schemas: Record<string, { required: string[]; properties: Record<string, Record<string, unknown>> }> };
    };
    const row = doc.components.schemas.messages!;
    expect(row.properties.blurb_message).toMatchObject({ type: ['string', 'null'], readOnly: true, 'x-pg-type': 'text' });
    expect(row.properties.blurb_message!.description).toContain('Computed field: `public.blurb_message(messages)`');
    expect(row.required).not.toContain('blurb_message');
    expect(doc.components.schemas['messages.Insert']?.properties).not.toHaveProperty('blurb_message');
  });

  it('answers 42703 for a name that is neither a column nor a computed field', async () => {
    const res = await call('/messages?select=id,nope');
    expect([res.status, res.json]).toEqual([400, errorBody('42703', 'column messages.nope does not exist')]);
    const filter = await call('/messages?nope=eq.1');
    expect([filter.status, filter.json]).toEqual([400, errorBody('42703', 'column messages.nope does not exist')]);
  });
});

describe('computed relationships', () => {
  it('embeds a to-many function with fields, filters, order and nesting', async () => {
    const res = await call('/channels?select=id,all_messages:get_messages(id,blurb_message,channel_of(slug))&all_messages.order=id.desc&order=id');
    expect([res.status, res.json]).toEqual([200, [
      { id: 1, all_messages: [{ id: 1, blurb_message: 'hel', channel_of: { slug: 'general' } }] },
      { id: 2, all_messages: [{ id: 3, blurb_message: 'ran', channel_of: { slug: 'random' } }] },
      { id: 3, all_messages: [] },
    ]]);
    const filtered = await call('/channels?select=id,get_messages!inner(id)&get_messages.message=like.random*');
    expect(filtered.json).toEqual([{ id: 2, get_messages: [{ id: 3 }] }]);
  });

  it('embeds ROWS 1 and single-row functions as objects', async () => {
    const res = await call('/messages?select=id,channel_of(id,slug)&id=eq.3');
    expect(res.json).toEqual([{ id: 3, channel_of: { id: 2, slug: 'random' } }]);
    const latest = await call('/channels?select=id,latest_message(id)&id=in.(1,2)&order=id');
    expect(latest.json).toEqual([{ id: 1, latest_message: { id: 1 } }, { id: 2, latest_message: { id: 3 } }]);
  });

  it('works on views: view row in, view or table out', async () => {
    const res = await call('/active_channels?select=id,get_messages(id),siblings(id)&order=id');
    expect(res.json).toEqual([
      { id: 1, get_messages: [{ id: 1 }], siblings: [{ id: 2 }] },
      { id: 2, get_messages: [{ id: 3 }], siblings: [{ id: 1 }] },
    ]);
  });

  it('shadows the foreign-key relationship of the same name', async () => {
    const res = await call('/messages?select=id,channels(id)&id=eq.1');
    expect(res.json).toEqual([{ id: 1, channels: { id: 2 } }]);
  });

  it('runs as the caller: row-level security applies inside', async () => {
    const anon = await call('/channels?select=id,get_messages(id)&id=eq.1');
    expect(anon.json).toEqual([{ id: 1, get_messages: [{ id: 1 }] }]);
    const ann = await call('/channels?select=id,get_messages(id)&id=eq.1', { token: userToken(project, ANN) });
    expect(ann.json).toEqual([{ id: 1, get_messages: [{ id: 1 }, { id: 2 }] }]);
  });

  it('is still PGRST200 for an unknown name, with the function among the suggestions', async () => {
    const res = await call('/channels?select=id,get_message(*)');
    expect([res.status, res.json]).toEqual([400, errorBody(
      'PGRST200',
      "Could not find a relationship between 'channels' and 'get_message' in the schema cache",
      "Searched for a foreign key relationship between 'channels' and 'get_message' in the schema 'public', but no matches were found.",
      "Perhaps you meant 'get_messages' instead of 'get_message'.",
    )]);
  });
});

describe('through supabase-js', () => {
  it('selects computed fields and embeds computed relationships', async () => {
    const { data, error, status } = await client(userToken(project, ANN))
      .from('channels').select('id, slug_upper, get_messages(id, blurb_message), latest_message(id)').eq('id', 1);
    expect([status, error]).toEqual([200, null]);
    expect(data).toEqual([{ id: 1, slug_upper: 'GENERAL', get_messages: [{ id: 1, blurb_message: 'hel' }, { id: 2, blurb_message: 'sec' }], latest_message: { id: 2 } }]);
    const missing = await client().from('channels').select('id, nope(*)');
    expect([missing.status, missing.error?.code]).toEqual([400, 'PGRST200']);
    const column = await client().from('messages').select('id, nope');
    expect([column.status, column.error?.code]).toEqual([400, '42703']);
  });

  it('types them from database.types.ts as supabase gen types does', async () => {
    const types = await generated('database.types.ts');
    expect(types).toContain('          blurb_message: string | null;\n');
    expect(types).toContain('        SetofOptions: {\n          from: "channels";\n          to: "messages";\n          isOneToOne: false;\n          isSetofReturn: true;\n        };');
    expect(types).toContain('        SetofOptions: {\n          from: "messages";\n          to: "channels";\n          isOneToOne: true;\n          isSetofReturn: true;\n        };');
    expect(await compileWithTypes('typed-computed', types, TYPED_CLIENT)).toEqual([]);
  }, 120_000);
});

const TYPED_CLIENT = `
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from './database.types.js';

export async function typed(supabase: SupabaseClient<Database>) {
  const { data } = await supabase.from('channels').select('id, get_messages(id, message), channel_of:latest_message(id)').single();
  if (!data) return null;
  const ids: number[] = data.get_messages.map((m) => m.id);
  const blurbs = await supabase.from('messages').select('id, blurb_message, channel_of(slug)').single();
  const blurb: string | null | undefined = blurbs.data?.blurb_message;
  const slug: string | undefined = blurbs.data?.channel_of?.slug;
  return { ids, blurb, slug };
}
`;

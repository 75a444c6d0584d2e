import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, readGenerated, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';

/**
 * Domain representations (PostgREST 11+, test/fixtures/schemas/rest-domain-representations.sql): a
 * domain's cast to `json` formats its columns on output, its cast from `text` reads filter values.
 * Expected answers are PostgREST's (QuerySpec "data representations").
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-domain-representations.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

describe('output', () => {
  it('formats a selected column through the domain cast to json (null through the function too)', async () => {
    const res = await call('/datarep_todos?select=id,label_color&id=lt.5&order=id');
    expect([res.status, res.json]).toEqual([200, [
      { id: 1, label_color: '#000000' }, { id: 2, label_color: '#000100' }, { id: 3, label_color: '#01E240' }, { id: 4, label_color: '' },
    ]]);
  });

  it('formats star select', async () => {
    const res = await call('/datarep_todos?select=*&id=eq.3');
    expect([res.status, res.json]).toEqual([200, [{ id: 3, name: 'Algebra', label_color: '#01E240' }]]);
  });
});

describe('filters', () => {
  it('reads eq and in values through the domain cast from text', async () => {
    const eq = await call('/datarep_todos?select=id&label_color=eq.000100');
    expect([eq.status, eq.json]).toEqual([200, [{ id: 2 }]]);
    const list = await call('/datarep_todos?select=id&label_color=in.(000100,01E240)&order=id');
    expect([list.status, list.json]).toEqual([200, [{ id: 2 }, { id: 3 }]]);
  });
});

describe('what PostgREST leaves to the stored value', () => {
  it('reads each element of a quantified list through the cast from text (PostgREST casts the whole list literal)', async () => {
    const any = await call('/datarep_todos?select=id&label_color=eq(any).{000100,01E240}&order=id');
    expect([any.status, any.json]).toEqual([200, [{ id: 2 }, { id: 3 }]]);
    const all = await call('/datarep_todos?select=id&label_color=gt(all).{000000,0000FF}&order=id');
    expect([all.status, all.json]).toEqual([200, [{ id: 2 }, { id: 3 }]]);
  });

  it('compares a like/ilike pattern and fts with the stored value: 42883 for a domain over integer (QuerySpec)', async () => {
    const ilike = await call('/datarep_todos?select=id,name&label_color=ilike.%23*100');
    expect([ilike.status, ilike.json]).toEqual([404, {
      code: '42883', message: 'operator does not exist: color ~~* unknown', details: null,
      hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
    }]);
    const fts = await call('/datarep_todos?select=id&label_color=fts.x');
    expect([fts.status, (fts.json as { code: string; message: string }).message]).toEqual([404, 'function to_tsvector(color) does not exist']);
  });

  it('orders by the stored value', async () => {
    const res = await call('/datarep_todos?select=id,label_color&id=lt.5&order=label_color.desc.nullslast');
    expect([res.status, res.json]).toEqual([200, [
      { id: 3, label_color: '#01E240' }, { id: 2, label_color: '#000100' }, { id: 1, label_color: '#000000' }, { id: 4, label_color: '' },
    ]]);
  });

  it('writes CSV of the json representation, as PostgREST (its output representation is json for every media type)', async () => {
    const res = await call('/datarep_todos?select=id,label_color&id=lt.4&order=id', { headers: { Accept: 'text/csv' } });
    expect([res.status, res.text]).toEqual([200, 'id,label_color\n1,"""#000000"""\n2,"""#000100"""\n3,"""#01E240"""']);
  });

  it('formats the rows of a function returning the table, but not a function argument or a scalar result of the domain', async () => {
    const rows = await call('/rpc/datarep_todos_by_ids?ids={1,3}&select=id,label_color');
    expect([rows.status, rows.json]).toEqual([200, [{ id: 1, label_color: '#000000' }, { id: 3, label_color: '#01E240' }]]);
    const scalar = await call('/rpc/datarep_color_plus?c=000100&n=1');
    expect([scalar.status, scalar.json]).toEqual([200, 101]);
    const body = await call('/rpc/datarep_color_plus', { method: 'POST', body: { c: 256, n: 1 } });
    expect([body.status, body.json]).toEqual([200, 257]);
    const represented = await call('/rpc/datarep_color_plus', { method: 'POST', body: { c: '#000100', n: 1 } });
    expect([represented.status, (represented.json as { code: string }).code]).toEqual([400, '22P02']);
  });
});

describe('input', () => {
  it('parses a POST body value through the domain cast from json (InsertSpec)', async () => {
    const res = await call('/datarep_todos?select=id,label_color', {
      method: 'POST', headers: { prefer: 'return=representation' }, body: { id: 5, name: 'party', label_color: '#001100' },
    });
    expect([res.status, res.json]).toEqual([201, [{ id: 5, label_color: '#001100' }]]);
    const bulk = await call('/datarep_todos?select=id,name,label_color', {
      method: 'POST', headers: { prefer: 'return=representation' }, body: [{ id: 6, name: 'a', label_color: '#000010' }, { id: 7, name: 'b', label_color: null }],
    });
    expect([bulk.status, bulk.json]).toEqual([201, [{ id: 6, name: 'a', label_color: '#000010' }, { id: 7, name: 'b', label_color: '' }]]);
  });

  it('parses a PATCH body value through the domain cast from json (UpdateSpec)', async () => {
    const res = await call('/datarep_todos?id=eq.2&select=id,label_color', {
      method: 'PATCH', headers: { prefer: 'return=representation' }, body: { label_color: '#221100' },
    });
    expect([res.status, res.json]).toEqual([200, [{ id: 2, label_color: '#221100' }]]);
  });
});

describe('domain defaults under Prefer: missing=default (InsertSpec)', () => {
  const prefer = { Prefer: 'return=representation, missing=default' };

  it("inserts the domain's default into a column without its own", async () => {
    const res = await call('/evil_friends?columns=id,name', { method: 'POST', headers: prefer, body: { name: 'Lu' } });
    expect([res.status, res.headers.get('preference-applied'), res.json]).toEqual([201, 'missing=default, return=representation', [{ id: 666, name: 'Lu' }]]);
    const bulk = await call('/evil_friends?columns=id,name', { method: 'POST', headers: prefer, body: [{ name: 'a' }, { id: 1, name: 'b' }] });
    expect([bulk.status, bulk.json]).toEqual([201, [{ id: 666, name: 'a' }, { id: 1, name: 'b' }]]);
  });

  it('inserts a column default before the domain default', async () => {
    const res = await call('/evil_friends_with_column_default?columns=id,name', { method: 'POST', headers: prefer, body: { name: 'Demon' } });
    expect([res.status, res.json]).toEqual([201, [{ id: 420, name: 'Demon' }]]);
  });

  it('leaves the key missing without missing=default: NULL, as PostgREST', async () => {
    const res = await call('/evil_friends?columns=id,name', { method: 'POST', headers: { Prefer: 'return=representation' }, body: { name: 'Nil' } });
    expect([res.status, res.json]).toEqual([201, [{ id: null, name: 'Nil' }]]);
  });
});

describe('embedded and explicit reads', () => {
  it('formats the columns of an embed', async () => {
    const res = await call('/datarep_next_two_todos?select=id,first_item:datarep_todos!first_item_id(label_color)&id=eq.1');
    expect([res.status, res.json]).toEqual([200, [{ id: 1, first_item: { label_color: '#01E240' } }]]);
  });

  it('formats and allows rename (QuerySpec)', async () => {
    // Row 2 was patched above: rows 1 and 3 are PostgREST's.
    const res = await call('/datarep_todos?select=id,clr:label_color&id=in.(1,3)&order=id');
    expect([res.status, res.json]).toEqual([200, [{ id: 1, clr: '#000000' }, { id: 3, clr: '#01E240' }]]);
  });

  it('formats, renames and allows manual casting on top: the cast applies to the json representation (QuerySpec)', async () => {
    const cast = await call('/datarep_todos?select=id,clr:label_color::text&id=in.(1,3)&order=id');
    expect([cast.status, cast.json]).toEqual([200, [{ id: 1, clr: '"#000000"' }, { id: 3, clr: '"#01E240"' }]]);
  });

  it('fails in some reasonable way when selecting fields that do not exist (QuerySpec)', async () => {
    const res = await call('/datarep_todos?select=id,label_color,banana');
    expect([res.status, res.json]).toEqual([400, { code: '42703', details: null, hint: null, message: 'column datarep_todos.banana does not exist' }]);
  });
});

describe('generated code', () => {
  it('types the column as the domain base type in database.types.ts and carries the casts in the metadata', async () => {
    const types = await readGenerated(host.platform, project, 'database.types.ts');
    expect(types).toMatch(/datarep_todos: \{\n {8}Row: \{\n {10}id: number;\n {10}label_color: number \| null;/);
    const table = await readGenerated(host.platform, project, 'tables/datarep_todos.ts');
    expect(table.replace(/\s+/g, '')).toContain('representation:{fromJson:{schema:"public",name:"color"},fromText:{schema:"public",name:"color"},toJson:{schema:"public",name:"json"}}');
  });
});

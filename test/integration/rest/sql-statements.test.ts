import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ApiError } from '../../../runtime/rest/errors.js';
import { parseRequest } from '../../../runtime/rest/parse/request.js';
import { buildStatement } from '../../../runtime/rest/sql/build.js';
import type { ResultRow } from '../../../runtime/rest/sql/envelope.js';
import { plannedRowsFromExplain } from '../../../runtime/rest/sql/statement.js';
import { META } from '../../helpers/rest-fixture-meta.js';

/**
 * The statements of the SQL builder run against real PostgreSQL: every shape the unit tests
 * pin down as text must also be valid SQL giving PostgREST's bodies. Each case runs in a
 * transaction that is rolled back.
 */

const SEED = `
insert into directors values (1, 'Sofia', 'Coppola'), (2, 'Wim', 'Wenders');
insert into films values
  (1, 1, 'Lost in Translation', 2003, '{drama,tokyo}', '{"author":{"name":"x"},"n":1}', '{"a":1}', to_tsvector('english', 'lost in translation'), '[1,10)'),
  (2, 2, 'Paris, Texas', 1984, '{drama}', '{"author":{"name":"y"},"n":2}', '{"a":2}', to_tsvector('english', 'paris texas'), '[5,20)'),
  (3, null, 'Orphan', 2000, null, null, null, null, null);
insert into actors values (1, 'Bill', 'Murray'), (2, 'Scarlett', 'Johansson'), (3, 'Harry', 'Stanton');
insert into roles values (1, 1, 'Bob'), (1, 2, 'Charlotte'), (2, 3, 'Travis');
insert into addresses values (1, 'home'), (2, 'work');
insert into orders (name, billing_address_id, shipping_address_id) values ('o1', 1, 2);
insert into employees (name, manager_id) values ('boss', null), ('e1', 1), ('e2', 1);
`;

let admin: pg.Client;
let client: pg.Client;
const database = `rest_sql_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  const url = inject('databaseUrl');
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const u = new URL(url);
  u.pathname = `/${database}`;
  client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  await client.query(await fs.readFile(path.join(import.meta.dirname, '../../unit/rest/fixture-schema.sql'), 'utf8'));
  await client.query(SEED);
});

afterAll(async () => {
  await client?.end();
  await admin?.query(`drop database if exists ${database}`);
  await admin?.end();
});

interface Call {
  readonly rpc?: boolean;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

async function run(method: string, target: string, query: string, call: Call = {}): Promise<ResultRow & { json: unknown }> {
  const req = parseRequest({
    method, resource: { kind: call.rpc ? 'rpc' : 'table', name: target }, query, headers: call.headers ?? {}, body: call.body ?? null, schemas: ['public'],
  });
  const st = buildStatement(req, META);
  await client.query('begin');
  try {
    const { rows } = await client.query<ResultRow>({ name: st.name, text: st.text, values: [...st.values] });
    const row = rows[0] as ResultRow;
    return { ...row, json: row.body === null || req.media.kind === 'csv' ? row.body : JSON.parse(row.body) };
  } finally {
    await client.query('rollback');
  }
}

async function pgError(method: string, target: string, query: string, call: Call = {}): Promise<string> {
  try {
    await run(method, target, query, call);
  } catch (err) {
    if (err instanceof ApiError) return `api ${err.code}`;
    return (err as { code: string }).code;
  }
  throw new Error('expected an error');
}

describe('reads', () => {
  it('selects, filters, orders and paginates with an exact count', async () => {
    const r = await run('GET', 'films', 'select=id,title&year=gt.1990&order=id.desc&limit=1&offset=1', { headers: { prefer: 'count=exact' } });
    expect(r).toMatchObject({ total_count: '2', page_count: '1', json: [{ id: 1, title: 'Lost in Translation' }] });
  });

  it('embeds to-one, to-many, many-to-many, nested, with embedded filters and !inner', async () => {
    expect((await run('GET', 'films', 'select=title,directors(last_name)&order=id')).json).toEqual([
      { title: 'Lost in Translation', directors: { last_name: 'Coppola' } },
      { title: 'Paris, Texas', directors: { last_name: 'Wenders' } },
      { title: 'Orphan', directors: null },
    ]);
    expect((await run('GET', 'directors', 'select=last_name,films(title,actors(first_name))&films.actors.order=first_name.desc&order=id')).json).toEqual([
      { last_name: 'Coppola', films: [{ title: 'Lost in Translation', actors: [{ first_name: 'Scarlett' }, { first_name: 'Bill' }] }] },
      { last_name: 'Wenders', films: [{ title: 'Paris, Texas', actors: [{ first_name: 'Harry' }] }] },
    ]);
    const inner = await run('GET', 'films', 'select=title,actors!inner(first_name)&actors.first_name=eq.Bill', { headers: { prefer: 'count=exact' } });
    expect(inner).toMatchObject({ total_count: '1', json: [{ title: 'Lost in Translation', actors: [{ first_name: 'Bill' }] }] });
    expect((await run('GET', 'films', 'select=id,roles()&roles=is.null')).json).toEqual([{ id: 3 }]);
    expect((await run('GET', 'films', 'select=id,directors()&directors=not.is.null&order=id')).json).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('spreads, aliases, casts, JSON paths and related orders', async () => {
    expect((await run('GET', 'films', 'select=t:title,...directors(dl:last_name),y:year::text,author:meta->author->>name&order=directors(dl).desc.nullslast&limit=2')).json)
      .toEqual([
        { t: 'Paris, Texas', dl: 'Wenders', y: '1984', author: 'y' },
        { t: 'Lost in Translation', dl: 'Coppola', y: '2003', author: 'x' },
      ]);
    expect((await run('GET', 'directors', 'select=last_name,...films(titles:title)&order=id')).json).toEqual([
      { last_name: 'Coppola', titles: ['Lost in Translation'] }, { last_name: 'Wenders', titles: ['Paris, Texas'] },
    ]);
    expect((await run('GET', 'employees', 'select=name,manager_id(name),employees(name)&order=id&limit=2')).json).toEqual([
      { name: 'boss', manager_id: null, employees: [{ name: 'e1' }, { name: 'e2' }] },
      { name: 'e1', manager_id: { name: 'boss' }, employees: [] },
    ]);
  });

  it('applies every operator family', async () => {
    const ids = async (q: string) => ((await run('GET', 'films', `select=id&order=id&${q}`)).json as { id: number }[]).map((r) => r.id);
    expect(await ids('title=like.*Trans*')).toEqual([1]);
    expect(await ids('title=ilike(any).{*texas,orph*}')).toEqual([2, 3]);
    expect(await ids('title=imatch.^paris')).toEqual([2]);
    expect(await ids('id=in.(1,3)')).toEqual([1, 3]);
    expect(await ids('id=in.()')).toEqual([]);
    expect(await ids('director_id=is.null')).toEqual([3]);
    expect(await ids('director_id=isdistinct.1')).toEqual([2, 3]);
    expect(await ids('tags=cs.{drama}&tags=ov.{tokyo,x}')).toEqual([1]);
    expect(await ids('duration=adj.[10,15)')).toEqual([1]);
    expect(await ids('duration=sl.[30,40)')).toEqual([1, 2]);
    expect(await ids('search=fts(english).translation')).toEqual([1]);
    expect(await ids('title=wfts.paris')).toEqual([2]);
    expect(await ids('meta->>n=eq.2')).toEqual([2]);
    expect(await ids('doc->a=gt.1')).toEqual([2]);
    expect(await ids('meta=cs.{"n":1}')).toEqual([1]);
    expect(await ids('or=(year.lt.1990,and(title.like.*Tr*,year.not.is.null))')).toEqual([1, 2]);
    expect(await ids('not.or=(id.eq.1,id.eq.2)')).toEqual([3]);
  });

  it('counts estimated (capped) and planned (EXPLAIN)', async () => {
    expect((await run('GET', 'films', 'select=id', { headers: { prefer: 'count=estimated' } })).total_count).toBe('3');
    const req = parseRequest({ method: 'GET', resource: { kind: 'table', name: 'films' }, query: 'select=id,meta->>n&year=gt.1&count=planned', headers: {}, body: null, schemas: ['public'] });
    const st = buildStatement(req, META);
    const { rows } = await client.query(st.plannedCount?.text ?? '', [...(st.plannedCount?.values ?? [])]);
    expect(plannedRowsFromExplain(rows[0]['QUERY PLAN'])).toBeGreaterThan(0);
  });

  it('builds singular, stripped and CSV bodies', async () => {
    expect((await run('GET', 'films', 'select=id,director_id&id=eq.3', { headers: { accept: 'application/vnd.pgrst.object+json;nulls=stripped' } })).json).toEqual({ id: 3 });
    expect((await run('GET', 'films', 'select=id,title&order=id', { headers: { accept: 'text/csv' } })).body)
      .toBe('id,title\n1,"Lost in Translation"\n2,"Paris, Texas"\n3,Orphan');
  });

  it('turns bad literals into PostgreSQL data errors, never syntax errors', async () => {
    expect(await pgError('GET', 'films', 'id=eq.abc')).toBe('22P02');
    expect((await run('GET', 'films', `title=eq.${encodeURIComponent("'); drop table films; --")}`)).json).toEqual([]);
  });
});

describe('writes', () => {
  it('inserts one or many rows and returns the representation with embeds', async () => {
    const r = await run('POST', 'films', 'select=id,title,directors(last_name)', { body: '{"id":10,"title":"New","director_id":1,"tags":["a"]}' });
    expect(r).toMatchObject({ total_count: '1', json: [{ id: 10, title: 'New', directors: { last_name: 'Coppola' } }] });
    expect((await run('POST', 'films', '', { body: '[]' })).json).toEqual([]);
  });

  it('upserts and reports inserted rows', async () => {
    const r = await run('POST', 'films', 'select=id,title', {
      body: '[{"id":1,"title":"merged"},{"id":20,"title":"new"}]', headers: { prefer: 'resolution=merge-duplicates' },
    });
    expect(r).toMatchObject({ total_count: '2', inserted_count: '1', json: [{ id: 1, title: 'merged' }, { id: 20, title: 'new' }] });
    const ignored = await run('POST', 'films', 'select=id', { body: '[{"id":1,"title":"x"},{"id":21,"title":"y"}]', headers: { prefer: 'resolution=ignore-duplicates' } });
    expect(ignored.json).toEqual([{ id: 21 }]);
  });

  it('fills defaults with missing=default, identity and serial included', async () => {
    expect((await run('POST', 'items', 'columns=name,qty&select=name,qty,total', { body: '[{"name":"x"},{"qty":5}]', headers: { prefer: 'missing=default' } })).json)
      .toEqual([{ name: 'x', qty: 1, total: 2 }, { name: 'unnamed', qty: 5, total: 10 }]);
    expect((await run('POST', 'orders', 'columns=id,name&select=name', { body: '[{"name":"a"},{"id":50,"name":"b"}]', headers: { prefer: 'missing=default' } })).json)
      .toEqual([{ name: 'a' }, { name: 'b' }]);
    expect((await run('POST', 'employees', 'columns=id,name&select=name', { body: '[{"name":"n"}]', headers: { prefer: 'missing=default' } })).json)
      .toEqual([{ name: 'n' }]);
    expect((await run('POST', 'items', 'select=name', { body: '[{},{}]' })).json).toEqual([{ name: 'unnamed' }, { name: 'unnamed' }]);
  });

  it('gives headers-only the key of the inserted row', async () => {
    expect((await run('POST', 'films', '', { body: '{"id":30,"title":"x"}', headers: { prefer: 'return=headers-only' } })).location).toBe('{"id":30}');
  });

  it('updates and deletes the filtered rows', async () => {
    expect((await run('PATCH', 'films', 'id=eq.1&select=id,title', { body: '{"title":"patched"}' })).json).toEqual([{ id: 1, title: 'patched' }]);
    expect((await run('PATCH', 'films', '', { body: '{}' })).json).toEqual([]);
    await client.query("insert into items (name, qty) values ('kept', 7)");
    expect((await run('PATCH', 'items', 'columns=name,qty&name=eq.kept&select=name,qty', { body: '{"qty":3}', headers: { prefer: 'missing=default' } })).json)
      .toEqual([{ name: 'unnamed', qty: 3 }]);
    expect(await run('DELETE', 'roles', '', { headers: { prefer: 'return=minimal' } })).toMatchObject({ total_count: '3', body: null });
    expect((await run('DELETE', 'roles', 'film_id=eq.1&select=character&order=character')).json).toEqual([{ character: 'Bob' }, { character: 'Charlotte' }]);
  });

  it('surfaces constraint errors with their SQLSTATE', async () => {
    expect(await pgError('POST', 'films', '', { body: '{"id":1,"title":"dup"}' })).toBe('23505');
    expect(await pgError('POST', 'films', '', { body: '{"id":99}' })).toBe('23502');
    expect(await pgError('POST', 'films', '', { body: '{"id":99,"title":"x","director_id":42}' })).toBe('23503');
  });
});

describe('rpc', () => {
  it('returns scalars, composites, sets and void as PostgREST shapes', async () => {
    expect((await run('POST', 'add_them', '', { rpc: true, body: '{"a":1,"b":2}' })).json).toBe(3);
    expect((await run('GET', 'add_them', 'a=40&b=2', { rpc: true })).json).toBe(42);
    expect((await run('POST', 'point', '', { rpc: true, body: '{"x":1,"y":2}' })).json).toEqual({ px: 1, py: 2 });
    expect((await run('GET', 'series', 'n=5&limit=2&offset=1', { rpc: true, headers: { prefer: 'count=exact' } })))
      .toMatchObject({ total_count: '5', json: [2, 3] });
    expect(await run('POST', 'nothing', '', { rpc: true })).toMatchObject({ body: null, page_count: '1' });
    expect((await run('POST', 'echo', '', { rpc: true, body: '[1,{"x":true}]' })).json).toEqual([1, { x: true }]);
    expect((await run('POST', 'defaults', '', { rpc: true, body: '{"a":1}' })).json).toBe(11);
    expect((await run('POST', 'greet', '', { rpc: true, body: 'you', headers: { 'content-type': 'text/plain' } })).json).toBe('hello you');
  });

  it('passes the whole body to a single unnamed parameter, chosen by the key "" or by the body\'s type', async () => {
    expect((await run('POST', 'poly', '', { rpc: true, body: '{"":"test"}' })).json).toBe('text: {"":"test"}');
    expect((await run('POST', 'poly', '', { rpc: true, body: '{"x":1,"y":2}' })).json).toBe(3);
    const bytes = Buffer.from([0, 1, 0xfe, 0xff]);
    const octet = { 'content-type': 'application/octet-stream' };
    expect((await run('POST', 'bin', '', { rpc: true, body: bytes, headers: octet })).json).toBe('\\x0001feff');
    expect((await run('POST', 'bin', '', { rpc: true, body: '{"":"é"}' })).json).toBe('\\x7b22223a22c3a9227d');
  });

  it('passes variadic arguments from GET repeats and JSON arrays', async () => {
    expect((await run('GET', 'var_sum', 'nums=1&nums=2&nums=3', { rpc: true })).json).toBe(6);
    expect((await run('GET', 'var_sum', 'nums=4', { rpc: true })).json).toBe(4);
    expect((await run('POST', 'var_sum', '', { rpc: true, body: '{"nums":[1,2]}' })).json).toBe(3);
  });

  it('selects, filters, embeds and counts on table-valued functions', async () => {
    const r = await run('GET', 'films_by_year', 'y=2003&select=title,directors(last_name)&id=gt.0', { rpc: true, headers: { prefer: 'count=exact' } });
    expect(r).toMatchObject({ total_count: '1', json: [{ title: 'Lost in Translation', directors: { last_name: 'Coppola' } }] });
  });
});

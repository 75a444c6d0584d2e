import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../../runtime/tokens/jwt.js';
import { createTestProject, repoRoot, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, userToken, type ApiResponse } from './http.js';

/**
 * The data API over HTTP against a second schema (test/fixtures/schemas/rest-shop.sql): what
 * SQL sees of the request, arrays, ranges and JSON, PostgREST's quoting, hints and self
 * relations, composite keys, and functions of every result shape and error kind.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
let service: string;
const ANN = '00000000-0000-0000-0000-0000000000a1';
const BEN = '00000000-0000-0000-0000-0000000000b1';

beforeAll(async () => {
  host = await startTestHost();
  const sql = await fs.readFile(path.join(repoRoot, 'test/fixtures/schemas/rest-shop.sql'), 'utf8');
  project = await createTestProject(host.platform, { host: host.host, sql, generate: true });
  call = restCaller(project);
  service = project.keys.service_key;
});
afterAll(() => host?.close());

function ok(res: ApiResponse): unknown {
  expect(res.status, res.text).toBeLessThan(300);
  return res.json;
}

async function ids(table: string, query: string): Promise<number[]> {
  const res = await call(`/${table}?select=id&order=id&${query}`);
  return (ok(res) as { id: number }[]).map((r) => r.id);
}

describe('the request as SQL sees it', () => {
  it('sets role, request.jwt.claims, request.method, request.path and request.headers', async () => {
    const token = userToken(project, ANN);
    const get = await call('/rpc/request_info', { token, headers: { 'X-Probe': 'seen' } });
    expect(get.json).toEqual({
      role: 'authenticated', method: 'GET', path: '/rpc/request_info', probe: 'seen', sub: ANN,
      claim_role: 'authenticated', uid: ANN, auth_role: 'authenticated', read_only: 'on',
    });
    const post = await call('/rpc/request_info', { method: 'POST', body: {} });
    expect(post.json).toEqual({
      role: 'anon', method: 'POST', path: '/rpc/request_info', probe: null, sub: null,
      claim_role: 'anon', uid: null, auth_role: 'anon', read_only: 'on',
    });
  });

  it('isolates two users and limits anon to what its policy allows', async () => {
    const ann = userToken(project, ANN);
    const ben = userToken(project, BEN);
    const mixed = [{ body: 'ann private' }, { body: 'ann public', public: true }];
    expect((await call('/notes', { method: 'POST', token: ann, body: mixed })).json).toEqual(errorBody('PGRST102', 'All object keys must match'));
    const inserted = await call('/notes?columns=body,public', { method: 'POST', token: ann, headers: { Prefer: 'missing=default' }, body: mixed });
    expect(inserted.status).toBe(201);
    expect((await call('/notes', { method: 'POST', token: ben, body: { body: 'ben private' } })).status).toBe(201);
    expect(await call('/notes?select=body&order=id', { token: ann }).then(ok)).toEqual([{ body: 'ann private' }, { body: 'ann public' }]);
    expect(await call('/notes?select=body', { token: ben }).then(ok)).toEqual([{ body: 'ben private' }]);
    expect(await call('/notes?select=body').then(ok)).toEqual([{ body: 'ann public' }]);
    expect(await call('/notes?select=body&order=id', { token: service }).then(ok)).toHaveLength(3);
    expect((await call('/rpc/my_note_count', { token: ann })).json).toBe(2);
    const anonWrite = await call('/notes', { method: 'POST', body: { body: 'anon' } });
    expect(anonWrite.status).toBe(403);
    expect(anonWrite.json).toEqual(errorBody('42501', 'new row violates row-level security policy for table "notes"'));
  });
});

describe('operators on arrays, ranges and JSON', () => {
  it('applies array, range and JSON operators', async () => {
    expect(await ids('customers', 'tags=cs.{vip}')).toEqual([1]);
    expect(await ids('customers', 'tags=cd.{vip,early,x}')).toEqual([1, 2, 3]);
    expect(await ids('customers', 'tags=ov.{early,none}')).toEqual([1, 2]);
    expect(await ids('customers', 'tags=eq.{early}')).toEqual([2]);
    expect(await ids('customers', 'vip=sl.[20,25)')).toEqual([1, 2]);
    expect(await ids('customers', 'vip=sr.[20,25)')).toEqual([3]);
    expect(await ids('customers', 'vip=nxr.[0,15)')).toEqual([1]);
    expect(await ids('customers', 'vip=nxl.[4,15)')).toEqual([2, 3]);
    expect(await ids('customers', 'vip=adj.[10,12)')).toEqual([1]);
    expect(await ids('customers', 'vip=ov.[8,9)')).toEqual([1, 2]);
    expect(await ids('customers', 'vip=cs.[6,7]')).toEqual([1, 2]);
    expect(await ids('customers', 'settings->>theme=eq.dark')).toEqual([1]);
    expect(await ids('customers', 'profile->address->>city=eq.London')).toEqual([1]);
    expect(await ids('customers', 'profile=cs.{"tier":"gold"}')).toEqual([1, 4]);
    expect(await ids('customers', 'email=is.null')).toEqual([3]);
    expect(await ids('customers', 'email=like.*@example.com&name=like.*.*')).toEqual([4]);
    expect(await call('/customers?select=id,profile->address->city,settings->theme&id=eq.1').then(ok))
      .toEqual([{ id: 1, city: 'London', theme: 'dark' }]);
  });

  it('reads and filters keys with non-reserved special characters, and fails on a reserved one as PostgREST (JsonOperatorSpec)', async () => {
    const special = encodeURIComponent('!@#$%^&*_');
    const selected = await call(`/json_arr?id=eq.10&select=data->${special}d->>${special}e::integer`);
    expect([selected.status, selected.json]).toEqual([200, [{ '!@#$%^&*_e': 3 }]]);
    const filtered = await call(`/json_arr?select=data->${special}d&data->${special}d->>${special}e=eq.3`);
    expect([filtered.status, filtered.json]).toEqual([200, [{ '!@#$%^&*_d': { '!@#$%^&*_e': 3 } }]]);
    const reserved = await call(`/json_arr?id=eq.10&select=data->(${special}d->>${special}e::integer`);
    expect([reserved.status, reserved.json]).toEqual([400, errorBody(
      'PGRST100',
      '"failed to parse select parameter (data->(!@#$%^&*_d->>!@#$%^&*_e::integer)" (line 1, column 7)',
      'unexpected "(" expecting "-", digit or any non reserved character different from: .,>()',
    )]);
  });

  it('fails as PostgreSQL does, 404 42883, when a double arrow ->> is followed by a single arrow -> (JsonOperatorSpec)', async () => {
    const hint = 'No operator matches the given name and argument types. You might need to add explicit type casts.';
    const index = await call('/json_arr?select=data->>c->1');
    expect([index.status, index.json]).toEqual([404, errorBody('42883', 'operator does not exist: text -> integer', null, hint)]);
    const key = await call('/json_arr?select=data->>c->b');
    expect([key.status, key.json]).toEqual([404, errorBody('42883', 'operator does not exist: text -> unknown', null, hint)]);
  });

  it("follows PostgREST's quoting for commas, dots, parentheses and quotes", async () => {
    expect(await ids('customers', 'name=eq.Lovelace, Ada (Countess)')).toEqual([2]);
    expect(await ids('customers', `name=in.(${encodeURIComponent('"Lovelace, Ada (Countess)"')},dot.name)`)).toEqual([2, 4]);
    expect(await ids('customers', `or=(${encodeURIComponent('name.eq."Bob \\"the builder\\""')},id.eq.1)`)).toEqual([1, 3]);
    expect(await ids('customers', 'or=(name.eq."dot.name",name.eq."Lovelace, Ada (Countess)")')).toEqual([2, 4]);
    expect(await ids('customers', 'and=(tags.cs.{vip,early},vip.adj."[10,20)")')).toEqual([1]);
    expect(await ids('customers', 'name=eq.Robert%3B DROP TABLE customers')).toEqual([]);
    const odd = await call(`/${encodeURIComponent('odd names')}?select=${encodeURIComponent('"x,y","Mixed Case",b:"a.b"')}&${encodeURIComponent('"x,y"')}=eq.2`);
    expect(odd.json).toEqual([{ 'x,y': 2, 'Mixed Case': 'second', b: 'b' }]);
  });
});

describe('Content-Location (QuerySpec "Canonical location")', () => {
  it('answers a read with its canonical location: the parameters sorted by name, no question mark without any', async () => {
    const read = await call('/customers?name=eq.x&id=eq.1&select=id');
    expect([read.status, read.headers.get('content-location')]).toEqual([200, '/customers?id=eq.1&name=eq.x&select=id']);
    const bare = await call('/counters', { method: 'HEAD', token: service });
    expect([bare.status, bare.headers.get('content-location')]).toEqual([200, '/counters']);
    // The api key in the query string stays out of it; calls and writes carry none, as PostgREST.
    const keyed = await call(`/customers?select=id&apikey=${project.keys.anon_key}&id=eq.1`, { apikey: null });
    expect([keyed.status, keyed.headers.get('content-location')]).toEqual([200, '/customers?id=eq.1&select=id']);
    expect((await call('/rpc/numbers?n=1')).headers.get('content-location')).toBeNull();
    expect((await call('/counters?name=eq.none', { method: 'DELETE', token: service })).headers.get('content-location')).toBeNull();
  });
});

describe('embedding', () => {
  it('disambiguates two foreign keys to one table by hint, and refuses without one', async () => {
    expect(await call('/orders?select=id,billing:addresses!billing(city),shipping:addresses!shipping(city)&id=eq.1').then(ok))
      .toEqual([{ id: 1, billing: { city: 'London' }, shipping: { city: 'Paris' } }]);
    expect(await call('/addresses?select=city,orders!shipping_address_id(id)&id=eq.2').then(ok)).toEqual([{ city: 'Paris', orders: [{ id: 1 }] }]);
    const ambiguous = await call('/orders?select=id,addresses(city)');
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.json).toEqual({
      code: 'PGRST201',
      message: "Could not embed because more than one relationship was found for 'orders' and 'addresses'",
      details: expect.arrayContaining([expect.objectContaining({ cardinality: 'many-to-one', embedding: 'orders with addresses' })]),
      hint: "Try changing 'addresses' to one of the following: 'addresses!billing', 'addresses!shipping'. Find the desired relationship in the 'details' key.",
    });
    const none = await call('/products?select=id,customers(id)');
    expect(none.status).toBe(400);
    expect((none.json as { code: string }).code).toBe('PGRST200');
  });

  it('embeds a self relation both ways and a many-to-many through a junction', async () => {
    expect(await call('/employees?select=name,manager:manager_id(name),reports:employees(name)&id=eq.2&reports.order=name').then(ok))
      .toEqual([{ name: 'ann', manager: { name: 'boss' }, reports: [{ name: 'cat' }] }]);
    expect(await call('/orders?select=id,products(name)&products.order=name&order=id&limit=2').then(ok))
      .toEqual([{ id: 1, products: [{ name: 'ink' }, { name: 'pen' }] }, { id: 2, products: [{ name: 'paper' }] }]);
    expect(await call('/orders?select=id,order_items(qty,products(name))&id=eq.2').then(ok))
      .toEqual([{ id: 2, order_items: [{ qty: 10, products: { name: 'paper' } }] }]);
    expect(await call('/customers?select=name,...orders(totals:total)&id=eq.1&orders.order=id').then(ok))
      .toEqual([{ name: 'Ada', totals: [10.5, 99] }]);
    const filtered = await call('/customers?select=id,orders!inner(status)&orders.status=eq.paid&order=id');
    expect(filtered.json).toEqual([{ id: 1, orders: [{ status: 'paid' }] }, { id: 2, orders: [{ status: 'paid' }] }]);
    const unknownEmbedFilter = await call('/customers?select=id&orders.status=eq.paid');
    expect(unknownEmbedFilter.status).toBe(400);
    expect(unknownEmbedFilter.json).toEqual(errorBody('PGRST108', "'orders' is not an embedded resource in this request", null,
      "Verify that 'orders' is included in the 'select' query parameter."));
  });
});

describe('writes on composite keys, unique keys and whole tables', () => {
  it('answers return=headers-only on a view with a Location of the key it takes from its table, as PostgREST', async () => {
    const res = await call('/shelves', { method: 'POST', token: service, headers: { Prefer: 'return=headers-only' }, body: { aisle: 3, slot: 'b 2', item: 'tea' } });
    expect([res.status, res.headers.get('location'), res.headers.get('content-type'), res.text]).toEqual([201, '/shelves?slot=eq.b%202&aisle=eq.3', null, '']);
    expect(await call('/shelves?slot=eq.b%202&aisle=eq.3', { token: service }).then(ok)).toEqual([{ item: 'tea', slot: 'b 2', aisle: 3 }]);
  });

  it('answers return=headers-only with a Location of every key column', async () => {
    const res = await call('/order_items', { method: 'POST', token: service, headers: { Prefer: 'return=headers-only' }, body: { order_id: 3, product_id: 3 } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/order_items?order_id=eq.3&product_id=eq.3');
    const row = await call('/order_items?order_id=eq.3&product_id=eq.3&select=qty', { token: service });
    expect(row.json).toEqual([{ qty: 1 }]);
    await call('/order_items?order_id=eq.3&product_id=eq.3', { method: 'DELETE', token: service });
  });

  it('upserts on a unique column with on_conflict', async () => {
    const res = await call('/customers?on_conflict=email&select=id,name,email', {
      method: 'POST', token: service, headers: { Prefer: 'resolution=merge-duplicates' },
      body: [{ id: 4, email: 'dot@example.com', name: 'dot renamed' }, { id: 5, email: 'new@example.com', name: 'new' }],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toBe('resolution=merge-duplicates');
    expect(res.json).toEqual([{ id: 4, name: 'dot renamed', email: 'dot@example.com' }, { id: 5, name: 'new', email: 'new@example.com' }]);
    await call('/customers?id=eq.5', { method: 'DELETE', token: service });
    await call('/customers?id=eq.4', { method: 'PATCH', token: service, body: { name: 'dot.name' } });
  });

  it('answers an upsert of no rows 200 and an insert of no rows 201, both [] (PostgREST\'s UpsertSpec, InsertSpec)', async () => {
    const upsert = await call('/customers', { method: 'POST', token: service, headers: { Prefer: 'return=representation, resolution=merge-duplicates' }, body: [] });
    expect([upsert.status, upsert.headers.get('content-type'), upsert.json]).toEqual([200, 'application/json; charset=utf-8', []]);
    const insert = await call('/customers', { method: 'POST', token: service, headers: { Prefer: 'return=representation' }, body: [] });
    expect([insert.status, insert.json]).toEqual([201, []]);
    const ignore = await call('/customers', { method: 'POST', token: service, headers: { Prefer: 'return=representation, resolution=ignore-duplicates' }, body: [] });
    expect([ignore.status, ignore.json]).toEqual([201, []]);
  });

  it('takes only the ?columns= keys of an insert or update and ignores the rest (InsertSpec, UpdateSpec)', async () => {
    const prefer = { Prefer: 'return=representation' };
    const one = await call('/counters?columns=name,hits', {
      method: 'POST', token: service, headers: prefer, body: { name: 'c1', hits: 1, smth: 'here', other: 'stuff', fake_id: 13 },
    });
    expect([one.status, one.json]).toEqual([201, [{ name: 'c1', hits: 1 }]]);
    const many = await call('/counters?columns=name,hits&select=name,hits', {
      method: 'POST', token: service, headers: prefer,
      body: [{ name: 'c2', hits: 2, smth: 'here', fake_id: 13 }, { name: 'c3', hits: 3, garbage: '%%$&', kkk: 'jjj' }, { name: 'c4', hits: 4, hey: 'ho' }],
    });
    expect([many.status, many.json]).toEqual([201, [{ name: 'c2', hits: 2 }, { name: 'c3', hits: 3 }, { name: 'c4', hits: 4 }]]);
    const patched = await call('/counters?name=eq.c1&columns=hits', {
      method: 'PATCH', token: service, headers: prefer, body: { hits: 10, name: 'renamed', smth: 'here', other: 'stuff', fake_id: 13 },
    });
    expect([patched.status, patched.json]).toEqual([200, [{ name: 'c1', hits: 10 }]]);
    // Nothing matched: 200 with no rows, as PostgREST.
    const none = await call('/counters?name=eq.c2001&columns=hits', {
      method: 'PATCH', token: service, headers: prefer, body: { hits: 5, smth: 'here', other: 'stuff', fake_id: 13 },
    });
    expect([none.status, none.json]).toEqual([200, []]);
    const helicopter = errorBody('PGRST204', "Could not find the 'helicopter' column of 'counters' in the schema cache");
    const unknown = await call('/counters?name=eq.c1&columns=helicopter', { method: 'PATCH', token: service, headers: prefer, body: { hits: 1 } });
    expect([unknown.status, unknown.json]).toEqual([400, helicopter]);
    const unknownInsert = await call('/counters?columns=helicopter', { method: 'POST', token: service, body: [{ name: 'c7' }, { name: 'c8' }] });
    expect([unknownInsert.status, unknownInsert.json]).toEqual([400, helicopter]);
    const blank = await call('/counters?columns=', { method: 'POST', token: service, body: [{ name: 'c5' }] });
    expect([blank.status, blank.json]).toEqual([400, errorBody(
      'PGRST100', '"failed to parse columns parameter ()" (line 1, column 1)', 'unexpected end of input expecting field name (* or [a..z0..9_$])',
    )]);
    const notObjects = await call('/counters?columns=name,hits', { method: 'POST', token: service, body: [{ name: 'c6', hits: 1 }, 333, 'asdf'] });
    expect(notObjects.status).toBe(400);
    await call('/counters?name=like.c*', { method: 'DELETE', token: service });
  });

  it('PUT and PATCH without a filter update every row; DELETE without a filter deletes every row', async () => {
    await call('/counters', { method: 'POST', token: service, body: [{ name: 'a', hits: 1 }, { name: 'b', hits: 2 }] });
    const put = await call('/counters?select=name,hits&order=name', { method: 'PUT', token: service, body: { hits: 0 } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual([{ name: 'a', hits: 0 }, { name: 'b', hits: 0 }]);
    const strict = await call('/counters', { method: 'PATCH', token: service, headers: { Prefer: 'handling=strict, max-affected=1' }, body: { hits: 9 } });
    expect(strict.status).toBe(400);
    expect(strict.json).toEqual(errorBody('PGRST124', 'Query result exceeds max-affected preference constraint', 'The query affects 2 rows'));
    expect(await call('/counters?select=hits', { token: service }).then(ok)).toEqual([{ hits: 0 }, { hits: 0 }]);
    const gone = await call('/counters', { method: 'DELETE', token: service, headers: { Prefer: 'count=exact' } });
    expect(gone.status).toBe(200);
    expect(gone.headers.get('content-range')).toBe('*/2');
    expect(await call('/counters', { token: service }).then(ok)).toEqual([]);
  });

  it('takes CSV and form bodies, and rolls back with Prefer: tx=rollback', async () => {
    const csv = await call('/counters?select=name,hits', {
      method: 'POST', token: service, headers: { 'Content-Type': 'text/csv' }, body: 'name,hits\ncsv-a,1\n"csv,b",2',
    });
    expect(csv.status, csv.text).toBe(201);
    expect(csv.json).toEqual([{ name: 'csv-a', hits: 1 }, { name: 'csv,b', hits: 2 }]);
    const form = await call('/counters?select=name,hits', {
      method: 'POST', token: service, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'name=form+c&hits=3',
    });
    expect(form.json).toEqual([{ name: 'form c', hits: 3 }]);
    const rolled = await call('/counters?select=name', { method: 'POST', token: service, headers: { Prefer: 'tx=rollback' }, body: { name: 'never' } });
    expect(rolled.status).toBe(201);
    expect(rolled.json).toEqual([{ name: 'never' }]);
    expect(rolled.headers.get('preference-applied')).toBe('tx=rollback');
    expect(await call('/counters?select=name&order=name', { token: service }).then(ok)).toEqual([{ name: 'csv,b' }, { name: 'csv-a' }, { name: 'form c' }]);
    await call('/counters', { method: 'DELETE', token: service });
  });

  it('missing=default fills generated columns no row gives and refuses one a row gives with 400 428C9, as PostgREST', async () => {
    const prefer = { Prefer: 'return=representation, missing=default' };
    const filled = await call('/labels?columns=a,b', { method: 'POST', token: service, headers: prefer, body: [{ a: 'x' }] });
    expect([filled.status, filled.json]).toEqual([201, [{ a: 'x', b: 'X' }]]);
    const given = await call('/labels?columns=a,b', { method: 'POST', token: service, headers: prefer, body: [{ a: 'val' }, { a: 'val', b: 'val' }] });
    expect([given.status, given.json]).toEqual([400, errorBody('428C9', 'cannot insert a non-DEFAULT value into column "b"', 'Column "b" is a generated column.')]);
    const identity = await call('/notes?columns=id,body', { method: 'POST', token: service, headers: prefer, body: [{ id: 50, body: 'mine' }] });
    expect([identity.status, identity.json]).toEqual([400, errorBody('428C9', 'cannot insert a non-DEFAULT value into column "id"',
      'Column "id" is an identity column defined as GENERATED ALWAYS.', 'Use OVERRIDING SYSTEM VALUE to override.')]);
    await call('/labels', { method: 'DELETE', token: service });
  });

  it('names in Preference-Applied only the preferences the action applies, as PostgREST', async () => {
    const prefer = 'resolution=merge-duplicates, missing=default, return=minimal, handling=strict, max-affected=5';
    const read = await call('/counters?select=name', { token: service, headers: { Prefer: prefer } });
    expect([read.status, read.headers.get('preference-applied')]).toEqual([200, 'handling=strict']);
    const insert = await call('/counters', { method: 'POST', token: service, headers: { Prefer: prefer }, body: { name: 'applied', hits: 1 } });
    expect([insert.status, insert.headers.get('preference-applied')]).toEqual([201, 'resolution=merge-duplicates, missing=default, return=minimal, handling=strict']);
    // A table without a primary key and no on_conflict: resolution does not apply, so it is not named (UpsertSpec "no_pk").
    const noKey = await call('/labels?select=a', { method: 'POST', token: service, headers: { Prefer: 'return=representation, resolution=merge-duplicates' }, body: [{ a: 'k' }] });
    expect([noKey.status, noKey.headers.get('preference-applied'), noKey.json]).toEqual([201, 'return=representation', [{ a: 'k' }]]);
    await call('/labels?a=eq.k', { method: 'DELETE', token: service });
    const update = await call('/counters?name=eq.applied', { method: 'PATCH', token: service, headers: { Prefer: prefer }, body: { hits: 2 } });
    expect([update.status, update.headers.get('preference-applied')]).toEqual([204, 'missing=default, return=minimal, handling=strict, max-affected=5']);
    const lenient = 'missing=default, return=minimal, handling=lenient, max-affected=0';
    const remove = await call('/counters?name=eq.applied', { method: 'DELETE', token: service, headers: { Prefer: lenient } });
    expect([remove.status, remove.headers.get('preference-applied')]).toEqual([204, 'return=minimal, handling=lenient']);
    expect(await call('/counters', { token: service }).then(ok)).toEqual([]);
  });

  it('writes CSV as PostgREST: each row as PostgreSQL prints a record (t/f, quoted when needed, NULL empty)', async () => {
    const res = await call('/orders?select=id,total,cost:total::money,paid:customer_id::boolean,customers(name,email,tags,vip,profile)&customer_id=in.(2,1)&order=id.desc&limit=2', { token: service, headers: { Accept: 'text/csv' } });
    // PostgREST's SQL gives the same text: money as PostgreSQL prints it, an embed as its JSON, quoted and its quotes doubled.
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([200, 'text/csv; charset=utf-8', 'id,total,cost,paid,customers\n'
      + '3,5.25,$5.25,t,"{""name"":""Lovelace, Ada (Countess)"",""email"":""countess@example.com"",""tags"":[""early""],""vip"":""[5,20)"",""profile"":{""tier"": ""silver""}}"\n'
      + '2,99.00,$99.00,t,"{""name"":""Ada"",""email"":""ada@example.com"",""tags"":[""vip"",""early""],""vip"":""[1,10)"",""profile"":{""tier"": ""gold"", ""address"": {""city"": ""London""}}}"']);
    const plain = await call('/customers?select=id,name,email,tags,big:id::money,off:id::boolean&id=in.(2,3)&order=id', { token: service, headers: { Accept: 'text/csv' } });
    expect(plain.text).toBe('id,name,email,tags,big,off\n2,"Lovelace, Ada (Countess)",countess@example.com,{early},$2.00,t\n3,"Bob ""the builder""",,{},$3.00,t');
  });

  it('refuses a value of the wrong type with 400 22P02', async () => {
    const res = await call('/orders?id=eq.abc');
    expect(res.status).toBe(400);
    expect(res.json).toEqual(errorBody('22P02', 'invalid input syntax for type integer: "abc"'));
    const body = await call('/orders', { method: 'POST', token: service, body: { customer_id: 'x', total: 1 } });
    expect(body.status).toBe(400);
    expect((body.json as { code: string }).code).toBe('22P02');
    const check = await call('/orders', { method: 'POST', token: service, body: { customer_id: 1, total: -1 } });
    expect(check.status).toBe(400);
    expect(check.json).toEqual(errorBody('23514', 'new row for relation "orders" violates check constraint "orders_total_check"', expect.stringMatching(/^Failing row contains/)));
  });
});

describe('rpc', () => {
  it('returns scalars bare, composites as objects, sets as arrays, void as 204', async () => {
    expect((await call('/rpc/add?a=2')).json).toBe(12);
    expect((await call('/rpc/add', { method: 'POST', body: { a: 2, b: 3 } })).json).toBe(5);
    const composite = await call('/rpc/customer?cid=2&select=id,name');
    expect(composite.json).toEqual({ id: 2, name: 'Lovelace, Ada (Countess)' });
    const counted = await call('/rpc/add?a=1', { headers: { Prefer: 'count=exact' } });
    expect(counted.json).toBe(11);
    expect(counted.headers.get('content-range')).toBe('0-0/1');
    const set = await call('/rpc/numbers?n=3', { headers: { Prefer: 'count=exact' } });
    expect(set.json).toEqual([1, 2, 3]);
    expect(set.headers.get('content-range')).toBe('0-2/3');
    const page = await call('/rpc/numbers?n=3&limit=1&offset=1', { headers: { Prefer: 'count=exact' } });
    expect(page.status).toBe(206);
    expect(page.json).toEqual([2]);
    expect(page.headers.get('content-range')).toBe('1-1/3');
    expect((await call('/rpc/spend', { method: 'POST', body: {} })).json).toEqual([{ customer_id: 1, spent: 109.5 }, { customer_id: 2, spent: 5.25 }]);
    const voided = await call('/rpc/hit', { method: 'POST', token: service, body: { counter: 'x' } });
    expect(voided.status).toBe(204);
    expect(voided.text).toBe('');
    expect(await call('/counters?select=name,hits', { token: service }).then(ok)).toEqual([{ name: 'x', hits: 1 }]);
    const head = await call('/rpc/numbers?n=3', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('returns JWTs a function signs, with custom and standard claims, as an object of vnd.pgrst.object (AuthSpec)', async () => {
    const single = { Accept: 'application/vnd.pgrst.object+json' };
    const login = await call('/rpc/login', { method: 'POST', headers: single, body: { id: 'jdoe', pass: '1234' } });
    expect([login.status, login.headers.get('content-type'), login.json]).toEqual([200, 'application/vnd.pgrst.object+json; charset=utf-8', {
      token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xuYW1lIjoicG9zdGdyZXN0X3Rlc3RfYXV0aG9yIiwiaWQiOiJqZG9lIn0.KO-0PGp_rU-utcDBP6qwdd-Th2Fk-ICVt01I7QtTDWs',
    }]);
    const claims = await call('/rpc/jwt_test', { method: 'POST', headers: single, body: {} });
    expect([claims.status, claims.headers.get('content-type'), claims.json]).toEqual([200, 'application/vnd.pgrst.object+json; charset=utf-8', {
      token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJqb2UiLCJzdWIiOiJmdW4iLCJhdWQiOiJldmVyeW9uZSIsImV4cCI6MTMwMDgxOTM4MCwibmJmIjoxMzAwODE5MzgwLCJpYXQiOjEzMDA4MTkzODAsImp0aSI6ImZvbyIsInJvbGUiOiJwb3N0Z3Jlc3RfdGVzdCIsImh0dHA6Ly9wb3N0Z3Jlc3QuY29tL2ZvbyI6dHJ1ZX0.G2REtPnOQMUrVRDA9OnkPJTd8R0tf4wdYOlauh1E2Ek',
    }]);
    // Without the singular type the one object answers as JSON; a scalar keeps application/json either way.
    const plain = await call('/rpc/jwt_test', { method: 'POST', body: {} });
    expect([plain.headers.get('content-type'), (plain.json as { token: string }).token]).toEqual(['application/json; charset=utf-8', (claims.json as { token: string }).token]);
    expect((await call('/rpc/add?a=1', { headers: single })).headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('filters, orders, limits and counts SETOF results', async () => {
    const res = await call('/rpc/customers_from?min_id=2&select=id,name&id=neq.3&order=id.desc&limit=1', { headers: { Prefer: 'count=exact' } });
    expect(res.status).toBe(206);
    expect(res.json).toEqual([{ id: 4, name: 'dot.name' }]);
    expect(res.headers.get('content-range')).toBe('0-0/2');
    const embedded = await call('/rpc/customers_from?select=id,orders(total)&id=eq.2', { method: 'POST', body: { min_id: 1 } });
    expect(embedded.json).toEqual([{ id: 2, orders: [{ total: 5.25 }] }]);
    const csv = await call('/rpc/numbers?n=2', { headers: { Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
  });

  it('refuses max-affected with handling=strict on a function returning one value, before calling it (MaxAffectedSpec)', async () => {
    const strict = await call('/rpc/hit', { method: 'POST', token: service, headers: { Prefer: 'handling=strict, max-affected=20' }, body: { counter: 'strict' } });
    expect([strict.status, strict.json]).toEqual([400, errorBody('PGRST128', 'Function must return SETOF or TABLE when max-affected preference is used with handling=strict')]);
    expect(await call('/counters?name=eq.strict', { token: service }).then(ok)).toEqual([]);
    const scalar = await call('/rpc/add?a=1', { headers: { Prefer: 'handling=strict, max-affected=1' } });
    expect([scalar.status, (scalar.json as { code: string }).code]).toEqual([400, 'PGRST128']);
    const lenient = await call('/rpc/add?a=1', { headers: { Prefer: 'handling=lenient, max-affected=1' } });
    expect([lenient.status, lenient.json]).toEqual([200, 11]);
    const set = await call('/rpc/numbers?n=2', { headers: { Prefer: 'handling=strict, max-affected=2' } });
    expect([set.status, set.json]).toEqual([200, [1, 2]]);
  });

  it('passes the whole body to a single unnamed json parameter and resolves overloads by names', async () => {
    expect((await call('/rpc/echo', { method: 'POST', body: { any: ['thing', 1] } })).json).toEqual({ any: ['thing', 1] });
    expect((await call('/rpc/pick', { method: 'POST', body: { a: 1 } })).json).toBe('by a: 1');
    expect((await call('/rpc/pick?b=x')).json).toBe('by b: x');
    const neither = await call('/rpc/pick', { method: 'POST', body: { c: 1 } });
    expect(neither.status).toBe(404);
    expect((neither.json as { code: string }).code).toBe('PGRST202');
    const missing = await call('/rpc/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual(errorBody('PGRST202', 'Could not find the function public.nope without parameters in the schema cache',
      'Searched for the function public.nope without parameters, but no matches were found in the schema cache.'));
  });

  it('runs GET of any function in a read-only transaction: a volatile one that writes fails with 405 25006 and writes nothing', async () => {
    const get = await call('/rpc/hit?counter=y', { token: service });
    expect([get.status, get.headers.get('allow'), get.json]).toEqual([405, 'OPTIONS,POST', errorBody('25006', 'cannot execute INSERT in a read-only transaction')]);
    const head = await call('/rpc/hit?counter=y', { method: 'HEAD', token: service });
    expect(head.status).toBe(405);
    expect(await call('/counters?name=eq.y', { token: service }).then(ok)).toEqual([]);
    expect(await call('/rpc/hit', { method: 'POST', token: service, body: { counter: 'y' } }).then((a) => a.status)).toBe(204);
    // Declared VOLATILE (the default) but only reading: GET answers, as supabase.rpc(fn, args, { get: true }) expects.
    const total = await call('/rpc/counter_hits?counter=y', { token: service });
    expect([total.status, total.json]).toEqual([200, 1]);
    await call('/counters?name=eq.y', { method: 'DELETE', token: service });
    const patch = await call('/rpc/add', { method: 'PATCH', body: { a: 1 } });
    expect(patch.status).toBe(405);
    expect(patch.json).toEqual(errorBody('PGRST101', 'Cannot use the PATCH method on RPC'));
  });

  it('runs as any role granted to the authenticator (PostgREST), with that role\'s privileges', async () => {
    const role = `${project.record.ref}_auditor`;
    const admin = new pg.Client(host.platform.cluster.urlFor(project.record.databaseName));
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} NOLOGIN; GRANT ${role} TO authenticator; GRANT USAGE ON SCHEMA public TO ${role};
        GRANT SELECT ON products TO ${role}`);
    } finally {
      await admin.end();
    }
    const now = Math.floor(Date.now() / 1000);
    const auditor = signJwt(project.record.jwtSecret, { role, exp: now + 60 });
    expect(ok(await call('/products?select=id,name&order=id', { token: auditor }))).toEqual([
      { id: 1, name: 'pen' }, { id: 2, name: 'ink' }, { id: 3, name: 'paper' },
    ]);
    const refused = await call('/orders?select=id', { token: auditor });
    expect([refused.status, refused.json]).toEqual([403, errorBody('42501', 'permission denied for table orders')]);
    // AudienceJwtSecretSpec: an audience that is null or empty is none.
    for (const aud of [null, []]) {
      const res = await call('/products?select=id&id=eq.1', { token: signJwt(project.record.jwtSecret, { role, exp: now + 60, aud }) });
      expect([res.status, res.json]).toEqual([200, [{ id: 1 }]]);
    }
  });

  it('answers OPTIONS with the methods the resource can take (PostgREST), and names them in every 405', async () => {
    const allow = async (path: string): Promise<[number, string | null]> => {
      const res = await call(path, { method: 'OPTIONS' });
      return [res.status, res.headers.get('allow')];
    };
    expect(await allow('/orders')).toEqual([200, 'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE']);
    expect(await allow('/paid_orders')).toEqual([200, 'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE']);
    expect(await allow('/order_totals')).toEqual([200, 'OPTIONS,GET,HEAD']);
    expect(await allow('/product_names')).toEqual([200, 'OPTIONS,GET,HEAD,DELETE']);
    expect(await allow('/rpc/add')).toEqual([200, 'OPTIONS,GET,HEAD,POST']);
    expect(await allow('/rpc/hit')).toEqual([200, 'OPTIONS,POST']);
    const unknown = await call('/nope', { method: 'OPTIONS' });
    expect([unknown.status, (unknown.json as { code: string }).code]).toEqual([404, '42P01']);
    const unknownFn = await call('/rpc/nope', { method: 'OPTIONS' });
    expect([unknownFn.status, (unknownFn.json as { code: string }).code]).toEqual([404, 'PGRST202']);
    expect((await call('/orders', { method: 'OPTIONS', apikey: null })).status).toBe(401);

    const volatileGet = await call('/rpc/hit?counter=z', { token: service });
    expect([volatileGet.status, volatileGet.headers.get('allow')]).toEqual([405, 'OPTIONS,POST']);
    const trace = await call('/orders', { method: 'PROPFIND' });
    expect([trace.status, trace.headers.get('allow')]).toEqual([405, 'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE']);
    expect(trace.json).toEqual(errorBody('PGRST117', 'Unsupported HTTP method: PROPFIND'));
  });

  it('maps raised errors: P0001 400, PTxxx its status, 22P02 400, 42501 403; a failed call writes nothing', async () => {
    const plain = await call('/rpc/fail_plain', { method: 'POST', body: {} });
    expect(plain.status).toBe(400);
    expect(plain.json).toEqual(errorBody('P0001', 'out of stock', 'product 3', 'order fewer'));
    const payment = await call('/rpc/fail_payment', { method: 'POST', body: {} });
    expect(payment.status).toBe(402);
    expect(payment.json).toEqual(errorBody('PT402', 'payment required'));
    const cast = await call('/rpc/to_int?x=abc');
    expect(cast.status).toBe(400);
    expect(cast.json).toEqual(errorBody('22P02', 'invalid input syntax for type integer: "abc"'));
    const denied = await call('/rpc/secret_count', { method: 'POST', body: {} });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual(errorBody('42501', 'permission denied for function secret_count'));
    const failed = await call('/rpc/hit_and_fail', { method: 'POST', token: service, body: { counter: 'half' } });
    expect(failed.status).toBe(400);
    expect(await call('/counters?name=eq.half', { token: service }).then(ok)).toEqual([]);
    for (const res of [plain, payment, cast, denied, failed]) expect(res.text).not.toMatch(/\bat .+:\d+/);
  });
});

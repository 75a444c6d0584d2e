import { describe, expect, it } from 'vitest';
import { parseAccept } from '../../../runtime/rest/parse/headers.js';
import { decodeComponent, parseQueryString, queryParam } from '../../../runtime/rest/parse/query-string.js';
import { decodePathSegment } from '../../../runtime/rest/parse/request.js';
import { errorOf, request } from './request-helper.js';

describe('query string', () => {
  it('decodes as x-www-form-urlencoded: + is a space, %XX bytes are UTF-8, a stray % stays', () => {
    expect(decodeComponent('a+b%2Bc%20%C3%A9%E2%82%AC')).toBe('a b+c é€');
    expect(decodeComponent('50%')).toBe('50%');
    expect(decodeComponent('%zz')).toBe('%zz');
    expect(decodeComponent('ñ')).toBe('ñ');
  });

  it('refuses invalid UTF-8 and NUL', () => {
    expect(errorOf(() => decodeComponent('%FF')).body.code).toBe('PGRST100');
    expect(errorOf(() => decodeComponent('a%00b')).body.code).toBe('PGRST100');
  });

  it('decodes path segments without turning + into a space', () => {
    expect(decodePathSegment('my%20table+x%C3%A9')).toBe('my table+xé');
  });

  it('reads one parameter by the same rules: an encoded name counts, a malformed escape is a PGRST100, not a URIError', () => {
    expect(queryParam('a=1&%61pikey=k%2B1&apikey=2', 'apikey')).toBe('k+1');
    expect(queryParam('apikey&x=1', 'apikey')).toBeNull();
    expect(errorOf(() => queryParam('apikey=%E0%A4%A', 'apikey'))).toMatchObject({ status: 400, body: { code: 'PGRST100' } });
    expect(queryParam('select=id&limit=20', 'apikey')).toBeNull();
    expect(errorOf(() => queryParam('select=id&x=a\u0000', 'apikey'))).toMatchObject({ status: 400, body: { code: 'PGRST100' } });
    expect(queryParam('a+b=1', 'a b')).toBe('1');
  });

  it('keeps order and marks keys without =', () => {
    expect(parseQueryString('?a=1&b&c=&a=2')).toEqual([['a', '1'], ['b', null], ['c', ''], ['a', '2']]);
  });
});

describe('Content-Location of a read (QuerySpec "Canonical location")', () => {
  const location = (target: string, query: string, method = 'GET') => request(method, target, query).contentLocation;

  it('sorts the parameters by name, as PostgREST, and omits the question mark when there are none', () => {
    expect(location('no_pk', 'b=eq.1&a=eq.1')).toBe('/no_pk?a=eq.1&b=eq.1');
    expect(location('simple_pk', '')).toBe('/simple_pk');
    expect(location('t', 'select=id', 'HEAD')).toBe('/t?select=id');
  });

  it("encodes as Haskell's urlEncodeVars: a repeated name once with its values joined by commas, all but A-Za-z0-9-_.~ escaped", () => {
    expect(location('t', 'id=lt.5&select=id,clr:c::text&id=gt.1&flag&x+y=eq.%C3%A9*')).toBe(
      '/t?flag=&id=lt.5,gt.1&select=id%2Cclr%3Ac%3A%3Atext&x%20y=eq.%C3%A9%2A',
    );
  });

  it('sends the name as UTF-8 bytes (latin1 text for Node), only control characters escaped, and is for reads alone', () => {
    expect(location('são\nx', '')).toBe(`/${Buffer.from('são', 'utf8').toString('latin1')}%0Ax`);
    expect(location('t', 'a=eq.1', 'DELETE')).toBeUndefined();
    expect(request('GET', 'fn', 'a=1', { rpc: true }).contentLocation).toBeUndefined();
  });
});

describe('request parameters', () => {
  it('splits reserved, embedded and filter parameters', () => {
    const req = request('GET', 'films', 'select=id,roles(*)&id=gt.1&id=lt.5&roles.character=eq.x&order=id.desc&roles.order=character'
      + '&limit=10&offset=5&roles.limit=2&roles.offset=1&or=(id.eq.1,id.eq.2)&roles.or=(character.eq.a)&ignored');
    expect(req.action).toBe('read');
    expect(req.conditions.map((c) => [c.path, c.value.type])).toEqual([
      [[], 'filter'], [[], 'filter'], [['roles'], 'filter'], [[], 'logic'], [['roles'], 'logic'],
    ]);
    expect(req.orders.map((o) => o.path)).toEqual([[], ['roles']]);
    expect(req.range).toEqual({ offset: 5, limit: 10 });
    expect(req.embedRanges).toEqual([{ path: ['roles'], value: { offset: 1, limit: 2 } }]);
  });

  it('takes the first select, columns and on_conflict', () => {
    const req = request('POST', 'films', 'select=id&select=title&columns=id&columns=title&on_conflict=id', { body: '{"id":1}' });
    expect(req.select).toEqual([{ type: 'column', field: { name: 'id', jsonPath: [] }, alias: null, cast: null }]);
    expect(req.columns).toEqual(['id']);
    expect(req.onConflict).toEqual(['id']);
  });

  it('reads ?count= as the count parameter, winning over Prefer, but keeps count=eq.1 a filter', () => {
    expect(request('GET', 'films', 'count=exact', { headers: { prefer: 'count=planned' } }).count).toBe('exact');
    expect(request('GET', 'films', '', { headers: { prefer: 'count=estimated' } }).count).toBe('estimated');
    expect(request('GET', 'films', 'count=eq.1').conditions).toHaveLength(1);
  });

  it('ignores non-numeric limit/offset and negative offset; negative limit is 416', () => {
    expect(request('GET', 'films', 'limit=abc&offset=-3').range).toEqual({ offset: 0, limit: null });
    expect(errorOf(() => request('GET', 'films', 'limit=-1'))).toEqual({ status: 416, body: {
      code: 'PGRST103', message: 'Requested range not satisfiable', details: 'Limit should be greater than or equal to zero.', hint: null,
    } });
  });

  it('intersects the Range header with limit/offset on GET only', () => {
    expect(request('GET', 'films', '', { headers: { range: '0-24' } }).range).toEqual({ offset: 0, limit: 25 });
    expect(request('GET', 'films', 'limit=10&offset=5', { headers: { range: '0-9' } }).range).toEqual({ offset: 5, limit: 5 });
    expect(request('GET', 'films', '', { headers: { range: '10-' } }).range).toEqual({ offset: 10, limit: null });
    expect(request('GET', 'films', '', { headers: { range: 'bytes=1-2' } }).range).toEqual({ offset: 0, limit: null });
    expect(request('HEAD', 'films', '', { headers: { range: '0-1' } }).range).toEqual({ offset: 0, limit: null });
    expect(errorOf(() => request('GET', 'films', '', { headers: { range: '5-1' } })).body.details)
      .toBe('The lower boundary must be lower than or equal to the upper boundary in the Range header.');
  });

  it('maps methods to actions; unknown methods are 405', () => {
    expect(request('HEAD', 'films', '').action).toBe('read');
    expect(request('PUT', 'films', 'id=eq.1', { body: '{}' }).action).toBe('update');
    expect(request('DELETE', 'films', '').action).toBe('delete');
    expect(errorOf(() => request('TRACE', 'films', ''))).toEqual({ status: 405, body: {
      code: 'PGRST117', message: 'Unsupported HTTP method: TRACE', details: null, hint: null,
    } });
    expect(errorOf(() => request('PATCH', 'f', '', { rpc: true }))).toEqual({ status: 405, body: {
      code: 'PGRST101', message: 'Cannot use the PATCH method on RPC', details: null, hint: null,
    } });
  });

  it('refuses empty or malformed filter values with PGRST100', () => {
    expect(errorOf(() => request('GET', 'films', 'id=')).body.code).toBe('PGRST100');
    expect(errorOf(() => request('GET', 'films', 'id=1')).body.code).toBe('PGRST100');
    expect(errorOf(() => request('POST', 'f', 'id=1', { rpc: true })).body.code).toBe('PGRST100');
  });
});

describe('Prefer', () => {
  it('reads every preference from one or several headers; the first occurrence wins', () => {
    const req = request('POST', 'films', '', {
      body: '{}',
      headers: { prefer: 'return=minimal, count=exact,resolution=merge-duplicates, missing=default, return=representation,tx=rollback,timezone=UTC,max-affected=5,handling=lenient' },
    });
    expect(req.preferences).toEqual({
      return: 'minimal', count: 'exact', resolution: 'merge-duplicates', missing: 'default', handling: 'lenient',
      tx: 'rollback', timezone: 'UTC', maxAffected: 5,
    });
  });

  it('ignores unknown preferences unless handling=strict', () => {
    expect(request('GET', 'films', '', { headers: { prefer: 'foo, count=bar' } }).preferences.count).toBeNull();
    expect(errorOf(() => request('GET', 'films', '', { headers: { prefer: 'handling=strict, foo, count=bar' } }))).toEqual({ status: 400, body: {
      code: 'PGRST122', message: 'Invalid preferences given with handling=strict', details: 'Invalid preferences: foo, count=bar', hint: null,
    } });
  });
});

describe('Accept', () => {
  const media = (accept: string) => request('GET', 'films', '', { headers: { accept } }).media;

  it('picks the first acceptable type in q order', () => {
    expect(media('')).toEqual({ kind: 'json', stripNulls: false });
    expect(media('*/*')).toEqual({ kind: 'json', stripNulls: false });
    expect(media('application/vnd.pgrst.object+json')).toEqual({ kind: 'object', stripNulls: false });
    expect(media('application/vnd.pgrst.object')).toEqual({ kind: 'object', stripNulls: false });
    expect(media('application/vnd.pgrst.object+json;nulls=stripped')).toEqual({ kind: 'object', stripNulls: true });
    expect(media('application/vnd.pgrst.array+json;nulls=stripped')).toEqual({ kind: 'json', stripNulls: true });
    expect(media('text/csv')).toEqual({ kind: 'csv', stripNulls: false });
    expect(media('text/html, text/csv;q=0.5, application/json;q=0.9')).toEqual({ kind: 'json', stripNulls: false });
  });

  it('answers 406 PGRST107 when nothing is acceptable', () => {
    expect(errorOf(() => media('text/html, application/xml;q=0.5'))).toEqual({ status: 406, body: {
      code: 'PGRST107', message: 'None of these media types are available: text/html, application/xml', details: null, hint: null,
    } });
  });
});

describe('Accept: application/vnd.pgrst.plan (execution plans)', () => {
  const JSON_MEDIA = { kind: 'json', stripNulls: false };

  it('reads format, the `for` representation (default JSON) and the options in PostgREST\'s order, unknown ones ignored', () => {
    expect(parseAccept({ accept: 'application/vnd.pgrst.plan' }, true)).toEqual({ media: JSON_MEDIA, plan: { format: 'text', options: [] } });
    expect(parseAccept({ accept: 'application/vnd.pgrst.plan+json; options=wal|nope|analyze' }, true))
      .toEqual({ media: JSON_MEDIA, plan: { format: 'json', options: ['analyze', 'wal'] } });
    // supabase-js's .single().explain(): the previous Accept goes into `for`, a trailing `;` and an empty option list.
    expect(parseAccept({ accept: 'application/vnd.pgrst.plan+text; for="application/vnd.pgrst.object+json"; options=;' }, true))
      .toEqual({ media: { kind: 'object', stripNulls: false }, plan: { format: 'text', options: [] } });
    expect(parseAccept({ accept: 'text/csv' }, true)).toEqual({ media: { kind: 'csv', stripNulls: false }, plan: null });
  });

  it('is an unknown media type (406 PGRST107) when plans are off or the `for` type is not offered', () => {
    const refusal = (type: string) => ({ status: 406, body: { code: 'PGRST107', message: `None of these media types are available: ${type}`, details: null, hint: null } });
    expect(errorOf(() => parseAccept({ accept: 'application/vnd.pgrst.plan+json' }))).toEqual(refusal('application/vnd.pgrst.plan+json'));
    expect(errorOf(() => parseAccept({ accept: 'application/vnd.pgrst.plan; for="text/xml"' }, true))).toEqual(refusal('application/vnd.pgrst.plan'));
    expect(parseAccept({ accept: 'application/vnd.pgrst.plan, application/json;q=0.5' })).toEqual({ media: JSON_MEDIA, plan: null });
  });
});

describe('profiles', () => {
  const schemas = ['public', 'personal'];

  it('reads Accept-Profile on GET/HEAD and Content-Profile otherwise', () => {
    expect(request('GET', 'films', '', { schemas }).schema).toBe('public');
    expect(request('GET', 'films', '', { schemas, headers: { 'accept-profile': 'personal' } }).schema).toBe('personal');
    expect(request('POST', 'films', '', { schemas, body: '{}', headers: { 'content-profile': 'personal', 'accept-profile': 'public' } }).schema).toBe('personal');
  });

  it('refuses an unexposed schema with 406 PGRST106', () => {
    expect(errorOf(() => request('GET', 'films', '', { schemas, headers: { 'accept-profile': 'auth' } }))).toEqual({ status: 406, body: {
      code: 'PGRST106', message: 'Invalid schema: auth', details: null, hint: 'Only the following schemas are exposed: public, personal',
    } });
  });
});

describe('bodies', () => {
  it('wraps one object as one row and keeps the raw text', () => {
    expect(request('POST', 'films', '', { body: '{"id": 12345678901234567890}' }).payload).toEqual({
      kind: 'rows', json: '[{"id": 12345678901234567890}]', keys: ['id'], rowCount: 1,
    });
  });

  it('uses columns= instead of the keys and then allows differing keys', () => {
    expect(request('POST', 'films', 'columns=id,title', { body: '[{"id":1},{"title":"x","extra":1}]' }).payload)
      .toEqual({ kind: 'rows', json: '[{"id":1},{"title":"x","extra":1}]', keys: ['id', 'title'], rowCount: 2 });
    // Keys of columns= that no row gives are noted for missing=default.
    expect(request('POST', 'films', 'columns=id,title,year', { body: '{"id":1}' }).payload)
      .toEqual({ kind: 'rows', json: '[{"id":1}]', keys: ['id', 'title', 'year'], rowCount: 1, absent: ['title', 'year'] });
  });

  it('treats a JSON scalar as no rows, refuses non-objects in arrays and unknown content types', () => {
    expect(request('POST', 'films', '', { body: '5' }).payload).toEqual({ kind: 'rows', json: '[]', keys: [], rowCount: 0 });
    expect(errorOf(() => request('POST', 'films', '', { body: '[1]' })).body.message).toBe('All object keys must match');
    expect(errorOf(() => request('POST', 'films', '', { body: '' })).body.message).toBe('Empty or invalid json');
    expect(errorOf(() => request('POST', 'films', '', { body: 'x', headers: { 'content-type': 'text/xml' } })).body)
      .toEqual({ code: 'PGRST102', message: 'Content-Type not acceptable: text/xml', details: null, hint: null });
  });

  it('reads CSV and form bodies', () => {
    expect(request('POST', 'films', '', { body: 'id,title\n1,"a, ""b"""\n2,NULL', headers: { 'content-type': 'text/csv' } }).payload)
      .toEqual({ kind: 'rows', json: '[{"id":"1","title":"a, \\"b\\""},{"id":"2","title":null}]', keys: ['id', 'title'], rowCount: 2 });
    expect(request('POST', 'films', '', { body: 'id=1&title=a+b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }).payload)
      .toEqual({ kind: 'rows', json: '[{"id":"1","title":"a b"}]', keys: ['id', 'title'], rowCount: 1 });
  });

  it('reads RPC arguments from the body or from the query (repeats become arrays)', () => {
    expect(request('POST', 'f', '', { rpc: true, body: '{"a":1}' }).payload).toEqual({ kind: 'args', json: '{"a":1}', keys: ['a'], fromBody: true, raw: null });
    expect(request('POST', 'f', '', { rpc: true, body: '' }).payload).toEqual({ kind: 'args', json: '{}', keys: [], fromBody: true, raw: null });
    expect(request('POST', 'f', '', { rpc: true, body: '[1]' }).payload).toEqual({ kind: 'args', json: '[1]', keys: null, fromBody: true, raw: null });
    const get = request('GET', 'f', 'a=1&v=x&v=y&id=eq.3&b=', { rpc: true });
    expect(get.payload).toEqual({ kind: 'args', json: '{"a":"1","v":["x","y"],"b":""}', keys: ['a', 'v', 'b'], fromBody: false, raw: null });
    expect(get.conditions).toHaveLength(1);
    expect(request('POST', 'f', '', { rpc: true, body: 'plain {text', headers: { 'content-type': 'text/plain' } }).payload)
      .toEqual({ kind: 'args', json: 'plain {text', keys: [], fromBody: true, raw: 'text' });
    expect(errorOf(() => request('POST', 'films', '', { body: 'x', headers: { 'content-type': 'text/plain' } })).body.message)
      .toBe('Content-Type not acceptable: text/plain');
  });

  it('takes a CSV body\'s first row as RPC arguments, never as a raw body (PostgREST)', () => {
    expect(request('POST', 'f', '', { rpc: true, body: 'a,b\n1,2\n4,6', headers: { 'content-type': 'text/csv' } }).payload)
      .toEqual({ kind: 'args', json: '{"a":"1","b":"2"}', keys: ['a', 'b'], fromBody: false, raw: null });
    expect(request('POST', 'f', 'columns=b', { rpc: true, body: 'a,b\n1,NULL', headers: { 'content-type': 'text/csv' } }).payload)
      .toEqual({ kind: 'args', json: '{"b":null}', keys: ['b'], fromBody: false, raw: null });
  });

  it('keeps a __proto__ key of a form, CSV or query body as a name for the database to judge, never an assignment', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(request('POST', 'films', '', { body: '__proto__=x&id=1', headers: form }).payload)
      .toEqual({ kind: 'rows', json: '[{"__proto__":"x","id":"1"}]', keys: ['__proto__', 'id'], rowCount: 1 });
    expect(request('POST', 'films', '', { body: '__proto__,id\nx,1', headers: { 'content-type': 'text/csv' } }).payload)
      .toEqual({ kind: 'rows', json: '[{"__proto__":"x","id":"1"}]', keys: ['__proto__', 'id'], rowCount: 1 });
    expect(request('GET', 'f', '__proto__=x&__proto__=y', { rpc: true }).payload)
      .toEqual({ kind: 'args', json: '{"__proto__":["x","y"]}', keys: ['__proto__'], fromBody: false, raw: null });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('names an unnamed parameter with the key "" and keeps raw bodies whole (bytes as bytea hex)', () => {
    expect(request('POST', 'f', '', { rpc: true, body: '{"":"test"}' }).payload).toEqual({ kind: 'args', json: '{"":"test"}', keys: [''], fromBody: true, raw: null });
    expect(request('GET', 'f', '=test', { rpc: true }).payload).toEqual({ kind: 'args', json: '{"":"test"}', keys: [''], fromBody: false, raw: null });
    const octet = request('POST', 'f', '', { rpc: true, body: Buffer.from([0, 0xff, 0x41]), headers: { 'content-type': 'application/octet-stream' } });
    expect(octet.payload).toEqual({ kind: 'args', json: '\\x00ff41', keys: [], fromBody: true, raw: 'bytea' });
    expect(request('POST', 'f', '', { rpc: true, body: Buffer.from('<a>é</a>'), headers: { 'content-type': 'text/xml' } }).payload)
      .toEqual({ kind: 'args', json: '<a>é</a>', keys: [], fromBody: true, raw: 'xml' });
    expect(errorOf(() => request('POST', 'films', '', { body: 'x', headers: { 'content-type': 'application/octet-stream' } })))
      .toEqual({ status: 400, body: { code: 'PGRST102', message: 'Content-Type not acceptable: application/octet-stream', details: null, hint: null } });
  });
});

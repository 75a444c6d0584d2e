import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, readGenerated, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';

/**
 * PostgREST 12's media type handlers over real HTTP (test/fixtures/schemas/rest-media-handlers.sql), as its
 * CustomMediaSpec: a function returning a media type domain answers its value raw, an aggregate over a table's
 * rows answers the filtered rows in that type, a user's `text/csv` replaces the built-in one, `*\/*` takes any
 * type, and nothing matching is 406 PGRST107.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-media-handlers.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('a function returning a media type domain', () => {
  it('answers image/png with the exact bytes, chosen by q-values', async () => {
    for (const accept of ['image/png', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/png,*/*;q=0.8', 'image/png, */*']) {
      const res = await fetch(`${project.url}/rest/v1/rpc/logo`, { headers: { apikey: project.keys.anon_key, accept } });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([res.status, res.headers.get('content-type'), res.headers.get('content-length'), bytes.equals(PNG)]).toEqual([200, 'image/png', '16', true]);
    }
  });

  it('answers HEAD with the type and no body', async () => {
    const res = await call('/rpc/logo', { method: 'HEAD', headers: { Accept: 'image/png' } });
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([200, 'image/png', '']);
  });

  it('answers JSON when JSON is asked for', async () => {
    const res = await call('/rpc/greeting', { headers: { Accept: 'text/plain, application/json' } });
    expect([res.status, res.headers.get('content-type'), res.json]).toEqual([200, 'application/json; charset=utf-8', 'hello']);
  });

  it('answers raw text and XML through "text/plain" and "text/xml" domains, as PostgREST 12 (no built-in raw output of plain text)', async () => {
    const text = await call('/rpc/welcome', { headers: { Accept: 'text/plain' } });
    expect([text.status, text.headers.get('content-type'), text.headers.get('content-length'), text.text])
      .toEqual([200, 'text/plain; charset=utf-8', '20', 'Welcome to PostgREST']);
    const xml = await call('/rpc/return_scalar_xml', { headers: { Accept: 'text/xml' } });
    expect([xml.status, xml.headers.get('content-type'), xml.headers.get('content-length'), xml.text])
      .toEqual([200, 'text/xml; charset=utf-8', '13', '<my-xml-tag/>']);
    for (const [path, accept] of [['/rpc/welcome', 'text/xml'], ['/rpc/welcome_twice', 'text/plain'], ['/rpc/greeting', 'text/plain']] as const) {
      const refused = await call(path, { headers: { Accept: accept } });
      expect([refused.status, refused.json]).toEqual([406,
        { code: 'PGRST107', details: null, hint: null, message: `None of these media types are available: ${accept}` }]);
    }
  });

  it('takes any media type with a */* domain, answering application/octet-stream', async () => {
    for (const accept of ['*/*', 'app/bingo', 'image/boingo']) {
      const res = await call('/rpc/anything', { headers: { Accept: accept } });
      expect([res.status, res.headers.get('content-type'), res.text]).toEqual([200, 'application/octet-stream', 'any']);
    }
  });

  it('refuses a type no handler or built-in gives with 406 PGRST107', async () => {
    const res = await call('/rpc/greeting', { headers: { Accept: 'image/png' } });
    expect([res.status, res.headers.get('content-type'), res.json]).toEqual([406, 'application/json; charset=utf-8',
      { code: 'PGRST107', details: null, hint: null, message: 'None of these media types are available: image/png' }]);
  });
});

describe('an aggregate over a table\'s rows', () => {
  const lisbon = { type: 'Feature', geometry: { type: 'Point', coordinates: [-9.14, 38.72] }, properties: { id: 1, name: 'Lisbon' } };
  const faro = { type: 'Feature', geometry: { type: 'Point', coordinates: [-7.93, 37.02] }, properties: { id: 3, name: 'Faro' } };

  it('answers application/geo+json over the filtered, ordered rows', async () => {
    const res = await call('/places?id=in.(1,3)&order=id.desc', { headers: { Accept: 'application/geo+json', Prefer: 'count=exact' } });
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-range'), res.json]).toEqual([
      200, 'application/geo+json; charset=utf-8', '0-1/2', { type: 'FeatureCollection', features: [faro, lisbon] },
    ]);
  });

  it('answers the rows a function returns through the aggregate of their table', async () => {
    const res = await call('/rpc/nearby?min_id=3', { headers: { Accept: 'application/geo+json' } });
    expect([res.status, res.json]).toEqual([200, { type: 'FeatureCollection', features: [faro] }]);
  });

  it('refuses select= with 406: the aggregate takes whole rows', async () => {
    const res = await call('/places?select=id,name,lon,lat,note', { headers: { Accept: 'application/geo+json' } });
    expect([res.status, res.json]).toEqual([406, { code: 'PGRST107', details: null, hint: null, message: 'None of these media types are available: application/geo+json' }]);
  });

  it('lets a user-written text/csv handler replace the built-in CSV', async () => {
    const res = await call('/places?id=lte.2&order=id', { headers: { Accept: 'text/csv' } });
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([200, 'text/csv; charset=utf-8', 'id;name\n1;Lisbon\n2;Porto\n']);
  });

  it('answers 406 PGRST107 exactly when nothing matches', async () => {
    const res = await call('/places', { headers: { Accept: 'text/plain' } });
    expect([res.status, res.headers.get('content-type'), res.json]).toEqual([406, 'application/json; charset=utf-8',
      { code: 'PGRST107', details: null, hint: null, message: 'None of these media types are available: text/plain' }]);
  });
});

describe("PostgREST's CustomMediaSpec", () => {
  const get = (path: string, accept: string) => call(path, { headers: { Accept: accept } });
  const answer = (res: Awaited<ReturnType<typeof call>>) => [res.status, res.headers.get('content-type'), res.text];
  const geo2 = '{"type": "FeatureCollection", "hello": "world"}';

  it('answers a table\'s own bytea aggregate without a final function, whole and filtered', async () => {
    const all = await get('/lines', 'application/vnd.twkb');
    expect([...answer(all), all.headers.get('content-length')])
      .toEqual([200, 'application/vnd.twkb', 'LINESTRING(1 1,5 5)LINESTRING(2 2,6 6)', '38']);
    expect(answer(await get('/lines?id=eq.1', 'application/vnd.twkb'))).toEqual([200, 'application/vnd.twkb', 'LINESTRING(1 1,5 5)']);
    expect(answer(await get('/rpc/get_lines', 'application/vnd.twkb')))
      .toEqual([200, 'application/vnd.twkb', 'LINESTRING(1 1,5 5)LINESTRING(2 2,6 6)']);
  });

  it('answers raw XML through a table\'s text/xml aggregate', async () => {
    const res = await get('/xmltest', 'text/xml');
    expect([...answer(res), res.headers.get('content-length')])
      .toEqual([200, 'text/xml; charset=utf-8', '<myxml>foo</myxml>bar<foobar><baz/></foobar>', '44']);
  });

  it('uses an aggregate over anyelement for any table and any function returning rows', async () => {
    for (const path of ['/lines', '/rpc/get_lines', '/projects?id=eq.1']) {
      const res = await get(path, 'application/vnd.geo2+json');
      expect([...answer(res), res.headers.get('content-length')]).toEqual([200, 'application/vnd.geo2+json', geo2, '47']);
    }
  });

  it('uses a table\'s own aggregate before the anyelement one, for the table and a function returning its rows', async () => {
    for (const path of ['/shop_bles', '/rpc/get_shop_bles']) {
      expect(answer(await get(path, 'application/vnd.geo2+json'))).toEqual([200, 'application/vnd.geo2+json', '"anyelement overridden"']);
    }
  });

  it('overrides application/json and application/geo+json for one table, never the vendored vnd.pgrst.object', async () => {
    const json = await get('/ov_json', 'application/json');
    expect([...answer(json), json.headers.get('content-length')]).toEqual([200, 'application/json; charset=utf-8', '{"overridden": "true"}', '22']);
    const geo = await get('/lines?id=eq.1', 'application/geo+json');
    expect(answer(geo)).toEqual([200, 'application/geo+json; charset=utf-8',
      '{"crs": {"type": "name", "properties": {"name": "EPSG:4326"}}, "type": "FeatureCollection", "features": [{"type": "Feature", "geometry": "LINESTRING(1 1,5 5)", "properties": {"id": 1, "name": "line-1"}}]}']);
    const object = await get('/projects?id=eq.1', 'application/vnd.pgrst.object');
    expect(answer(object)).toEqual([200, 'application/vnd.pgrst.object+json; charset=utf-8', '{"id":1,"name":"Windows 7","client_id":1}']);
  });

  it('answers raw HTML and XML from functions named with a dot', async () => {
    const html = await get('/rpc/welcome.html', 'text/html');
    expect([...answer(html), html.headers.get('content-length')]).toEqual([200, 'text/html',
      '\n<html>\n  <head>\n    <title>PostgREST</title>\n  </head>\n  <body>\n    <h1>Welcome to PostgREST</h1>\n  </body>\n</html>\n', '117']);
    expect(answer(await get('/rpc/welcome.xml', 'text/xml'))).toEqual([200, 'text/xml; charset=utf-8',
      '<html>\n  <head>\n    <title>PostgREST</title>\n  </head>\n  <body>\n    <h1>Welcome to PostgREST</h1>\n  </body>\n</html>']);
  });

  it('answers an empty body when the handler function returns no row', async () => {
    expect(answer(await get('/rpc/get_line?id=777', 'application/vnd.twkb'))).toEqual([200, 'application/vnd.twkb', '']);
  });

  it('refuses a function\'s rows in a type no aggregate gives', async () => {
    const res = await get('/rpc/get_lines', 'application/octet-stream');
    expect([res.status, res.json]).toEqual([406,
      { code: 'PGRST107', details: null, hint: null, message: 'None of these media types are available: application/octet-stream' }]);
  });

  it('matches json in presence of text/plain, and a custom text/tab-separated-values', async () => {
    const json = await get('/projects?id=eq.1', 'text/plain, application/json');
    expect([json.status, json.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    const tsv = await get('/projects?id=in.(1,2)', 'text/tab-separated-values');
    expect([...answer(tsv), tsv.headers.get('content-length')])
      .toEqual([200, 'text/tab-separated-values', 'id\tname\tclient_id\n1\tWindows 7\t1\n2\tWindows 10\t1\n', '47']);
  });

  it('answers a custom text/csv with a byte order mark and the Content-Disposition its final function sets', async () => {
    const res = await fetch(`${project.url}/rest/v1/lines`, { headers: { apikey: project.keys.anon_key, Accept: 'text/csv' } });
    const body = Buffer.from(await res.arrayBuffer());
    const expected = Buffer.concat([Buffer.from('efbbbf', 'hex'), Buffer.from('id,name,geom\n1,line-1,LINESTRING(1 1,5 5)\n2,line-2,LINESTRING(2 2,6 6)\n')]);
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-disposition'), res.headers.get('content-length'), body.equals(expected)])
      .toEqual([200, 'text/csv; charset=utf-8', 'attachment; filename="lines.csv"', String(expected.length), true]);
  });

  it('runs an anyelement aggregate over the selected columns, computed fields and embeds', async () => {
    const cases: [string, string][] = [
      ['/projects?id=in.(1,2)', '(1,"Windows 7",1)\n(2,"Windows 10",1)\n'],
      ['/projects?id=in.(1,2)&select=id,name', '(1,"Windows 7")\n(2,"Windows 10")\n'],
      ['/projects?id=in.(1,2)&select=name,id,client_id', '("Windows 7",1,1)\n("Windows 10",2,1)\n'],
      ['/items?id=in.(1,2)&select=id,always_true', '(1,t)\n(2,t)\n'],
      ['/projects?id=in.(1,2)&select=*,clients(id)', '(1,"Windows 7",1,"{""id"": 1}")\n(2,"Windows 10",1,"{""id"": 1}")\n'],
    ];
    for (const [path, body] of cases) expect(answer(await get(path, 'pg/outfunc'))).toEqual([200, 'pg/outfunc', body]);
  });

  it('refuses a table\'s own aggregate with any select=, as PostgREST', async () => {
    for (const select of ['id', 'id,name,geom,id', 'name,id,geom', 'id,name,geom']) {
      expect((await get(`/lines?select=${select}`, 'application/vnd.twkb')).status).toBe(406);
    }
  });

  it('lets a */* function and a */* aggregate set the Content-Type or refuse', async () => {
    expect(answer(await get('/rpc/ret_some_mt', '*/*'))).toEqual([200, 'app/groucho', 'groucho']);
    expect(answer(await get('/rpc/ret_some_mt', 'app/chico'))).toEqual([200, 'app/chico', 'chico']);
    expect(answer(await get('/rpc/ret_some_mt', 'app/harpo'))).toEqual([200, 'app/harpo', 'harpo']);
    expect((await get('/rpc/ret_some_mt', 'text/csv')).status).toBe(406);
    expect(answer(await get('/some_numbers?val=eq.1', '*/*'))).toEqual([200, 'application/octet-stream', 'anything\n1']);
    expect(answer(await get('/some_numbers?val=eq.2', 'magic/number'))).toEqual([200, 'magic/number', 'magic\n2']);
    expect(answer(await get('/some_numbers?val=eq.3', 'crazy/bingo'))).toEqual([200, 'crazy/bingo', 'crazy\n3']);
    expect(answer(await get('/some_numbers?val=eq.4', 'unknown/unknown'))).toEqual([200, 'application/octet-stream', 'anything\n4']);
  });

  it('answers JSON to browsers\' Accept headers (RawOutputTypesSpec), tables and functions alike', async () => {
    const firefox = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const chrome = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3';
    for (const accept of [firefox, chrome]) {
      const table = await get('/items?id=eq.1', accept);
      expect([table.status, table.headers.get('content-type'), table.json]).toEqual([200, 'application/json; charset=utf-8', [{ id: 1 }]]);
      const rows = await get('/rpc/get_lines', accept);
      expect([rows.status, rows.headers.get('content-type'), (rows.json as unknown[]).length]).toEqual([200, 'application/json; charset=utf-8', 2]);
    }
  });

  it('sends an unparsable media type as it is in the 406', async () => {
    const res = await get('/items', 'undefined');
    expect([res.status, res.json]).toEqual([406, { code: 'PGRST107', details: null, hint: null, message: 'None of these media types are available: undefined' }]);
  });
});

describe('nulls=stripped', () => {
  it('drops null-valued keys from an array, with the Content-Type PostgREST writes', async () => {
    const res = await call('/places?select=id,note&order=id', { headers: { Accept: 'application/vnd.pgrst.array+json;nulls=stripped' } });
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([
      200, 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8', '[{"id":1},{"id":2,"note":"north"},{"id":3}]',
    ]);
  });

  it('drops null-valued keys from one object', async () => {
    const res = await call('/places?select=id,note&id=eq.1', { headers: { Accept: 'application/vnd.pgrst.object+json;nulls=stripped' } });
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([
      200, 'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8', '{"id":1}',
    ]);
  });
});

describe('the generated project', () => {
  it('describes the media types each operation can produce in OpenAPI', async () => {
    const doc = JSON.parse(await readGenerated(host.platform, project, 'openapi.json')) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const produces = (path: string, method: string) => Object.keys(doc.paths[`/rest/v1${path}`]?.[method]?.responses['200']?.content ?? {}).sort();
    expect(produces('/places', 'get')).toEqual([
      'application/geo+json', 'application/json', 'application/vnd.geo2+json', 'application/vnd.pgrst.object+json', 'pg/outfunc', 'text/csv',
    ]);
    expect(produces('/rpc/logo', 'post')).toEqual(['application/json', 'image/png']);
    expect(produces('/rpc/anything', 'post')).toEqual(['*/*', 'application/json']);
    expect(produces('/rpc/nearby', 'post')).toEqual(['application/geo+json', 'application/json', 'application/vnd.geo2+json', 'pg/outfunc', 'text/csv']);
    expect(doc.paths['/rest/v1/rpc/logo']?.post?.responses['200']?.content?.['image/png']).toEqual({ schema: { type: 'string', format: 'binary' } });
  });
});

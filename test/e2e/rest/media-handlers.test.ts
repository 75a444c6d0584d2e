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
    expect(produces('/places', 'get')).toEqual(['application/geo+json', 'application/json', 'application/vnd.pgrst.object+json', 'text/csv']);
    expect(produces('/rpc/logo', 'post')).toEqual(['application/json', 'image/png']);
    expect(produces('/rpc/anything', 'post')).toEqual(['*/*', 'application/json']);
    expect(produces('/rpc/nearby', 'post')).toEqual(['application/geo+json', 'application/json', 'text/csv']);
    expect(doc.paths['/rest/v1/rpc/logo']?.post?.responses['200']?.content?.['image/png']).toEqual({ schema: { type: 'string', format: 'binary' } });
  });
});

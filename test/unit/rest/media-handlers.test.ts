import { describe, expect, it } from 'vitest';
import { mediaHandlersOf } from '../../../runtime/rest/media-handlers.js';
import type { FunctionMeta, MediaHandlerMeta, ProjectMeta } from '../../../runtime/rest/metadata.js';
import { parseAccept } from '../../../runtime/rest/parse/headers.js';
import { parseRequest } from '../../../runtime/rest/parse/request.js';
import { buildRead } from '../../../runtime/rest/sql/read.js';
import { buildRpc } from '../../../runtime/rest/sql/rpc.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { errorOf } from './request-helper.js';

const png: MediaHandlerMeta = { mediaType: 'image/png', binary: true, aggregate: null };
const any: MediaHandlerMeta = { mediaType: '*/*', binary: true, aggregate: null };
const geo: MediaHandlerMeta = { mediaType: 'application/geo+json', binary: false, aggregate: { schema: 'public', name: 'films_geo', anyElement: false } };
const csv: MediaHandlerMeta = { mediaType: 'text/csv', binary: false, aggregate: { schema: 'public', name: 'films_csv', anyElement: false } };
const anyGeo: MediaHandlerMeta = { mediaType: 'application/geo+json', binary: false, aggregate: { schema: 'public', name: 'any_geo', anyElement: true } };

const refusal = (types: string) => ({ status: 406, body: { code: 'PGRST107', message: `None of these media types are available: ${types}`, details: null, hint: null } });

describe('Accept negotiation with media type handlers', () => {
  it('picks an exact handler in q-order before later built-in types', () => {
    expect(parseAccept({ accept: 'image/png, */*' }, false, [png]).media).toEqual({ kind: 'handler', stripNulls: false, handler: png, contentType: 'image/png' });
    expect(parseAccept({ accept: 'text/html,application/xml;q=0.9,image/png,*/*;q=0.8' }, false, [png]).media.kind).toBe('handler');
    expect(parseAccept({ accept: 'application/json;q=0.5, image/png' }, false, [png]).media.kind).toBe('handler');
    expect(parseAccept({ accept: 'application/json, image/png;q=0.5' }, false, [png]).media).toEqual({ kind: 'json', stripNulls: false });
  });

  it('lets a handler of text/csv override the built-in CSV, with the charset PostgREST writes for it', () => {
    expect(parseAccept({ accept: 'text/csv' }, false, [csv]).media).toEqual({ kind: 'handler', stripNulls: false, handler: csv, contentType: 'text/csv; charset=utf-8' });
    expect(parseAccept({ accept: 'text/csv' }, false, []).media).toEqual({ kind: 'csv', stripNulls: false });
  });

  it('never lets a handler take the vnd.pgrst types', () => {
    const object: MediaHandlerMeta = { mediaType: 'application/vnd.pgrst.object', binary: false, aggregate: null };
    expect(parseAccept({ accept: 'application/vnd.pgrst.object' }, false, [object, any]).media).toEqual({ kind: 'object', stripNulls: false });
  });

  it('gives any type to a */* handler as application/octet-stream, */* included', () => {
    for (const accept of ['*/*', 'app/bingo', 'image/boingo;q=0.3']) {
      expect(parseAccept({ accept }, false, [any]).media).toEqual({ kind: 'handler', stripNulls: false, handler: any, contentType: 'application/octet-stream' });
    }
    expect(parseAccept({ accept: 'application/json' }, false, [any]).media).toEqual({ kind: 'json', stripNulls: false });
  });

  it('answers 406 PGRST107 naming the types asked for when nothing matches', () => {
    expect(errorOf(() => parseAccept({ accept: 'text/plain, image/gif;q=0.2' }, false, [png]))).toEqual(refusal('text/plain, image/gif'));
  });
});

const films = META.tables['public.films']!;
const logo: FunctionMeta = {
  schema: 'public', name: 'logo', args: [], returnType: '"image/png"', returnsSet: false, returnKind: 'scalar', returnRelation: null,
  returnColumns: [], volatility: 'stable', securityDefiner: false, comment: null, mediaHandler: png,
};
const meta: ProjectMeta = {
  ...META,
  tables: { ...META.tables, 'public.films': { ...films, mediaHandlers: [geo, csv, anyGeo] } },
  functions: { ...META.functions, 'public.logo': [logo] },
};

function parse(method: string, kind: 'table' | 'rpc', name: string, query: string, accept: string) {
  return parseRequest({
    method, resource: { kind, name }, query, headers: { accept }, body: null, schemas: ['public'],
    mediaHandlers: (schema) => mediaHandlersOf(meta, schema, { kind, name }),
  });
}

describe('handler lookup', () => {
  it('offers a table its aggregates, a function its own type or its rows\' relation\'s', () => {
    expect(mediaHandlersOf(meta, 'public', { kind: 'table', name: 'films' })).toEqual([geo, csv, anyGeo]);
    expect(mediaHandlersOf(meta, 'public', { kind: 'rpc', name: 'logo' })).toEqual([png]);
    expect(mediaHandlersOf(meta, 'public', { kind: 'table', name: 'logo' })).toEqual([]);
  });

  it('offers writes none: their text/csv is the built-in one', () => {
    const write = parseRequest({
      method: 'POST', resource: { kind: 'table', name: 'films' }, query: '', headers: { accept: 'text/csv', 'content-type': 'application/json' },
      body: '{}', schemas: ['public'], mediaHandlers: () => [csv],
    });
    expect(write.media).toEqual({ kind: 'csv', stripNulls: false });
  });
});

describe('SQL of a handler', () => {
  it('runs the relation\'s aggregate over the page, the rows cast to the relation\'s type', () => {
    const st = buildRead(parse('GET', 'table', 'films', 'id=gt.1', 'application/geo+json'), meta);
    expect(st.text).toContain(`pg_catalog.concat("public"."films_geo"(_postgrest_t::"public"."films")) AS body`);
  });

  it('answers the function\'s value as base64 for a bytea domain', () => {
    const st = buildRpc(parse('GET', 'rpc', 'logo', '', 'image/png'), meta);
    expect(st.text).toContain(`coalesce(pg_catalog.encode((pg_catalog.array_agg(_postgrest_t."pgrst_scalar"))[1], 'base64'), '') AS body`);
  });

  it('refuses select= with an aggregate over whole rows, and a function whose result has no such handler', () => {
    expect(errorOf(() => buildRead(parse('GET', 'table', 'films', 'select=id', 'application/geo+json'), meta))).toEqual(refusal('application/geo+json'));
    const plainLogo: FunctionMeta = { ...logo, returnType: 'bytea', mediaHandler: undefined };
    expect(errorOf(() => buildRpc(parse('GET', 'rpc', 'logo', '', 'image/png'), { ...meta, functions: { ...meta.functions, 'public.logo': [plainLogo] } })))
      .toEqual(refusal('image/png'));
  });
});

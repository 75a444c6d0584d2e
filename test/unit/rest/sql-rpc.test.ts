import { describe, expect, it } from 'vitest';
import { buildRpc, resolveFunction } from '../../../runtime/rest/sql/rpc.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { errorOf, request } from './request-helper.js';

function post(fn: string, body: string | null, query = '', headers: Record<string, string> = {}) {
  return buildRpc(request('POST', fn, query, { rpc: true, body, headers }), META);
}

function get(fn: string, query: string, headers: Record<string, string> = {}) {
  return buildRpc(request('GET', fn, query, { rpc: true, headers }), META);
}

const ENVELOPE = (total: string, body: string) => ` SELECT ${total} AS total_count, pg_catalog.count(*) AS page_count, ${body} AS body, `
  + 'NULL::bigint AS inserted_count, NULL::text AS location, pg_catalog.current_setting(\'response.headers\', true) AS response_headers, pg_catalog.current_setting(\'response.status\', true) AS response_status FROM pgrst_source AS _postgrest_t';

describe('RPC', () => {
  it('calls with named arguments converted by json_to_record with the parameter types', () => {
    const st = post('add_them', '{"a":1,"b":2}');
    expect(st.text).toBe('WITH pgrst_source AS MATERIALIZED (SELECT "public"."add_them"("a" := "pgrst_args"."a", "b" := "pgrst_args"."b") AS "pgrst_scalar" '
      + 'FROM json_to_record($1::json) AS "pgrst_args"("a" integer, "b" integer))'
      + ENVELOPE('NULL::bigint', 'coalesce((json_agg(_postgrest_t."pgrst_scalar")->0)::text, \'null\')'));
    expect(st.values).toEqual(['{"a":1,"b":2}']);
    expect(st).toMatchObject({ result: 'scalar', readOnly: true });
  });

  it('reads character and bit arguments as character varying and bit varying, as PostgREST', () => {
    expect(get('padded', 'c=abcdefg&cs={ab,abcdefg}&b=101010').text)
      .toContain('json_to_record($1::json) AS "pgrst_args"("c" character varying, "cs" character varying[], "b" bit varying)');
  });

  it('takes GET query arguments, leaving operator expressions as filters', () => {
    const st = get('films_by_year', 'y=2003&id=gt.1&select=title&order=title&limit=2');
    expect(st.text).toBe('WITH pgrst_call AS (SELECT "pgrst_f".* FROM json_to_record($1::json) AS "pgrst_args"("y" integer) '
      + 'CROSS JOIN LATERAL "public"."films_by_year"("y" := "pgrst_args"."y") AS "pgrst_f"), '
      + 'pgrst_source AS (SELECT "t0"."title" AS "title" FROM pgrst_call AS "t0" WHERE "t0"."id" > $2 ORDER BY "t0"."title" LIMIT $3 OFFSET $4)'
      + ENVELOPE('NULL::bigint', 'coalesce(json_agg(_postgrest_t), \'[]\')::text'));
    expect(st.values).toEqual(['{"y":"2003"}', '1', 2, 0]);
    expect(st.result).toBe('rows');
  });

  it('embeds and counts on table-valued results', () => {
    const st = get('films_by_year', 'y=2003&select=title,directors(last_name)', { prefer: 'count=exact' });
    expect(st.text).toContain('row_to_json("j2".*) AS "directors"');
    expect(st.text).toContain('SELECT (SELECT pg_catalog.count(*) FROM pgrst_call AS "t0") AS total_count');
  });

  it('returns one object for a non-SETOF composite', () => {
    const st = post('point', '{"x":1,"y":2}');
    expect(st.result).toBe('composite');
    expect(st.text).toContain('coalesce((json_agg(_postgrest_t)->0)::text, \'null\') AS body');
    expect(st.text).toContain('SELECT "t0"."px" AS "px", "t0"."py" AS "py" FROM pgrst_call AS "t0"');
  });

  it('returns SETOF scalars as an array, paginated and counted', () => {
    const st = get('series', 'n=5&limit=2', { prefer: 'count=exact' });
    expect(st.text).toBe('WITH pgrst_call AS MATERIALIZED (SELECT "pgrst_f"."pgrst_scalar" FROM json_to_record($1::json) AS "pgrst_args"("n" integer) '
      + 'CROSS JOIN LATERAL "public"."series"("n" := "pgrst_args"."n") AS "pgrst_f"("pgrst_scalar")), '
      + 'pgrst_source AS (SELECT "pgrst_scalar" FROM pgrst_call LIMIT $2 OFFSET $3)'
      + ENVELOPE('(SELECT pg_catalog.count(*) FROM pgrst_call)', 'coalesce(json_agg(_postgrest_t."pgrst_scalar"), \'[]\')::text'));
  });

  it('reads SETOF record from the select list, where it needs no column definition list', () => {
    const st = get('any_rows', 'n=5&limit=2');
    expect(st.text).toBe('WITH pgrst_call AS MATERIALIZED (SELECT "public"."any_rows"("n" := "pgrst_args"."n") AS "pgrst_scalar" '
      + 'FROM json_to_record($1::json) AS "pgrst_args"("n" integer)), '
      + 'pgrst_source AS (SELECT "pgrst_scalar" FROM pgrst_call LIMIT $2 OFFSET $3)'
      + ENVELOPE('NULL::bigint', 'coalesce(json_agg(_postgrest_t."pgrst_scalar"), \'[]\')::text'));
  });

  it('runs void functions and returns no body', () => {
    const st = post('nothing', '');
    expect(st.text).toBe('WITH pgrst_source AS MATERIALIZED (SELECT "public"."nothing"())' + ENVELOPE('NULL::bigint', 'NULL::text'));
    expect(st).toMatchObject({ result: 'void', readOnly: false, values: [] });
  });

  it('gives the whole body to a single unnamed json parameter', () => {
    const st = post('echo', '[1,2]');
    expect(st.text).toContain('SELECT "public"."echo"($1::json) AS "pgrst_scalar")');
    expect(st.values).toEqual(['[1,2]']);
    expect(resolveFunction(request('POST', 'echo', '', { rpc: true, body: '{"any":"keys"}' }), META).wholeBody).toBe(true);
  });

  it('gives a text/plain body to a single unnamed text parameter', () => {
    const st = post('greet', 'raw, "text"', '', { 'content-type': 'text/plain' });
    expect(st.text).toContain('SELECT "public"."greet"($1::text) AS "pgrst_scalar")');
    expect(st.values).toEqual(['raw, "text"']);
    expect(errorOf(() => post('add_them', 'x', '', { 'content-type': 'text/xml' }))).toEqual({ status: 404, body: {
      code: 'PGRST202', message: 'Could not find the function public.add_them in the schema cache',
      details: 'Searched for the function public.add_them with a single unnamed xml parameter, but no matches were found in the schema cache.', hint: null,
    } });
  });

  it('reads the key "" as the name of an unnamed parameter, which takes the whole body (PostgREST)', () => {
    const st = post('poly', '{"":"test"}');
    expect(st.text).toBe('WITH pgrst_source AS MATERIALIZED (SELECT "public"."poly"($1::text) AS "pgrst_scalar")'
      + ENVELOPE('NULL::bigint', 'coalesce((json_agg(_postgrest_t."pgrst_scalar")->0)::text, \'null\')'));
    expect(st.values).toEqual(['{"":"test"}']);
    expect(get('poly', '=test').values).toEqual(['{"":"test"}']);
    expect(post('poly', '{"x":1,"y":2}').text).toContain('"public"."poly"("x" := "pgrst_args"."x", "y" := "pgrst_args"."y")');
    // A JSON body going to a bytea parameter: its UTF-8 bytes.
    expect(post('bin', '{"":"é"}').values).toEqual(['\\x7b22223a22c3a9227d']);
  });

  it('gives an application/octet-stream body to a single unnamed bytea parameter as bytes', () => {
    const st = buildRpc(request('POST', 'bin', '', { rpc: true, body: Buffer.from([1, 2, 0xfe]), headers: { 'content-type': 'application/octet-stream' } }), META);
    expect(st.text).toContain('SELECT "public"."bin"($1::bytea) AS "pgrst_scalar")');
    expect(st.values).toEqual(['\\x0102fe']);
    expect(errorOf(() => post('poly', 'x', '', { 'content-type': 'application/octet-stream' }))).toEqual({ status: 404, body: {
      code: 'PGRST202', message: 'Could not find the function public.poly in the schema cache',
      details: 'Searched for the function public.poly with a single unnamed bytea parameter, but no matches were found in the schema cache.', hint: null,
    } });
  });

  it('reports a key "" no overload takes as PGRST202, and a defaulted unnamed parameter against no parameters as PGRST203', () => {
    expect(errorOf(() => post('add_them', '{"":1}'))).toMatchObject({ status: 404, body: {
      code: 'PGRST202',
      message: 'Could not find the function public.add_them() in the schema cache',
      details: 'Searched for the function public.add_them with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    } });
    expect(errorOf(() => post('maybe', '{}'))).toEqual({ status: 300, body: {
      code: 'PGRST203',
      message: 'Could not choose the best candidate function between: public.maybe(), public.maybe( => text)',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    } });
    // A raw body names no parameter, so the function without parameters is out and the defaulted one is chosen.
    expect(post('maybe', 'raw', '', { 'content-type': 'text/plain' }).text).toContain('"public"."maybe"($1::text)');
  });

  it('passes variadic arguments as an array from GET repeats or a JSON array', () => {
    const st = get('var_sum', 'nums=1&nums=2');
    expect(st.text).toContain('"public"."var_sum"(VARIADIC "nums" := ARRAY(SELECT json_array_elements_text(CASE WHEN json_typeof("pgrst_args"."nums") = \'array\' '
      + 'THEN "pgrst_args"."nums" ELSE json_build_array("pgrst_args"."nums") END))::integer[])');
    expect(st.text).toContain('json_to_record($1::json) AS "pgrst_args"("nums" json)');
    expect(st.values).toEqual(['{"nums":["1","2"]}']);
  });

  it('leaves unsent defaulted arguments to PostgreSQL', () => {
    expect(post('defaults', '{"a":1}').text).toContain('"public"."defaults"("a" := "pgrst_args"."a")');
  });

  it('reports an unknown function or argument set as PGRST202 with a hint', () => {
    expect(errorOf(() => post('add_them', '{"a":1,"c":2}'))).toEqual({ status: 404, body: {
      code: 'PGRST202',
      message: 'Could not find the function public.add_them(a, c) in the schema cache',
      details: 'Searched for the function public.add_them with parameters a, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.add_them(a, b)',
    } });
    expect(errorOf(() => get('add_thme', ''))).toEqual({ status: 404, body: {
      code: 'PGRST202',
      message: 'Could not find the function public.add_thme without parameters in the schema cache',
      details: 'Searched for the function public.add_thme without parameters, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.add_them',
    } });
  });

  it('reports ambiguous overloads as PGRST203', () => {
    expect(errorOf(() => post('over', '{"a":1}'))).toEqual({ status: 300, body: {
      code: 'PGRST203',
      message: 'Could not choose the best candidate function between: public.over(a => integer), public.over(a => text)',
      details: null,
      hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    } });
  });

  it('runs POST of a volatile function read-write, and GET of any function or POST of a non-volatile one read-only', () => {
    expect(post('nothing', null).readOnly).toBe(false);
    expect(post('add_them', '{"a":1,"b":2}').readOnly).toBe(true);
    expect(get('nothing', '').readOnly).toBe(true);
  });
});

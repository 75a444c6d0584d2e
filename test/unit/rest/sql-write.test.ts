import { describe, expect, it } from 'vitest';
import type { ProjectMeta, TableMeta } from '../../../runtime/rest/metadata.js';
import { buildStatement } from '../../../runtime/rest/sql/build.js';
import { columnsRead } from '../../../runtime/rest/sql/write.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { errorOf, request } from './request-helper.js';

function build(method: string, table: string, query: string, body: string | null, headers: Record<string, string> = {}) {
  return buildStatement(request(method, table, query, { body, headers }), META);
}

const MINIMAL_TAIL = ') SELECT (SELECT pg_catalog.count(*) FROM pgrst_source) AS total_count, pg_catalog.count(*) AS page_count, '
  + 'NULL::text AS body, NULL::bigint AS inserted_count, NULL::text AS location, pg_catalog.current_setting(\'response.headers\', true) AS response_headers, pg_catalog.current_setting(\'response.status\', true) AS response_status FROM pgrst_source AS _postgrest_t';

describe('insert', () => {
  it('inserts from the JSON body and returns the representation built by PostgreSQL', () => {
    const st = build('POST', 'films', 'select=id,directors(last_name)', '{"id":1,"title":"x"}');
    expect(st.text).toBe('WITH pgrst_source AS (INSERT INTO "public"."films" AS "t0" ("id", "title") '
      + 'SELECT "pgrst_r"."id", "pgrst_r"."title" FROM json_populate_recordset(NULL::"public"."films", $1::json) AS "pgrst_r" RETURNING "t0"."id", "t0"."director_id"), '
      + 'pgrst_body AS (SELECT "t1"."id" AS "id", row_to_json("j3".*) AS "directors" FROM pgrst_source AS "t1" '
      + 'LEFT JOIN LATERAL (SELECT "t2"."last_name" AS "last_name" FROM "public"."directors" AS "t2" WHERE "t2"."id" = "t1"."director_id") AS "j3" ON TRUE) '
      + 'SELECT (SELECT pg_catalog.count(*) FROM pgrst_source) AS total_count, pg_catalog.count(*) AS page_count, '
      + 'coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, NULL::bigint AS inserted_count, NULL::text AS location, pg_catalog.current_setting(\'response.headers\', true) AS response_headers, pg_catalog.current_setting(\'response.status\', true) AS response_status FROM pgrst_body AS _postgrest_t');
    expect(st.values).toEqual(['[{"id":1,"title":"x"}]']);
    expect(st).toMatchObject({ result: 'rows', readOnly: false });
  });

  it('passes a bulk body through unparsed and keeps one text for any row count', () => {
    const a = build('POST', 'films', '', '[{"id":1,"title":"a"},{"id":2,"title":"b"}]');
    const b = build('POST', 'films', '', '[{"id":3,"title":"c"}]');
    expect(a.values).toEqual(['[{"id":1,"title":"a"},{"id":2,"title":"b"}]']);
    expect(b.text).toBe(a.text);
  });

  it('honours return=minimal and return=headers-only', () => {
    expect(build('POST', 'films', '', '{"id":1,"title":"x"}', { prefer: 'return=minimal' }).text).toBe(
      'WITH pgrst_source AS (INSERT INTO "public"."films" AS "t0" ("id", "title") SELECT "pgrst_r"."id", "pgrst_r"."title" '
      + 'FROM json_populate_recordset(NULL::"public"."films", $1::json) AS "pgrst_r" RETURNING 1' + MINIMAL_TAIL);
    expect(build('POST', 'films', '', '{"id":1,"title":"x"}', { prefer: 'return=headers-only' }).text)
      .toContain('RETURNING "t0"."id") SELECT (SELECT pg_catalog.count(*) FROM pgrst_source) AS total_count, pg_catalog.count(*) AS page_count, '
        + 'NULL::text AS body, NULL::bigint AS inserted_count, (SELECT row_to_json(pgrst_l)::text FROM (SELECT "id" FROM pgrst_source LIMIT 1) AS pgrst_l) AS location, pg_catalog.current_setting(\'response.headers\', true) AS response_headers, pg_catalog.current_setting(\'response.status\', true) AS response_status');
  });

  it('upserts with merge-duplicates (counting inserted rows) and ignore-duplicates, on the PK or on_conflict', () => {
    const merge = build('POST', 'films', 'on_conflict=title', '{"id":1,"title":"x"}', { prefer: 'resolution=merge-duplicates' });
    const setting = "pg_catalog.set_config('pgrst.inserted', (coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int, 0)";
    expect(merge.text).toContain(`FROM json_populate_recordset(NULL::"public"."films", $1::json) AS "pgrst_r" WHERE ${setting} + 1)::text, true) IS NOT NULL`);
    expect(merge.text).toContain(`ON CONFLICT ("title") DO UPDATE SET "id" = EXCLUDED."id", "title" = EXCLUDED."title" WHERE ${setting} - 1)::text, true) IS NOT NULL RETURNING "t0".*)`);
    expect(merge.text).toContain("coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::bigint, 0) AS inserted_count");
    expect(build('POST', 'films', '', '{"id":1}', { prefer: 'resolution=ignore-duplicates' }).text).toContain('ON CONFLICT ("id") DO NOTHING RETURNING "t0".*)');
    expect(build('POST', 'films', 'on_conflict=title', '{"id":1}', {}).text).not.toContain('ON CONFLICT');
    expect(errorOf(() => build('POST', 'films', 'on_conflict=nope', '{"id":1}', { prefer: 'resolution=merge-duplicates' })).body.code).toBe('42703');
  });

  it('fills missing keys with column defaults under missing=default', () => {
    const st = build('POST', 'items', 'columns=name,qty,total', '[{"name":"x"},{"qty":2}]', { prefer: 'missing=default' });
    expect(st.text).toContain('INSERT INTO "public"."items" AS "t0" ("name", "qty") SELECT '
      + 'CASE WHEN "pgrst_e"."j" -> $2::text IS NULL THEN (\'unnamed\'::text) ELSE "pgrst_r"."name" END, '
      + 'CASE WHEN "pgrst_e"."j" -> $3::text IS NULL THEN (1) ELSE "pgrst_r"."qty" END '
      + 'FROM json_array_elements($1::json) AS "pgrst_e"("j") CROSS JOIN LATERAL json_populate_record(NULL::"public"."items", "pgrst_e"."j") AS "pgrst_r" RETURNING');
    expect(st.values).toEqual(['[{"name":"x"},{"qty":2}]', 'name', 'qty']);
    const identity = build('POST', 'orders', 'columns=id,name', '[{"name":"x"}]', { prefer: 'missing=default' });
    expect(identity.text).toContain('THEN nextval(pg_catalog.pg_get_serial_sequence($3::text, $4::text)) ELSE "pgrst_r"."id" END');
    expect(identity.values).toEqual(['[{"name":"x"}]', 'id', '"public"."orders"', 'id', 'name']);
  });

  it("gives a column without a default of its own its domain's default under missing=default, a column default first", () => {
    const items = META.tables['public.items'] as TableMeta;
    const columns = items.columns.map((c) => (c.name === 'name' ? { ...c, domainDefault: "'ignored'::text" } : c));
    const meta: ProjectMeta = {
      ...META,
      tables: { ...META.tables, 'public.items': { ...items, columns: [...columns, { ...columns[1]!, name: 'code', default: null, domainDefault: '666' }] } },
    };
    const st = buildStatement(request('POST', 'items', 'columns=name,code', { body: '[{"qty":2}]', headers: { prefer: 'missing=default' } }), meta);
    expect(st.text).toContain('INSERT INTO "public"."items" AS "t0" ("name", "code") SELECT '
      + 'CASE WHEN "pgrst_e"."j" -> $2::text IS NULL THEN (\'unnamed\'::text) ELSE "pgrst_r"."name" END, '
      + 'CASE WHEN "pgrst_e"."j" -> $3::text IS NULL THEN (666) ELSE "pgrst_r"."code" END FROM');
  });

  it('inserts default rows for objects without keys, and nothing for an empty array', () => {
    expect(build('POST', 'items', '', '[{},{}]', { prefer: 'return=minimal' }).text)
      .toBe('WITH pgrst_source AS (INSERT INTO "public"."items" AS "t0" SELECT FROM json_array_elements($1::json) RETURNING 1' + MINIMAL_TAIL);
    expect(build('POST', 'films', '', '[]').values).toEqual(['[]']);
  });

  it('refuses unknown payload columns (PGRST204) and bad bodies (PGRST102)', () => {
    expect(errorOf(() => build('POST', 'films', '', '{"nope":1}'))).toEqual({ status: 400, body: {
      code: 'PGRST204', message: 'Could not find the \'nope\' column of \'films\' in the schema cache', details: null, hint: null,
    } });
    expect(errorOf(() => build('POST', 'films', 'columns=id,nope', '{"id":1}')).body.code).toBe('PGRST204');
    expect(errorOf(() => build('POST', 'films', '', '{bad'))).toEqual({ status: 400, body: {
      code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null,
    } });
    expect(errorOf(() => build('POST', 'films', '', '[{"id":1},{"title":"x"}]')).body.message).toBe('All object keys must match');
  });
});

describe('update and delete', () => {
  it('updates the filtered rows from the body', () => {
    const st = build('PATCH', 'films', 'id=eq.1&select=id', '{"title":"x","year":2000}');
    expect(st.text).toContain('WITH pgrst_source AS (UPDATE "public"."films" AS "t0" SET "title" = "pgrst_r"."title", "year" = "pgrst_r"."year" '
      + 'FROM json_populate_record(NULL::"public"."films", ($1::json)->0) AS "pgrst_r" WHERE "t0"."id" = $2 RETURNING "t0"."id"), '
      + 'pgrst_body AS (SELECT "t1"."id" AS "id" FROM pgrst_source AS "t1")');
    expect(st.values).toEqual(['[{"title":"x","year":2000}]', '1']);
  });

  it('sets defaults for listed keys missing from the body under missing=default', () => {
    const st = build('PATCH', 'items', 'columns=name,qty&id=eq.1', '{"qty":3}', { prefer: 'missing=default' });
    expect(st.text).toContain('SET "name" = CASE WHEN ($1::json)->0 -> $2::text IS NULL THEN (\'unnamed\'::text) ELSE "pgrst_r"."name" END, '
      + '"qty" = CASE WHEN ($1::json)->0 -> $3::text IS NULL THEN (1) ELSE "pgrst_r"."qty" END FROM json_populate_record(NULL::"public"."items", ($1::json)->0) AS "pgrst_r" WHERE "t0"."id" = $4');
    expect(st.values).toEqual(['[{"qty":3}]', 'name', 'qty', '1']);
  });

  it('treats PUT as PATCH (service document)', () => {
    expect(build('PUT', 'films', 'id=eq.1', '{"title":"x"}').text).toBe(build('PATCH', 'films', 'id=eq.1', '{"title":"x"}').text);
  });

  it('updates every row without a filter, and nothing for an empty body', () => {
    expect(build('PATCH', 'films', '', '{"title":"x"}', { prefer: 'return=minimal' }).text).toBe('WITH pgrst_source AS (UPDATE "public"."films" AS "t0" '
      + 'SET "title" = "pgrst_r"."title" FROM json_populate_record(NULL::"public"."films", ($1::json)->0) AS "pgrst_r" RETURNING 1' + MINIMAL_TAIL);
    expect(build('PATCH', 'films', 'id=eq.1', '{}', { prefer: 'return=minimal' }).text)
      .toBe('WITH pgrst_source AS (SELECT 1 FROM "public"."films" AS "t0" WHERE false' + MINIMAL_TAIL);
    expect(build('PATCH', 'films', 'id=eq.1&select=title', '{}').text).toContain('WITH pgrst_source AS (SELECT "t0"."title" FROM "public"."films" AS "t0" WHERE false)');
  });

  it('deletes the filtered rows; embedded filters shape only the returned rows', () => {
    expect(build('DELETE', 'films', 'year=lt.2000&or=(id.eq.1,id.eq.2)', null, { prefer: 'return=minimal' }).text)
      .toBe('WITH pgrst_source AS (DELETE FROM "public"."films" AS "t0" WHERE "t0"."year" < $1 AND ("t0"."id" = $2 OR "t0"."id" = $3) RETURNING 1' + MINIMAL_TAIL);
    const st = build('DELETE', 'films', 'id=eq.1&select=id,roles(character)&roles.character=eq.Bob', null);
    expect(st.text).toContain('DELETE FROM "public"."films" AS "t0" WHERE "t0"."id" = $1 RETURNING "t0"."id")');
    expect(st.text).toContain('WHERE "t2"."film_id" = "t1"."id" AND "t2"."character" = $2');
  });

  it('returns only the columns the response reads, so column-level SELECT privileges suffice (PostgREST DeleteSpec)', () => {
    expect(build('DELETE', 'films', 'id=eq.1&select=title,id', null).text).toContain('RETURNING "t0"."id", "t0"."title")');
    expect(build('DELETE', 'films', 'id=eq.1', null).text).toContain('RETURNING "t0".*)');
  });

  it('checks filter columns before any SQL', () => {
    expect(errorOf(() => build('DELETE', 'films', 'nope=eq.1', null)).body.code).toBe('42703');
  });
});

describe('writes to a view PostgreSQL cannot write through', () => {
  const films = META.tables['public.films'] as TableMeta;
  const meta: ProjectMeta = {
    ...META,
    tables: { ...META.tables, 'public.totals': { ...films, name: 'totals', kind: 'view', updatable: { insert: false, update: true, delete: false } } },
  };

  it('are a 405 before any SQL (not a 55000 from inside the statement), the methods it can take still build', () => {
    for (const method of ['POST', 'DELETE']) {
      expect(errorOf(() => buildStatement(request(method, 'totals', '', { body: '{"id":1}' }), meta))).toEqual({
        status: 405,
        body: { code: 'PGRST117', message: `Cannot use the ${method} method on public.totals`, details: 'The relation is a view PostgreSQL cannot write through for this method.', hint: null },
      });
    }
    expect(buildStatement(request('PATCH', 'totals', 'id=eq.1', { body: '{"title":"x"}' }), meta).text).toContain('UPDATE "public"."totals"');
  });
});

describe('columnsRead', () => {
  const films = META.tables['public.films'] as TableMeta;

  it("finds the columns read through the alias, in the table's order", () => {
    expect(columnsRead('SELECT "t1"."title" AS "t", "t10"."year" FROM x WHERE "t1"."id" = "t2"."director_id"', 't1', films)).toEqual(['id', 'title']);
    expect(columnsRead('SELECT 1', 't1', films)).toEqual([]);
  });

  it('is null (whole rows) for a whole-row use of the alias or every column', () => {
    expect(columnsRead('SELECT "public"."f"("t1"::"public"."films")', 't1', films)).toBeNull();
    expect(columnsRead(films.columns.map((c) => `"t1".${JSON.stringify(c.name)}`).join(', '), 't1', films)).toBeNull();
  });
});

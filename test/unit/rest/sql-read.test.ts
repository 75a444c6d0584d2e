import { describe, expect, it } from 'vitest';
import { explainSql, planText } from '../../../runtime/rest/sql/explain.js';
import { buildRead } from '../../../runtime/rest/sql/read.js';
import { plannedRowsFromExplain } from '../../../runtime/rest/sql/statement.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { errorOf, request, type RequestOptions } from './request-helper.js';

const TAIL = 'SELECT NULL::bigint AS total_count, pg_catalog.count(*) AS page_count, coalesce(json_agg(_postgrest_t), \'[]\')::text AS body, '
  + 'NULL::bigint AS inserted_count, NULL::text AS location, pg_catalog.current_setting(\'response.headers\', true) AS response_headers, pg_catalog.current_setting(\'response.status\', true) AS response_status FROM pgrst_source AS _postgrest_t';

function read(table: string, query: string, options: RequestOptions = {}) {
  return buildRead(request('GET', table, query, options), META);
}

/** The WHERE clause of a root query without order or limit. */
function where(query: string): { sql: string; values: readonly unknown[] } {
  const st = read('films', `select=id&${query}`);
  const m = /^WITH pgrst_source AS \(SELECT "t0"\."id" AS "id" FROM "public"\."films" AS "t0" WHERE (.*)\) SELECT NULL::bigint/.exec(st.text);
  if (!m) throw new Error(`unexpected statement: ${st.text}`);
  return { sql: m[1] ?? '', values: st.values };
}

describe('read statement', () => {
  it('builds the page, body and count in one statement with every value bound', () => {
    const st = read('films', 'select=id,title&title=eq.x&order=id.desc&limit=10&offset=20');
    expect(st.text).toBe('WITH pgrst_source AS (SELECT "t0"."id" AS "id", "t0"."title" AS "title" FROM "public"."films" AS "t0" '
      + 'WHERE "t0"."title" = $1 ORDER BY "t0"."id" DESC LIMIT $2 OFFSET $3) ' + TAIL);
    expect(st.values).toEqual(['x', 10, 20]);
    expect(st).toMatchObject({ result: 'rows', readOnly: true, plannedCount: null, countThreshold: null });
  });

  it('expands * from metadata in column order', () => {
    expect(read('directors', '').text).toBe('WITH pgrst_source AS (SELECT "t0"."id" AS "id", "t0"."first_name" AS "first_name", '
      + '"t0"."last_name" AS "last_name" FROM "public"."directors" AS "t0") ' + TAIL);
  });

  it('gives the same text and statement name for the same shape with other values', () => {
    const a = read('films', 'select=id&title=eq.x&id=in.(1,2)&limit=5');
    const b = read('films', 'select=id&title=eq.other&id=in.(3,4,5,6)&limit=50&offset=100');
    expect(b.text).toBe(a.text);
    expect(b.name).toBe(a.name);
    expect(a.name).toMatch(/^pgrst_[A-Za-z0-9_-]{18}$/);
    expect(read('films', 'select=id&title=neq.x').name).not.toBe(a.name);
  });

  it('aliases, casts and JSON paths in the select (keys bound as parameters)', () => {
    const st = read('films', 'select=t:title,year::text,meta->author->>name,doc->a,tags->0');
    expect(st.text).toContain('SELECT "t0"."title" AS "t", CAST("t0"."year" AS text) AS "year", '
      + '"t0"."meta"->$1->>$2 AS "name", "t0"."doc"->$3 AS "a", to_jsonb("t0"."tags")->$4::integer AS "tags" FROM');
    expect(st.values).toEqual(['author', 'name', 'a', '0']);
  });

  it('quotes identifiers with double quotes doubled', () => {
    const st = read('films', 'select="we\\"ird":title');
    expect(st.text).toContain('"t0"."title" AS "we""ird"');
  });
});

describe('filters', () => {
  it('renders comparison operators with bound values', () => {
    expect(where('year=gt.2000&year=lte.2010&title=neq.x')).toEqual({
      sql: '"t0"."year" > $1 AND "t0"."year" <= $2 AND "t0"."title" <> $3', values: ['2000', '2010', 'x'],
    });
    expect(where('title=like.*Trans*&title=ilike.a*b')).toEqual({ sql: '"t0"."title" LIKE $1 AND "t0"."title" ILIKE $2', values: ['%Trans%', 'a%b'] });
    expect(where('title=match.^L&title=imatch.x$')).toEqual({ sql: '"t0"."title" ~ $1 AND "t0"."title" ~* $2', values: ['^L', 'x$'] });
  });

  it('renders quantifiers, in, is and isdistinct', () => {
    expect(where('title=like(any).{O*,P*}&year=gt(all).{1,2}')).toEqual({
      sql: '"t0"."title" LIKE ANY($1) AND "t0"."year" > ALL($2)', values: ['{O%,P%}', '{1,2}'],
    });
    expect(where('id=in.(1,"a,b","q\\"x")')).toEqual({ sql: '"t0"."id" = ANY($1)', values: ['{"1","a,b","q\\"x"}'] });
    expect(where('id=in.()')).toEqual({ sql: '"t0"."id" = ANY($1)', values: ['{}'] });
    expect(where('year=is.null&title=is.not_null&year=not.is.true')).toEqual({
      sql: '"t0"."year" IS NULL AND "t0"."title" IS NOT NULL AND NOT ("t0"."year" IS TRUE)', values: [],
    });
    expect(where('year=isdistinct.5')).toEqual({ sql: '"t0"."year" IS DISTINCT FROM $1', values: ['5'] });
  });

  it('renders array, range and JSON containment operators', () => {
    expect(where('tags=cs.{a,b}&tags=cd.{a}&tags=ov.{x}')).toEqual({
      sql: '"t0"."tags" @> $1 AND "t0"."tags" <@ $2 AND "t0"."tags" && $3', values: ['{a,b}', '{a}', '{x}'],
    });
    expect(where('duration=sl.[1,2)&duration=sr.[1,2)&duration=nxr.[1,2)&duration=nxl.[1,2)&duration=adj.(3,10]')).toEqual({
      sql: '"t0"."duration" << $1 AND "t0"."duration" >> $2 AND "t0"."duration" &< $3 AND "t0"."duration" &> $4 AND "t0"."duration" -|- $5',
      values: ['[1,2)', '[1,2)', '[1,2)', '[1,2)', '(3,10]'],
    });
    expect(where('meta=cs.{"n":1}')).toEqual({ sql: '"t0"."meta" @> $1', values: ['{"n":1}'] });
  });

  it('renders full-text search on tsvector and text columns, with and without language', () => {
    expect(where('search=fts(english).cat')).toEqual({ sql: '"t0"."search" @@ to_tsquery($1::regconfig, $2)', values: ['english', 'cat'] });
    expect(where('search=plfts.a b&search=phfts.c&search=wfts.d')).toEqual({
      sql: '"t0"."search" @@ plainto_tsquery($1) AND "t0"."search" @@ phraseto_tsquery($2) AND "t0"."search" @@ websearch_to_tsquery($3)',
      values: ['a b', 'c', 'd'],
    });
    expect(where('title=fts(simple).x')).toEqual({ sql: 'to_tsvector($1::regconfig, "t0"."title") @@ to_tsquery($1::regconfig, $2)', values: ['simple', 'x'] });
  });

  it('renders JSON path filters (json compared as jsonb)', () => {
    expect(where('meta->>author=eq.x&doc->a=gt.1&tags->0=eq."a"')).toEqual({
      sql: '"t0"."meta"->>$1 = $2 AND "t0"."doc"::jsonb->$3 > $4 AND to_jsonb("t0"."tags")->$5::integer = $6',
      values: ['author', 'x', 'a', '1', '0', '"a"'],
    });
  });

  it('renders nested and negated logic trees', () => {
    expect(where('or=(year.lt.1990,and(title.like.*a*,year.not.is.null))&not.and=(id.eq.1,id.eq.2)')).toEqual({
      sql: '("t0"."year" < $1 OR ("t0"."title" LIKE $2 AND NOT ("t0"."year" IS NULL))) AND NOT ("t0"."id" = $3 AND "t0"."id" = $4)',
      values: ['1990', '%a%', '1', '2'],
    });
  });

  it('refuses unknown columns with 42703 before any SQL', () => {
    expect(errorOf(() => read('films', 'nope=eq.1'))).toEqual({ status: 400, body: {
      code: '42703', message: 'column films.nope does not exist', details: null, hint: null,
    } });
    expect(errorOf(() => read('films', 'select=nope')).body.code).toBe('42703');
    expect(errorOf(() => read('films', 'order=nope')).body.code).toBe('42703');
    expect(errorOf(() => read('films', 'or=(nope.eq.1)')).body.code).toBe('42703');
  });

  it('keeps hostile values out of the SQL text', () => {
    const hostile = "x'); DROP TABLE films; --\u0001\u{1F600}\"";
    const st = read('films', `select=id&title=eq.${encodeURIComponent(hostile)}&or=(title.eq."${encodeURIComponent(hostile.replace(/"/g, '\\"'))}")`);
    expect(st.text).not.toContain('DROP');
    expect(st.values).toEqual([hostile, hostile]);
  });
});

describe('order', () => {
  it('renders directions, nulls and JSON paths', () => {
    const st = read('films', 'select=id&order=year.desc.nullslast,title,meta->>n.asc.nullsfirst');
    expect(st.text).toContain('ORDER BY "t0"."year" DESC NULLS LAST, "t0"."title", "t0"."meta"->>$1 ASC NULLS FIRST)');
    expect(st.values).toEqual(['n']);
  });

  it('orders by a to-one embed column and refuses to-many', () => {
    const st = read('films', 'select=id,directors(last_name)&order=directors(last_name).desc');
    expect(st.text).toContain('ORDER BY "j2"."last_name" DESC');
    expect(errorOf(() => read('directors', 'select=id,films(title)&order=films(title)'))).toEqual({ status: 400, body: {
      code: 'PGRST118', message: 'A related order on \'films\' is not possible',
      details: '\'directors\' and \'films\' do not form a many-to-one or one-to-one relationship', hint: null,
    } });
  });
});

describe('embeds', () => {
  it('embeds to-one as an object and to-many as an array through LATERAL joins', () => {
    const st = read('films', 'select=title,directors(last_name),roles(character)');
    expect(st.text).toBe('WITH pgrst_source AS (SELECT "t0"."title" AS "title", row_to_json("j2".*) AS "directors", '
      + 'coalesce("j4"."body", \'[]\') AS "roles" FROM "public"."films" AS "t0" '
      + 'LEFT JOIN LATERAL (SELECT "t1"."last_name" AS "last_name" FROM "public"."directors" AS "t1" WHERE "t1"."id" = "t0"."director_id") AS "j2" ON TRUE '
      + 'LEFT JOIN LATERAL (SELECT json_agg("a5") AS "body" FROM (SELECT "t3"."character" AS "character" FROM "public"."roles" AS "t3" '
      + 'WHERE "t3"."film_id" = "t0"."id") AS "a5") AS "j4" ON TRUE) ' + TAIL);
  });

  it('embeds many-to-many through the junction table', () => {
    const st = read('films', 'select=title,actors(first_name)');
    expect(st.text).toContain('FROM "public"."actors" AS "t1" INNER JOIN "public"."roles" AS "t2" ON "t2"."actor_id" = "t1"."id" '
      + 'WHERE "t2"."film_id" = "t0"."id"');
  });

  it('filters, orders and limits embedded rows; !inner filters the parents', () => {
    const st = read('films', 'select=title,actors!inner(first_name)&actors.first_name=eq.Bill&actors.order=last_name&actors.limit=2&actors.offset=1');
    expect(st.text).toContain('WHERE "t2"."film_id" = "t0"."id" AND "t1"."first_name" = $1 ORDER BY "t1"."last_name" LIMIT $2 OFFSET $3) AS "a4") AS "j3" ON "j3"."body" IS NOT NULL');
    expect(st.text).toContain('INNER JOIN LATERAL');
    expect(st.values).toEqual(['Bill', 2, 1]);
  });

  it('scopes logic trees to embeds', () => {
    const st = read('films', 'select=title,roles(character)&roles.or=(character.eq.Bob,character.eq.Travis)');
    expect(st.text).toContain('WHERE "t1"."film_id" = "t0"."id" AND ("t1"."character" = $1 OR "t1"."character" = $2)');
  });

  it('filters parents by embed presence (is.null / not.is.null)', () => {
    expect(read('films', 'select=id,roles()&roles=is.null').text).toContain('WHERE NOT ("j2"."body" IS NOT NULL)');
    expect(read('films', 'select=id,directors()&directors=not.is.null').text).toContain('WHERE "j2" IS DISTINCT FROM NULL');
    expect(errorOf(() => read('films', 'select=id,roles()&roles=eq.1'))).toEqual({ status: 400, body: {
      code: 'PGRST120', message: 'Bad operator on the \'roles\' embedded resource',
      details: 'Only is null or not is null filters are allowed on embedded resources', hint: null,
    } });
  });

  it('spreads to-one columns into the parent and to-many columns as arrays', () => {
    expect(read('films', 'select=title,...directors(dl:last_name)').text).toContain('SELECT "t0"."title" AS "title", "j2"."dl" AS "dl" FROM');
    const many = read('directors', 'select=last_name,...films(titles:title)').text;
    expect(many).toContain('coalesce("j2"."titles", \'[]\') AS "titles"');
    expect(many).toContain('SELECT json_agg("a3"."titles") AS "titles" FROM (SELECT "t1"."title" AS "titles"');
  });

  it('disambiguates by constraint, column and alias; self-relations by convention', () => {
    const st = read('orders', 'select=b:addresses!billing(name),s:addresses!shipping_address_id(name)');
    expect(st.text).toContain('WHERE "t1"."id" = "t0"."billing_address_id"');
    expect(st.text).toContain('WHERE "t3"."id" = "t0"."shipping_address_id"');
    const self = read('employees', 'select=name,manager_id(name),employees(name)').text;
    expect(self).toContain('WHERE "t1"."id" = "t0"."manager_id"');
    expect(self).toContain('WHERE "t3"."manager_id" = "t0"."id"');
  });

  it('reports PGRST200 for an unknown embed, with a hint when it looks like a typo', () => {
    expect(errorOf(() => read('films', 'select=id,director(*)'))).toEqual({ status: 400, body: {
      code: 'PGRST200', message: 'Could not find a relationship between \'films\' and \'director\' in the schema cache',
      details: 'Searched for a foreign key relationship between \'films\' and \'director\' in the schema \'public\', but no matches were found.',
      hint: 'Perhaps you meant \'directors\' instead of \'director\'.',
    } });
    expect(errorOf(() => read('orders', 'select=addresses!nope(*)')).body.details)
      .toBe('Searched for a foreign key relationship between \'orders\' and \'addresses\' using the hint \'nope\' in the schema \'public\', but no matches were found.');
  });

  it('resolves every embed, nested ones too, before any column: PGRST200 wins over 42703 as in PostgREST', () => {
    expect(errorOf(() => read('films', 'select=nope,directors(id,nope2,nowhere(id))')).body.code).toBe('PGRST200');
    expect(errorOf(() => read('films', 'select=nope,directors(id)')).body).toMatchObject({ code: '42703', message: 'column films.nope does not exist' });
  });

  it('reports PGRST201 for an ambiguous embed with the candidates and a hint', () => {
    expect(errorOf(() => read('orders', 'select=*,addresses(*)'))).toEqual({ status: 300, body: {
      code: 'PGRST201',
      message: 'Could not embed because more than one relationship was found for \'orders\' and \'addresses\'',
      details: [
        { cardinality: 'many-to-one', embedding: 'orders with addresses', relationship: 'billing using orders(billing_address_id) and addresses(id)' },
        { cardinality: 'many-to-one', embedding: 'orders with addresses', relationship: 'shipping using orders(shipping_address_id) and addresses(id)' },
      ],
      hint: 'Try changing \'addresses\' to one of the following: \'addresses!billing\', \'addresses!shipping\'. Find the desired relationship in the \'details\' key.',
    } });
  });

  it('reports PGRST108 for embedded parameters on embeds not in the select', () => {
    expect(errorOf(() => read('films', 'select=id&roles.character=eq.x'))).toEqual({ status: 400, body: {
      code: 'PGRST108', message: '\'roles\' is not an embedded resource in this request', details: null,
      hint: 'Verify that \'roles\' is included in the \'select\' query parameter.',
    } });
    expect(errorOf(() => read('films', 'select=id,r:roles(*)&roles.limit=1')).body).toEqual({
      code: 'PGRST108', message: '\'roles\' is not an embedded resource in this request',
      details: 'Target names are not allowed in filters if they have an alias', hint: 'Change \'roles\' to \'r\' in filters, orders or limits.',
    });
  });

  it('refuses an embed name used twice at one level with 42712, naming PostgREST\'s join alias', () => {
    const twice = (alias: string) => ({ status: 400, body: { code: '42712', message: `table name "${alias}" specified more than once`, details: null, hint: null } });
    expect(errorOf(() => read('films', 'select=id,directors(id),directors(last_name)'))).toEqual(twice('films_directors_1'));
    expect(errorOf(() => read('films', 'select=id,d:directors(id),d:roles(character)'))).toEqual(twice('films_d_1'));
    expect(errorOf(() => read('films', 'select=id,directors(id),directors:roles(character)'))).toEqual(twice('films_directors_1'));
    expect(errorOf(() => read('films', 'select=id,...directors(first_name),...directors(last_name)'))).toEqual(twice('films_directors_1'));
    expect(errorOf(() => read('directors', 'select=films(id,roles(character),roles(actor_id))'))).toEqual(twice('films_roles_2'));
    // Planning errors anywhere in the tree come first, as PostgREST finds them before PostgreSQL sees the query.
    expect(errorOf(() => read('films', 'select=directors(id),directors(id)&roles.limit=1')).body.code).toBe('PGRST108');
    expect(errorOf(() => read('films', 'select=directors(id),directors(id),nope(id)')).body.code).toBe('PGRST200');
    const aliased = read('films', 'select=id,a:directors(first_name),b:directors(last_name)');
    expect(aliased.text).toContain('row_to_json("j2".*) AS "a", row_to_json("j4".*) AS "b"');
  });

  it('nests to any depth', () => {
    const st = read('actors', 'select=first_name,roles(character,films(title,directors(last_name)))');
    expect(st.text).toContain('row_to_json("j4".*) AS "directors"');
    expect(st.text).toContain('row_to_json("j5".*) AS "films"');
  });

  it('reports 42P01 for an unknown table', () => {
    expect(errorOf(() => read('film', ''))).toEqual({ status: 404, body: {
      code: '42P01', message: 'Could not find the table \'public.film\' in the schema cache', details: null,
      hint: 'Perhaps you meant the table \'public.films\'',
    } });
  });
});

describe('counts, media types and HEAD', () => {
  it('counts exactly in the same statement, with the joins that change the row set', () => {
    const st = read('films', 'select=id&year=gt.2000&limit=1', { headers: { prefer: 'count=exact' } });
    expect(st.text).toContain('SELECT (SELECT pg_catalog.count(*) FROM "public"."films" AS "t0" WHERE "t0"."year" > $1) AS total_count');
    expect(read('films', 'select=id&count=exact').text).toContain('(SELECT pg_catalog.count(*) FROM "public"."films" AS "t0") AS total_count');
  });

  it('caps the estimated count and offers a planned count to the runtime', () => {
    const st = read('films', 'select=id,meta->>n&year=gt.1&limit=5', { headers: { prefer: 'count=estimated' } });
    expect(st.text).toContain('(SELECT pg_catalog.count(*) FROM (SELECT 1 FROM "public"."films" AS "t0" WHERE "t0"."year" > $2 LIMIT $5) AS "pgrst_capped") AS total_count');
    expect(st.values).toEqual(['n', '1', 5, 0, 1001]);
    expect(st.countThreshold).toBe(1000);
    expect(st.plannedCount).toEqual({
      text: 'EXPLAIN (FORMAT JSON) SELECT "t0"."id" AS "id", "t0"."meta"->>$1 AS "n" FROM "public"."films" AS "t0" WHERE "t0"."year" > $2',
      values: ['n', '1'],
    });
    const planned = read('films', 'select=id&count=planned');
    expect(planned.text).toContain('SELECT NULL::bigint AS total_count');
    expect(planned.plannedCount?.text).toBe('EXPLAIN (FORMAT JSON) SELECT "t0"."id" AS "id" FROM "public"."films" AS "t0"');
  });

  it('caps every read level at maxRows (db-max-rows) when configured', () => {
    const st = buildRead(request('GET', 'directors', 'select=id,films(id)&limit=5000&films.limit=2'), META, { maxRows: 100 });
    expect(st.text).toContain('WHERE "t1"."director_id" = "t0"."id" LIMIT $1 OFFSET $2');
    expect(st.text).toContain('ON TRUE LIMIT $3 OFFSET $4)');
    expect(st.values).toEqual([2, 0, 100, 0]);
    expect(buildRead(request('GET', 'films', 'select=id&count=estimated'), META, { maxRows: 50 }).countThreshold).toBe(50);
  });

  it('reads the planner estimate from EXPLAIN output', () => {
    expect(plannedRowsFromExplain([{ Plan: { 'Node Type': 'Seq Scan', 'Plan Rows': 1234 } }])).toBe(1234);
    expect(plannedRowsFromExplain('[{"Plan":{"Plan Rows":7}}]')).toBe(7);
    expect(plannedRowsFromExplain('nonsense')).toBeNull();
  });

  it('builds singular, stripped, CSV and HEAD bodies in SQL', () => {
    const body = (accept: string, method = 'GET') => {
      const st = buildRead(request(method, 'films', 'select=id', { headers: { accept } }), META);
      return /count\(\*\) AS page_count, (.*) AS body, NULL::bigint AS inserted_count/.exec(st.text)?.[1];
    };
    expect(body('application/vnd.pgrst.object+json')).toBe('coalesce((json_agg(_postgrest_t)->0)::text, \'null\')');
    expect(body('application/vnd.pgrst.array+json;nulls=stripped')).toBe('coalesce(json_strip_nulls(json_agg(_postgrest_t)), \'[]\')::text');
    expect(body('text/csv')).toBe('(SELECT coalesce(string_agg(a.k, \',\'), \'\') FROM (SELECT json_object_keys(r)::text AS k FROM '
      + '(SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) AS s) AS a) || E\'\\n\' || '
      + 'coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), E\'\\n\'), \'\')');
    expect(body('application/json', 'HEAD')).toBe('NULL::text');
  });
});

describe('aggregates', () => {
  const agg = (table: string, query: string) => buildRead(request('GET', table, query), META, { aggregates: true });
  /** The page query of a read: what pgrst_source holds. */
  const page = (table: string, query: string) => /^WITH pgrst_source AS \((.*)\) SELECT NULL::bigint/.exec(agg(table, query).text)?.[1];

  it('applies the functions and groups by every other selected output, by position', () => {
    expect(page('films', 'select=year.sum(),count(),director_id')).toBe('SELECT pg_catalog.sum("t0"."year") AS "sum", '
      + 'pg_catalog.count(*) AS "count", "t0"."director_id" AS "director_id" FROM "public"."films" AS "t0" GROUP BY 3');
    expect(page('films', 'select=total:year::numeric.avg()::int,year.min(),year.max(),id.count()&year=gt.1')).toBe('SELECT '
      + 'CAST(pg_catalog.avg(CAST("t0"."year" AS numeric)) AS int) AS "total", pg_catalog.min("t0"."year") AS "min", '
      + 'pg_catalog.max("t0"."year") AS "max", pg_catalog.count("t0"."id") AS "count" FROM "public"."films" AS "t0" WHERE "t0"."year" > $1');
  });

  it('groups by embeds as jsonb (json has no equality)', () => {
    expect(page('films', 'select=year.sum(),directors(last_name)')).toBe('SELECT pg_catalog.sum("t0"."year") AS "sum", '
      + '(row_to_json("j2".*))::jsonb AS "directors" FROM "public"."films" AS "t0" LEFT JOIN LATERAL (SELECT "t1"."last_name" AS "last_name" '
      + 'FROM "public"."directors" AS "t1" WHERE "t1"."id" = "t0"."director_id") AS "j2" ON TRUE GROUP BY 2');
  });

  it('aggregates inside a to-many embed per parent row, grouped by its other columns', () => {
    expect(page('directors', 'select=last_name,films(year.max(),title)')).toContain('LEFT JOIN LATERAL (SELECT json_agg("a3") AS "body" FROM '
      + '(SELECT pg_catalog.max("t1"."year") AS "max", "t1"."title" AS "title" FROM "public"."films" AS "t1" '
      + 'WHERE "t1"."director_id" = "t0"."id" GROUP BY 2) AS "a3") AS "j2" ON TRUE');
  });

  it('hoists aggregates of a to-one spread to the level it spreads into', () => {
    expect(page('films', 'select=title,...directors(id.max(),n:count())')).toBe('SELECT "t0"."title" AS "title", '
      + 'pg_catalog.max("j2"."max") AS "max", pg_catalog.count("j2"."n") AS "n" FROM "public"."films" AS "t0" LEFT JOIN LATERAL '
      + '(SELECT "t1"."id" AS "max", TRUE AS "n" FROM "public"."directors" AS "t1" WHERE "t1"."id" = "t0"."director_id") AS "j2" ON TRUE GROUP BY 1');
    expect(page('films', 'select=year.sum(),...directors(last_name)')).toContain('"j2"."last_name" AS "last_name" FROM');
  });

  it('refuses aggregates in a to-many spread with PGRST127', () => {
    expect(errorOf(() => agg('directors', 'select=last_name,...films(year.sum())'))).toEqual({ status: 400, body: {
      code: 'PGRST127', message: 'Feature not implemented', details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.', hint: null,
    } });
  });

  it('refuses any aggregate, at any depth, with PGRST123 unless enabled', () => {
    const refusal = { status: 400, body: { code: 'PGRST123', message: 'Use of aggregate functions is not allowed', details: null, hint: null } };
    expect(errorOf(() => read('films', 'select=count()'))).toEqual(refusal);
    expect(errorOf(() => read('directors', 'select=id,films(year.sum())'))).toEqual(refusal);
  });

  it('keeps the legacy bare `count` (no column of that name) without the setting and without grouping', () => {
    expect(/^WITH pgrst_source AS \((.*?)\) SELECT/.exec(read('films', 'select=count').text)?.[1])
      .toBe('SELECT pg_catalog.count(*) AS "count" FROM "public"."films" AS "t0"');
    expect(read('directors', 'select=id,films(count)').text).toContain('(SELECT pg_catalog.count(*) AS "count" FROM "public"."films" AS "t1" WHERE');
  });
});

describe('execution plans', () => {
  it('explains the one statement with the same values', () => {
    const st = read('films', 'select=id&title=eq.x');
    expect(explainSql(st, { format: 'json', options: ['analyze', 'buffers'] })).toEqual({ text: `EXPLAIN (FORMAT JSON, ANALYZE, BUFFERS) ${st.text}`, values: ['x'] });
    expect(explainSql(st, { format: 'text', options: [] }).text).toBe(`EXPLAIN (FORMAT TEXT) ${st.text}`);
  });

  it('joins EXPLAIN rows into one text, a JSON plan back to its text', () => {
    expect(planText([{ 'QUERY PLAN': 'Seq Scan on films' }, { 'QUERY PLAN': '  Filter: (x)' }])).toBe('Seq Scan on films\n  Filter: (x)\n');
    expect(planText([{ 'QUERY PLAN': [{ Plan: { 'Node Type': 'Result' } }] }])).toBe('[{"Plan":{"Node Type":"Result"}}]\n');
  });
});

describe('filters on a column with a domain representation', () => {
  const films = META.tables['public.films']!;
  const color = { schema: 'public', name: 'color' };
  const meta = {
    ...META,
    tables: { ...META.tables, 'public.films': { ...films, columns: films.columns.map((c) => (c.name === 'title' ? { ...c, representation: { fromText: color } } : c)) } },
  };
  const filter = (query: string) => {
    const st = buildRead(request('GET', 'films', `select=id&${query}`), meta);
    return { sql: /WHERE (.*)\) SELECT NULL::bigint/.exec(st.text)?.[1], values: st.values };
  };

  it('reads eq and each element of in and of a quantified list through the cast from text', () => {
    expect(filter('title=eq.000100')).toEqual({ sql: '"t0"."title" = "public"."color"($1::text)', values: ['000100'] });
    expect(filter('title=in.(000100,01E240)')).toEqual({
      sql: '"t0"."title" = ANY(ARRAY(SELECT "public"."color"("pgrst_v"::text) FROM pg_catalog.unnest($1::text[]) AS "pgrst_v"))', values: ['{"000100","01E240"}'],
    });
    expect(filter('title=gt(all).{000100,01E240}')).toEqual({
      sql: '"t0"."title" > ALL(ARRAY(SELECT "public"."color"("pgrst_v"::text) FROM pg_catalog.unnest($1::text[]) AS "pgrst_v"))', values: ['{000100,01E240}'],
    });
  });

  it('compares a like/ilike pattern with the stored value, as PostgREST', () => {
    expect(filter('title=ilike.*100')).toEqual({ sql: '"t0"."title" ILIKE $1', values: ['%100'] });
    expect(filter('title=like(any).{a*,b*}')).toEqual({ sql: '"t0"."title" LIKE ANY($1)', values: ['{a%,b%}'] });
  });
});

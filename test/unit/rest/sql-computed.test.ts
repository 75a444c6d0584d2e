import { describe, expect, it } from 'vitest';
import type { ProjectMeta, TableMeta } from '../../../runtime/rest/metadata.js';
import { buildRead } from '../../../runtime/rest/sql/read.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { errorOf, request } from './request-helper.js';

/** META with computed fields and relationships on films, as the generator emits them. */
function withComputed(): ProjectMeta {
  const films = META.tables['public.films'] as TableMeta;
  const computedFilms: TableMeta = {
    ...films,
    computedFields: [{
      name: 'label', pgType: 'text', elementType: null, baseType: 'text', nullable: true, default: null, identity: null,
      generated: true, enumValues: null, comment: null, function: { schema: 'public', name: 'label' },
    }],
    computedRelations: [
      { function: { schema: 'public', name: 'cast_members' }, targetSchema: 'public', targetName: 'actors', toOne: false },
      { function: { schema: 'public', name: 'directors' }, targetSchema: 'public', targetName: 'directors', toOne: true },
    ],
  };
  return { ...META, tables: { ...META.tables, 'public.films': computedFilms } };
}

function read(query: string) {
  return buildRead(request('GET', 'films', query), withComputed());
}

describe('computed fields', () => {
  it('are called on the row, cast to its relation type, in select, filters and order', () => {
    const st = read('select=id,label&label=eq.x&order=label.desc');
    expect(st.text).toContain('SELECT "t0"."id" AS "id", "public"."label"("t0"::"public"."films") AS "label" FROM "public"."films" AS "t0" '
      + 'WHERE "public"."label"("t0"::"public"."films") = $1 ORDER BY "public"."label"("t0"::"public"."films") DESC');
  });

  it('are not part of *', () => {
    expect(read('select=*').text).not.toContain('label');
  });
});

describe('computed relationships', () => {
  it('embed the function called on the parent row, with no join condition', () => {
    const st = read('select=id,cast_members(id)');
    expect(st.text).toContain('LEFT JOIN LATERAL (SELECT json_agg("a3") AS "body" FROM (SELECT "t1"."id" AS "id" '
      + 'FROM "public"."cast_members"("t0"::"public"."films") AS "t1") AS "a3") AS "j2" ON TRUE');
  });

  it('shadow the foreign-key relationship to the relation of the function name, and embed to-one', () => {
    const st = read('select=id,directors(id)');
    expect(st.text).toContain('FROM "public"."directors"("t0"::"public"."films") AS "t1") AS "j2" ON TRUE');
    expect(st.text).toContain('row_to_json("j2".*)');
  });

  it('are suggested for a misspelt name (PGRST200)', () => {
    expect(errorOf(() => read('select=id,cast_member(id)')).body).toMatchObject({
      code: 'PGRST200', hint: "Perhaps you meant 'cast_members' instead of 'cast_member'.",
    });
  });
});

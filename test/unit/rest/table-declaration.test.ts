import { describe, expect, it } from 'vitest';
import type { ColumnMeta } from '../../../runtime/rest/metadata.js';
import { columnDeclaration, columnFromDeclaration, defineTable } from '../../../runtime/rest/table-declaration.js';

const full = (column: Partial<ColumnMeta> & Pick<ColumnMeta, 'name' | 'pgType'>): ColumnMeta => ({
  elementType: null,
  baseType: column.pgType,
  enumValues: null,
  nullable: true,
  default: null,
  identity: null,
  generated: false,
  comment: null,
  ...column,
});

describe('column declarations', () => {
  const columns: ColumnMeta[] = [
    full({ name: 'note', pgType: 'text' }),
    full({ name: 'id', pgType: 'bigint', nullable: false, identity: 'by default' }),
    full({ name: 'tags', pgType: 'public.tags', baseType: 'text[]', elementType: 'text', comment: 'Labels', default: "'{}'::text[]" }),
    full({ name: 'mood', pgType: 'public.mood', enumValues: ['sad', 'happy'], generated: true, domainDefault: "'sad'" }),
    full({ name: 'point', pgType: 'public.point_d', representation: { toJson: { schema: 'public', name: 'point_json' } } }),
  ];

  it('leave out what PostgreSQL gives a column by default, and the base type when it is the type', () => {
    expect(columnDeclaration(columns[0]!)).toEqual({ name: 'note', pgType: 'text' });
    expect(columnDeclaration(columns[1]!)).toEqual({ name: 'id', pgType: 'bigint', nullable: false, identity: 'by default' });
    expect(columnDeclaration(columns[2]!)).toEqual({ name: 'tags', pgType: 'public.tags', elementType: 'text', baseType: 'text[]', default: "'{}'::text[]", comment: 'Labels' });
  });

  it('give back the exact metadata they were made from', () => {
    for (const column of columns) expect(columnFromDeclaration(columnDeclaration(column))).toStrictEqual(column);
  });

  it('fill in the columns of a declared table and leave the rest as declared', () => {
    const table = defineTable({
      schema: 'public',
      name: 'notes',
      kind: 'table',
      comment: null,
      columns: [{ name: 'note', pgType: 'text' }],
      primaryKey: [],
      uniqueKeys: [],
      relations: [],
      computedFields: [],
      computedRelations: [],
      updatable: { insert: true, update: true, delete: true },
      grants: {
        anon: { select: true, insert: false, update: false, delete: false },
        authenticated: { select: true, insert: true, update: true, delete: true },
        service_role: { select: true, insert: true, update: true, delete: true },
      },
      rls: { enabled: false, forced: false, policies: [] },
    });
    expect(table.columns).toStrictEqual([columns[0]]);
    expect(table.grants.anon.insert).toBe(false);
  });
});

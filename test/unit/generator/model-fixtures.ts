import type { ColumnModel, RelationModel, SchemaModel, TypeRef } from '../../../generator/model/types.js';

export function type(name: string, kind: TypeRef['kind'] = 'base', extra: Partial<TypeRef> = {}): TypeRef {
  return { sql: name, schema: 'pg_catalog', name, kind, element: null, base: null, ...extra };
}

export const int4 = type('int4');
export const text = type('text');

export function column(name: string, columnType: TypeRef, extra: Partial<ColumnModel> = {}): ColumnModel {
  return { name, type: columnType, nullable: false, default: null, identity: null, generated: null, comment: null, ...extra };
}

const allGrants = { select: true, insert: true, update: true, delete: true };

export function table(name: string, extra: Partial<RelationModel> = {}): RelationModel {
  return {
    schema: 'public',
    name,
    kind: 'table',
    comment: null,
    columns: [column('id', int4)],
    primaryKey: { name: `${name}_pkey`, columns: ['id'] },
    uniqueConstraints: [],
    uniqueIndexes: [],
    foreignKeys: [],
    columnSources: [],
    updatable: { insert: true, update: true, delete: true },
    rls: { enabled: false, forced: false },
    policies: [],
    grants: { anon: allGrants, authenticated: allGrants, service_role: allGrants },
    ...extra,
  };
}

export function fk(name: string, columns: string[], targetName: string, targetColumns: string[] = ['id']) {
  return { name, columns, targetSchema: 'public', targetName, targetColumns, onUpdate: 'no action', onDelete: 'no action' } as const;
}

export function model(relations: RelationModel[], extra: Partial<SchemaModel> = {}): SchemaModel {
  return { modelVersion: 1, schemas: ['public'], relations, functions: [], computed: [], enums: [], compositeTypes: [], ...extra };
}

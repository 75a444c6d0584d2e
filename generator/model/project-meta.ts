import type { ColumnMeta, ComputedFieldMeta, ComputedRelationMeta, FunctionMeta, Grants, TableMeta } from '../../runtime/index.js';
import { computedFields, computedRelationships } from './computed.js';
import { functionMediaHandler, relationMediaHandlers } from './media-handlers.js';
import { relationKey, type Relationship } from './relationships.js';
import { typedRelation } from './typed-relation.js';
import type { ColumnModel, FunctionModel, RelationModel, RoleGrants, SchemaModel, TypeRef } from './types.js';
import { resolveDomain } from './domains.js';

function enumValues(model: SchemaModel, type: TypeRef): readonly string[] | null {
  const resolved = resolveDomain(type);
  if (resolved.kind !== 'enum') return null;
  return model.enums.find((e) => e.schema === resolved.schema && e.name === resolved.name)?.values ?? null;
}

function typeMeta(model: SchemaModel, type: TypeRef): Pick<ColumnMeta, 'pgType' | 'elementType' | 'baseType' | 'enumValues' | 'representation'> {
  const base = resolveDomain(type);
  return {
    pgType: type.sql,
    elementType: base.kind === 'array' && base.element ? base.element.sql : null,
    baseType: type.kind === 'domain' ? base.sql : type.sql,
    enumValues: enumValues(model, type),
    ...(type.representation ? { representation: type.representation } : {}),
  };
}

function columnMeta(model: SchemaModel, column: ColumnModel): ColumnMeta {
  return {
    name: column.name,
    ...typeMeta(model, column.type),
    nullable: column.nullable,
    default: column.default,
    identity: column.identity,
    generated: column.generated !== null,
    comment: column.comment,
    ...(column.domainDefault !== undefined ? { domainDefault: column.domainDefault } : {}),
  };
}

/** Computed fields read like generated columns: always nullable, never written. */
function computedFieldMetas(model: SchemaModel, relation: RelationModel): ComputedFieldMeta[] {
  return computedFields(model, relation).map((c) => ({
    name: c.name,
    ...typeMeta(model, c.returnType),
    nullable: true,
    default: null,
    identity: null,
    generated: true,
    comment: c.comment,
    function: { schema: c.schema, name: c.name },
  }));
}

function computedRelationMetas(model: SchemaModel, relation: RelationModel): ComputedRelationMeta[] {
  return computedRelationships(model, relation).map(({ computed, target, toOne }) => ({
    function: { schema: computed.schema, name: computed.name },
    targetSchema: target.schema,
    targetName: target.name,
    toOne,
  }));
}

/** Grants, narrowed by what the relation can do at all (a non-updatable view takes no writes). */
function effectiveGrants(relation: RelationModel, grants: RoleGrants): Grants {
  return {
    select: grants.select,
    insert: grants.insert && relation.updatable.insert,
    update: grants.update && relation.updatable.update,
    delete: grants.delete && relation.updatable.delete,
  };
}

/**
 * A view's primary key as PostgREST infers it: the view's columns that pass a primary-key column of a base table
 * through (so `Location` can name an inserted row). A table's is its own.
 */
function primaryKeyOf(model: SchemaModel, relation: RelationModel): readonly string[] {
  if (relation.primaryKey) return relation.primaryKey.columns;
  if (relation.kind === 'table') return [];
  const bases = [...model.relations, ...(model.internalTables ?? [])];
  const keyOfBase = (schema: string, table: string): readonly string[] =>
    bases.find((base) => base.schema === schema && base.name === table)?.primaryKey?.columns ?? [];
  return relation.columns
    .map((column) => column.name)
    .filter((name) => relation.columnSources.some((s) => s.column === name && keyOfBase(s.schema, s.table).includes(s.sourceColumn)));
}

export function tableMeta(model: SchemaModel, relation: RelationModel, relationships: readonly Relationship[]): TableMeta {
  const uniqueKeys = [...relation.uniqueConstraints, ...relation.uniqueIndexes].map((key) => key.columns);
  const handlers = relationMediaHandlers(model, relation);
  return {
    schema: relation.schema,
    name: relation.name,
    kind: relation.kind,
    comment: relation.comment,
    columns: relation.columns.map((column) => columnMeta(model, column)),
    primaryKey: primaryKeyOf(model, relation),
    uniqueKeys,
    relations: relationships.map(({ kind, targetSchema, targetName, constraint, join, junction }) => ({
      kind,
      targetSchema,
      targetName,
      constraint,
      join,
      junction,
    })),
    computedFields: computedFieldMetas(model, relation),
    computedRelations: computedRelationMetas(model, relation),
    updatable: relation.updatable,
    grants: {
      anon: effectiveGrants(relation, relation.grants.anon),
      authenticated: effectiveGrants(relation, relation.grants.authenticated),
      service_role: effectiveGrants(relation, relation.grants.service_role),
    },
    rls: { enabled: relation.rls.enabled, forced: relation.rls.forced, policies: relation.policies },
    ...(handlers.length > 0 ? { mediaHandlers: handlers } : {}),
  };
}

/** Parameters that make up the result row: OUT, INOUT and TABLE arguments. */
export function outputArgs(fn: FunctionModel): FunctionModel['args'] {
  return fn.args.filter((arg) => arg.mode === 'out' || arg.mode === 'inout' || arg.mode === 'table');
}

/** The result columns of OUT/TABLE parameters; PostgreSQL names unnamed ones `column<N>`. */
export function resultColumns(fn: FunctionModel): { readonly name: string; readonly type: TypeRef }[] {
  return outputArgs(fn).map((arg, index) => ({ name: arg.name === '' ? `column${index + 1}` : arg.name, type: arg.type }));
}

export function inputArgs(fn: FunctionModel): FunctionModel['args'] {
  return fn.args.filter((arg) => arg.mode === 'in' || arg.mode === 'inout' || arg.mode === 'variadic');
}

function returnShape(model: SchemaModel, fn: FunctionModel): Pick<FunctionMeta, 'returnKind' | 'returnRelation' | 'returnColumns'> {
  const outputs = resultColumns(fn);
  if (outputs.length > 0) {
    return {
      returnKind: 'composite',
      returnRelation: null,
      returnColumns: outputs.map((column) => ({ name: column.name, pgType: column.type.sql })),
    };
  }
  const type = resolveDomain(fn.returnType);
  if (type.kind === 'pseudo' && type.name === 'void') return { returnKind: 'void', returnRelation: null, returnColumns: [] };
  if (type.kind === 'composite') {
    const relation = model.relations.find((r) => r.schema === type.schema && r.name === type.name);
    const composite = model.compositeTypes.find((c) => c.schema === type.schema && c.name === type.name);
    // A partition's rows have its columns but, out of the schema cache, no relationships to embed.
    const columns = typedRelation(model, type)?.columns ?? composite?.attributes ?? [];
    return {
      returnKind: 'composite',
      returnRelation: relation ? { schema: relation.schema, name: relation.name } : null,
      returnColumns: columns.map((column) => ({ name: column.name, pgType: column.type.sql })),
    };
  }
  // An anonymous record (no OUT parameters) has no columns to select or filter: PostgREST
  // answers it as a value, the JSON object PostgreSQL makes of the record.
  return { returnKind: 'scalar', returnRelation: null, returnColumns: [] };
}

export function functionMeta(model: SchemaModel, fn: FunctionModel): FunctionMeta {
  const handler = functionMediaHandler(fn.returnType);
  return {
    schema: fn.schema,
    name: fn.name,
    args: inputArgs(fn).map((arg) => ({
      name: arg.name,
      pgType: arg.type.sql,
      hasDefault: arg.hasDefault,
      variadic: arg.mode === 'variadic',
    })),
    returnType: fn.returnType.sql,
    returnsSet: fn.returnsSet,
    ...returnShape(model, fn),
    volatility: fn.volatility,
    securityDefiner: fn.securityDefiner,
    comment: fn.comment,
    ...(handler ? { mediaHandler: handler } : {}),
  };
}

/** Functions grouped by `schema.name` (overloads together), in model order. */
export function functionGroups(model: SchemaModel): Map<string, FunctionModel[]> {
  const groups = new Map<string, FunctionModel[]>();
  for (const fn of model.functions) {
    const key = relationKey(fn.schema, fn.name);
    groups.set(key, [...(groups.get(key) ?? []), fn]);
  }
  return groups;
}


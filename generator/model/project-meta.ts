import type { ColumnMeta, FunctionMeta, Grants, ReturnKind, TableMeta } from '../../runtime/index.js';
import { relationKey, type Relationship } from './relationships.js';
import type { ColumnModel, FunctionModel, RelationModel, RoleGrants, SchemaModel, TypeRef } from './types.js';

/** Follows domains down to the type values are stored as. */
export function resolveDomain(type: TypeRef): TypeRef {
  let current = type;
  while (current.kind === 'domain' && current.base) current = current.base;
  return current;
}

function enumValues(model: SchemaModel, type: TypeRef): readonly string[] | null {
  const resolved = resolveDomain(type);
  if (resolved.kind !== 'enum') return null;
  return model.enums.find((e) => e.schema === resolved.schema && e.name === resolved.name)?.values ?? null;
}

function columnMeta(model: SchemaModel, column: ColumnModel): ColumnMeta {
  const base = resolveDomain(column.type);
  return {
    name: column.name,
    pgType: column.type.sql,
    elementType: base.kind === 'array' && base.element ? base.element.sql : null,
    baseType: column.type.kind === 'domain' ? base.sql : column.type.sql,
    nullable: column.nullable,
    default: column.default,
    identity: column.identity,
    generated: column.generated !== null,
    enumValues: enumValues(model, column.type),
    comment: column.comment,
  };
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

export function tableMeta(model: SchemaModel, relation: RelationModel, relationships: readonly Relationship[]): TableMeta {
  const uniqueKeys = [...relation.uniqueConstraints, ...relation.uniqueIndexes].map((key) => key.columns);
  return {
    schema: relation.schema,
    name: relation.name,
    kind: relation.kind,
    comment: relation.comment,
    columns: relation.columns.map((column) => columnMeta(model, column)),
    primaryKey: relation.primaryKey?.columns ?? [],
    uniqueKeys,
    relations: relationships.map(({ kind, targetSchema, targetName, constraint, join, junction }) => ({
      kind,
      targetSchema,
      targetName,
      constraint,
      join,
      junction,
    })),
    updatable: relation.updatable,
    grants: {
      anon: effectiveGrants(relation, relation.grants.anon),
      authenticated: effectiveGrants(relation, relation.grants.authenticated),
      service_role: effectiveGrants(relation, relation.grants.service_role),
    },
    rls: { enabled: relation.rls.enabled, forced: relation.rls.forced, policies: relation.policies },
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
    const columns = relation?.columns ?? composite?.attributes ?? [];
    return {
      returnKind: 'composite',
      returnRelation: relation ? { schema: relation.schema, name: relation.name } : null,
      returnColumns: columns.map((column) => ({ name: column.name, pgType: column.type.sql })),
    };
  }
  const kind: ReturnKind = type.kind === 'pseudo' && type.name === 'record' ? 'composite' : 'scalar';
  return { returnKind: kind, returnRelation: null, returnColumns: [] };
}

export function functionMeta(model: SchemaModel, fn: FunctionModel): FunctionMeta {
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


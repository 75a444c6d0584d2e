import { createHash } from 'node:crypto';
import { canonicalJson } from './fingerprint.js';
import type { Relationship } from './relationships.js';
import type { CompositeTypeModel, EnumModel, FunctionModel, RelationModel, SchemaModel, TypeRef } from './types.js';

/**
 * The parts of the model one table or function module is generated from. Its hash is
 * the fingerprint in that module's header, so a migration changes the header (and the
 * file) of exactly the modules whose objects it touched.
 */
interface TypeDependencies {
  readonly enums: EnumModel[];
  readonly compositeTypes: CompositeTypeModel[];
  /** Relations used as row types (by value or as a function's result). */
  readonly relations: RelationModel[];
}

function typeDependencies(model: SchemaModel, types: readonly TypeRef[]): TypeDependencies {
  const seen = new Set<string>();
  const deps: TypeDependencies = { enums: [], compositeTypes: [], relations: [] };
  const visit = (type: TypeRef | null): void => {
    if (!type) return;
    const key = `${type.schema}.${type.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    visit(type.element);
    visit(type.base);
    if (type.kind === 'enum') deps.enums.push(...model.enums.filter((e) => e.schema === type.schema && e.name === type.name));
    if (type.kind === 'composite') {
      deps.relations.push(...model.relations.filter((r) => r.schema === type.schema && r.name === type.name));
      for (const composite of model.compositeTypes.filter((c) => c.schema === type.schema && c.name === type.name)) {
        deps.compositeTypes.push(composite);
        composite.attributes.forEach((attribute) => visit(attribute.type));
      }
    }
  };
  types.forEach(visit);
  return deps;
}

function hash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export function relationFingerprint(model: SchemaModel, relation: RelationModel, relationships: readonly Relationship[]): string {
  return hash({
    schemas: model.schemas,
    relation,
    relationships,
    types: typeDependencies(
      model,
      relation.columns.map((column) => column.type),
    ),
  });
}

export function functionFingerprint(model: SchemaModel, overloads: readonly FunctionModel[]): string {
  return hash({
    schemas: model.schemas,
    overloads,
    types: typeDependencies(
      model,
      overloads.flatMap((fn) => [fn.returnType, ...fn.args.map((arg) => arg.type)]),
    ),
  });
}

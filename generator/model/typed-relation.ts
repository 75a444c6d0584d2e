import type { RelationModel, SchemaModel, TypeRef } from './types.js';

/**
 * The relation whose row type `type` is, partitions included: PostgREST's schema cache leaves
 * partitions out, but a function may return their rows and `supabase gen types` types them as tables.
 */
export function typedRelation(model: SchemaModel, type: TypeRef): RelationModel | null {
  const named = (r: RelationModel): boolean => r.schema === type.schema && r.name === type.name;
  return model.relations.find(named) ?? model.partitions?.find(named) ?? null;
}

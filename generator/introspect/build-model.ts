import type { SchemaModel } from '../model/types.js';
import { buildComputed } from './build-computed.js';
import { buildFunctions } from './build-functions.js';
import { buildMediaAggregates } from './build-media-aggregates.js';
import { buildInternalTables, buildPartitions, buildRelations } from './build-relations.js';
import { buildCompositeTypes, buildEnums } from './build-types.js';
import type { RawCatalog } from './raw-catalog.js';
import { TypeRefs } from './type-refs.js';

/** Pure: one database snapshot in, the sorted OID-free model out. */
export function buildSchemaModel(raw: RawCatalog): SchemaModel {
  const types = new TypeRefs(raw.introspection, raw.typeTexts, raw.domainCasts);
  const partitions = buildPartitions(raw, types);
  const relations = buildRelations(raw, types);
  const internalTables = buildInternalTables(raw, relations);
  const mediaAggregates = buildMediaAggregates(raw, types);
  return {
    modelVersion: 1,
    schemas: [...raw.schemas],
    relations,
    ...(partitions.length > 0 ? { partitions } : {}),
    ...(internalTables.length > 0 ? { internalTables } : {}),
    functions: buildFunctions(raw, types),
    computed: buildComputed(raw, types),
    enums: buildEnums(raw),
    compositeTypes: buildCompositeTypes(raw, types),
    ...(mediaAggregates.length > 0 ? { mediaAggregates } : {}),
  };
}

import { isMediaTypeDomain } from '../model/media-handlers.js';
import { sortByKey } from '../model/sort.js';
import type { MediaAggregateModel } from '../model/types.js';
import type { RawCatalog } from './raw-catalog.js';
import type { TypeRefs } from './type-refs.js';

/**
 * Aggregates of one argument that return a media type domain (PostgREST 12's handlers over a relation's rows,
 * or over any rows when the argument is `anyelement`), in the exposed schemas.
 */
export function buildMediaAggregates(raw: RawCatalog, types: TypeRefs): MediaAggregateModel[] {
  const exposed = new Set(raw.schemas);
  const aggregates = raw.introspection.procs
    .filter((proc) => proc.prokind === 'a' && (proc.proargtypes ?? []).length === 1)
    .filter((proc) => exposed.has(proc.getNamespace()?.nspname ?? ''))
    .map((proc): MediaAggregateModel => ({
      schema: proc.getNamespace()?.nspname ?? '',
      name: proc.proname,
      input: types.ref(proc.proargtypes![0]!),
      returnType: types.ref(proc.prorettype),
    }))
    .filter((aggregate) => isMediaTypeDomain(aggregate.returnType));
  return sortByKey(aggregates, (a) => [a.schema, a.name, a.input.sql]);
}

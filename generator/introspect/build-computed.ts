import { sortByKey } from '../model/sort.js';
import type { ComputedModel } from '../model/types.js';
import type { RawCatalog } from './raw-catalog.js';
import type { TypeRefs } from './type-refs.js';

const rowRelationKinds = new Set(['r', 'p', 'f', 'v', 'm']);

/**
 * Functions of the exposed schemas with exactly one input parameter whose type is the row
 * type of an exposed relation (PostgREST's `pronargs = 1` over relation row types). Whether
 * the function can also be called over `/rpc` does not matter: PostgreSQL calls it as `f(row)`.
 */
export function buildComputed(raw: RawCatalog, types: TypeRefs): ComputedModel[] {
  const exposed = new Set(raw.schemas);
  const byRowType = new Map(
    raw.introspection.classes
      .filter((cls) => rowRelationKinds.has(cls.relkind) && !cls.relispartition)
      .filter((cls) => exposed.has(cls.getNamespace()?.nspname ?? ''))
      .map((cls) => [cls.reltype, cls] as const),
  );
  const found: ComputedModel[] = [];
  for (const proc of raw.introspection.procs) {
    const schema = proc.getNamespace()?.nspname ?? '';
    const inputs = proc.proargtypes ?? [];
    if ((proc.prokind ?? 'f') !== 'f' || !exposed.has(schema) || inputs.length !== 1) continue;
    const source = byRowType.get(inputs[0] ?? '');
    if (!source) continue;
    const modes = proc.proargmodes ?? [];
    const inputPosition = modes.length === 0 ? 0 : modes.findIndex((mode) => mode === 'i' || mode === 'b' || mode === 'v');
    found.push({
      schema,
      name: proc.proname,
      argName: proc.proargnames?.[inputPosition] ?? '',
      argType: types.ref(inputs[0] ?? ''),
      sourceSchema: source.getNamespace()?.nspname ?? '',
      sourceName: source.relname,
      returnType: types.ref(proc.prorettype),
      returnsSet: proc.proretset,
      rows: proc.proretset ? (proc.prorows ?? 0) : 0,
      comment: proc.getDescription() ?? null,
    });
  }
  return sortByKey(found, (c) => [c.sourceSchema, c.sourceName, c.name, c.schema]);
}

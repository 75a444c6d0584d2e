import { compareCodePoints } from '../model/sort.js';
import type { EnumModel, FunctionModel, SchemaModel } from '../model/types.js';
import { apiChange, type ApiChange } from './api-change.js';
import { displayName } from './definitions.js';
import { diffFunction, functionAdded, functionRemoved } from './diff-functions.js';
import { computedAdded, computedRemoved, diffRelation, relationAdded, relationRemoved } from './diff-relations.js';

/**
 * What a project's API describes: the schema model its code was generated from, as
 * committed in `generated/<ref>/schema.json`. Partitions are left out: they are not served.
 */
export type ApiDescription = SchemaModel;

/** The API of a project that has no generated code (yet, or any more). */
export const emptyApiDescription: ApiDescription = {
  modelVersion: 1,
  schemas: [],
  relations: [],
  functions: [],
  computed: [],
  enums: [],
  compositeTypes: [],
};

/**
 * Every change from `base` to `head` that a client of the data API can notice, in a stable
 * order: endpoints (relations, then their computed fields), RPC functions, enums.
 */
export function diffApi(base: ApiDescription, head: ApiDescription): ApiChange[] {
  return [...diffRelations(base, head), ...diffComputed(base, head), ...diffFunctions(base, head), ...diffEnums(base, head)];
}

function keyed<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [key(item), item]));
}

function unionKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort(compareCodePoints);
}

function diffRelations(base: ApiDescription, head: ApiDescription): ApiChange[] {
  const key = (r: { schema: string; name: string }): string => `${r.schema}\0${r.name}`;
  const [before, after] = [keyed(base.relations, key), keyed(head.relations, key)];
  return unionKeys(before, after).flatMap((k) => {
    const [b, a] = [before.get(k), after.get(k)];
    if (b && a) return diffRelation(b, a);
    return a ? relationAdded(a) : [relationRemoved(b!)];
  });
}

function diffComputed(base: ApiDescription, head: ApiDescription): ApiChange[] {
  const key = (c: SchemaModel['computed'][number]): string => `${c.sourceSchema}\0${c.sourceName}\0${c.name}`;
  const [before, after] = [keyed(base.computed, key), keyed(head.computed, key)];
  const relations = new Set(head.relations.map((r) => `${r.schema}\0${r.name}`));
  return unionKeys(before, after).flatMap((k) => {
    const [b, a] = [before.get(k), after.get(k)];
    if (b && a) return [];
    if (a) return [computedAdded(a)];
    // Gone with its relation: the relation's removal says it already.
    return relations.has(`${b!.sourceSchema}\0${b!.sourceName}`) ? [computedRemoved(b!)] : [];
  });
}

/**
 * Overloads are paired by their identity arguments; when one overload of a name is left on
 * each side, they are the same function with a changed signature (a parameter added or
 * retyped changes the identity arguments too).
 */
function diffFunctions(base: ApiDescription, head: ApiDescription): ApiChange[] {
  const byName = (fns: readonly FunctionModel[]): Map<string, FunctionModel[]> => {
    const map = new Map<string, FunctionModel[]>();
    for (const fn of fns) map.set(`${fn.schema}\0${fn.name}`, [...(map.get(`${fn.schema}\0${fn.name}`) ?? []), fn]);
    return map;
  };
  const [before, after] = [byName(base.functions), byName(head.functions)];
  return unionKeys(before, after).flatMap((k) => {
    const olds = before.get(k) ?? [];
    const news = after.get(k) ?? [];
    const unmatchedOld = olds.filter((o) => !news.some((n) => n.identityArguments === o.identityArguments));
    const unmatchedNew = news.filter((n) => !olds.some((o) => o.identityArguments === n.identityArguments));
    const same = olds.flatMap((o) => {
      const n = news.find((candidate) => candidate.identityArguments === o.identityArguments);
      return n ? diffFunction(o, n) : [];
    });
    if (unmatchedOld.length === 1 && unmatchedNew.length === 1) return [...same, ...diffFunction(unmatchedOld[0]!, unmatchedNew[0]!)];
    return [...same, ...unmatchedOld.map(functionRemoved), ...unmatchedNew.map(functionAdded)];
  });
}

function diffEnums(base: ApiDescription, head: ApiDescription): ApiChange[] {
  const key = (e: EnumModel): string => `${e.schema}\0${e.name}`;
  const [before, after] = [keyed(base.enums, key), keyed(head.enums, key)];
  return unionKeys(before, after).flatMap((k): ApiChange[] => {
    const [b, a] = [before.get(k), after.get(k)];
    const target = displayName((a ?? b)!.schema, (a ?? b)!.name);
    const definition = (e: EnumModel): string => `ENUM (${e.values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')})`;
    if (!b) return [apiChange('enum_added', 'compatible', target, 'enum type added', 'no existing request uses it', null, definition(a!))];
    if (!a) return [apiChange('enum_removed', 'breaking', target, 'enum type removed', 'columns and parameters of this type changed type (reported with them)', definition(b), null)];
    return [
      ...b.values
        .filter((v) => !a.values.includes(v))
        .map((v) => apiChange('enum_value_removed', 'breaking', target, `value '${v}' removed`, `a write of '${v}' now fails (22P02)`, definition(b), definition(a))),
      ...a.values
        .filter((v) => !b.values.includes(v))
        .map((v) => apiChange('enum_value_added', 'compatible', target, `value '${v}' added`, 'every value valid before is still valid; reads may now answer the new value', definition(b), definition(a))),
    ];
  });
}

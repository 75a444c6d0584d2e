import { compareCodePoints } from '../model/sort.js';
import type { EnumModel, FunctionModel, SchemaModel } from '../model/types.js';
import { apiChange, type ApiChange, type ChangeSubject, type SubjectChange } from './api-change.js';
import { displayName } from './definitions.js';
import { diffFunction, functionAdded, functionRemoved, functionRenamed } from './diff-functions.js';
import { computedAdded, computedRemoved, diffRelation, relationAdded, relationRemoved, relationRenamed } from './diff-relations.js';
import { noRenames, qualifiedKey, type DeclaredRenames } from './renames.js';

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
export function diffApi(base: ApiDescription, head: ApiDescription, renames: DeclaredRenames = noRenames): ApiChange[] {
  return diffApiSubjects(base, head, renames).map((c) => c.change);
}

/** diffApi's changes, each with what it is to; `renames`: those the migrations declare. */
export function diffApiSubjects(base: ApiDescription, head: ApiDescription, renames: DeclaredRenames = noRenames): SubjectChange[] {
  return [
    ...diffRelations(base, head, renames),
    ...diffComputed(base, head).map((c) => ({ change: c, subject: computedSubject(c, base, head) })),
    ...diffFunctions(base, head, renames),
    ...diffEnums(base, head).map((c): SubjectChange => {
      const enumType = [...head.enums, ...base.enums].find((e) => displayName(e.schema, e.name) === c.target)!;
      return { change: c, subject: { kind: 'enum', schema: enumType.schema, name: enumType.name } };
    }),
  ];
}

function computedSubject(c: ApiChange, base: ApiDescription, head: ApiDescription): ChangeSubject {
  const find = (model: ApiDescription) => model.relations.find((r) => c.target.startsWith(`${displayName(r.schema, r.name)}.`)) ?? null;
  return { kind: 'relation', base: find(base), head: find(head), column: null };
}

function keyed<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [key(item), item]));
}

function unionKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort(compareCodePoints);
}

/** Relations paired by name, or by a rename the migrations declare (when the new name is not also an old one). */
function diffRelations(base: ApiDescription, head: ApiDescription, renames: DeclaredRenames): SubjectChange[] {
  const key = (r: { schema: string; name: string }): string => qualifiedKey(r.schema, r.name);
  const [before, after] = [keyed(base.relations, key), keyed(head.relations, key)];
  const renamedTo = new Map([...renames.relations].filter(([from, to]) => before.has(from) && !after.has(from) && after.has(to) && !before.has(to)));
  const renamedFrom = new Set(renamedTo.values());
  return unionKeys(before, after).flatMap((k) => {
    const [b, a] = [before.get(k), after.get(k)];
    const columns = renames.columns.get(k) ?? new Map<string, string>();
    if (b && a) return diffRelation(b, a, columns);
    if (b && renamedTo.has(k)) return relationRenamed(b, after.get(renamedTo.get(k)!)!, columns);
    if (a && renamedFrom.has(k)) return [];
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
 * retyped changes the identity arguments too). A function the migrations rename is paired
 * with the new name's overload of the same identity arguments.
 */
function diffFunctions(base: ApiDescription, head: ApiDescription, renames: DeclaredRenames): SubjectChange[] {
  const byName = (fns: readonly FunctionModel[]): Map<string, FunctionModel[]> => {
    const map = new Map<string, FunctionModel[]>();
    for (const fn of fns) map.set(qualifiedKey(fn.schema, fn.name), [...(map.get(qualifiedKey(fn.schema, fn.name)) ?? []), fn]);
    return map;
  };
  const [before, after] = [byName(base.functions), byName(head.functions)];
  const subject = (b: FunctionModel | null, a: FunctionModel | null) => (c: ApiChange): SubjectChange => ({ change: c, subject: { kind: 'function', base: b, head: a } });
  const renamed: SubjectChange[] = [];
  for (const [from, to] of renames.functions) {
    if (after.has(from) || before.has(to)) continue;
    const olds = before.get(from) ?? [];
    const news = after.get(to) ?? [];
    for (const o of olds) {
      const n = news.find((candidate) => candidate.identityArguments === o.identityArguments);
      if (!n) continue;
      renamed.push(...functionRenamed(o, n).map(subject(o, n)));
      before.set(from, (before.get(from) ?? []).filter((f) => f !== o));
      after.set(to, (after.get(to) ?? []).filter((f) => f !== n));
    }
  }
  return [
    ...renamed,
    ...unionKeys(before, after).flatMap((k) => {
      const olds = before.get(k) ?? [];
      const news = after.get(k) ?? [];
      const unmatchedOld = olds.filter((o) => !news.some((n) => n.identityArguments === o.identityArguments));
      const unmatchedNew = news.filter((n) => !olds.some((o) => o.identityArguments === n.identityArguments));
      const same = olds.flatMap((o) => {
        const n = news.find((candidate) => candidate.identityArguments === o.identityArguments);
        return n ? diffFunction(o, n).map(subject(o, n)) : [];
      });
      if (unmatchedOld.length === 1 && unmatchedNew.length === 1) return [...same, ...diffFunction(unmatchedOld[0]!, unmatchedNew[0]!).map(subject(unmatchedOld[0]!, unmatchedNew[0]!))];
      return [...same, ...unmatchedOld.map((o) => subject(o, null)(functionRemoved(o))), ...unmatchedNew.map((n) => subject(null, n)(functionAdded(n)))];
    }),
  ];
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

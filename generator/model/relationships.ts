import type { RelationMeta } from '../../runtime/index.js';
import { compareCodePoints, sortByKey } from './sort.js';
import type { ForeignKeyModel, InternalTableModel, RelationModel, SchemaModel } from './types.js';

/** A relationship as PostgREST's schema cache sees it, oriented from `source`. */
export interface Relationship extends RelationMeta {
  readonly sourceSchema: string;
  readonly sourceName: string;
  /** The source holds the foreign key (the side `supabase gen types` lists under Relationships). */
  readonly forward: boolean;
  /** The foreign key belongs to a table outside the exposed schemas: `supabase gen types` does not read it. */
  readonly internalKey: boolean;
}

/** What relationships are made of: a relation's name and keys (exposed relations and internal tables alike). */
type KeyedRelation = Pick<RelationModel, 'schema' | 'name' | 'primaryKey' | 'uniqueConstraints' | 'foreignKeys'>;

/** A relation with the columns that stand for a given set of base-table columns. */
interface Endpoint {
  readonly relation: KeyedRelation;
  readonly columns: readonly string[];
}

export function relationKey(schema: string, name: string): string {
  return `${schema}.${name}`;
}

function sameColumnSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((column) => b.includes(column));
}

function isSubset(columns: readonly string[], of: readonly string[]): boolean {
  return columns.every((column) => of.includes(column));
}

function keysOf(relation: KeyedRelation): (readonly string[])[] {
  return [...(relation.primaryKey ? [relation.primaryKey.columns] : []), ...relation.uniqueConstraints.map((key) => key.columns)];
}

/** Every way of picking one item of each list (none when a list is empty). */
function combinations(lists: readonly (readonly string[])[]): string[][] {
  return lists.reduce<string[][]>((found, list) => found.flatMap((prefix) => list.map((item) => [...prefix, item])), [[]]);
}

/**
 * The relation itself plus every view that passes all of `columns` through unchanged
 * (PostgREST lets views inherit their base tables' foreign keys): one endpoint for each
 * choice of view columns, so a view exposing a key column twice has two.
 */
function endpoints(model: SchemaModel, table: KeyedRelation, columns: readonly string[]): Endpoint[] {
  const found: Endpoint[] = [{ relation: table, columns }];
  for (const view of model.relations) {
    if (view.kind === 'table') continue;
    const candidates = columns.map((column) =>
      view.columnSources
        .filter((s) => s.schema === table.schema && s.table === table.name && s.sourceColumn === column)
        .map((s) => s.column)
        .sort(compareCodePoints),
    );
    for (const mapped of combinations(candidates)) found.push({ relation: view, columns: mapped });
  }
  return found;
}

function directPair(fk: ForeignKeyModel, source: Endpoint, target: Endpoint, oneToOne: boolean, internalKey: boolean): Relationship[] {
  return [
    {
      sourceSchema: source.relation.schema,
      sourceName: source.relation.name,
      forward: true,
      internalKey,
      kind: oneToOne ? 'one-to-one' : 'many-to-one',
      targetSchema: target.relation.schema,
      targetName: target.relation.name,
      constraint: fk.name,
      join: { from: source.columns, to: target.columns },
      junction: null,
    },
    {
      sourceSchema: target.relation.schema,
      sourceName: target.relation.name,
      forward: false,
      internalKey,
      kind: oneToOne ? 'one-to-one' : 'one-to-many',
      targetSchema: source.relation.schema,
      targetName: source.relation.name,
      constraint: fk.name,
      join: { from: target.columns, to: source.columns },
      junction: null,
    },
  ];
}

/**
 * Many-to-many through `junction` (a table or a view that inherits its keys): two of its
 * many-to-one relationships over different foreign keys whose columns its primary key or a
 * unique constraint holds, as PostgREST's `addM2MRels`.
 */
function manyToMany(junction: RelationModel, keys: readonly (readonly string[])[], direct: readonly Relationship[]): Relationship[] {
  const found: Relationship[] = [];
  const toOne = direct.filter((r) => r.forward && r.kind === 'many-to-one' && r.join);
  for (const first of toOne) {
    for (const second of toOne) {
      if (first.constraint === second.constraint || !first.join || !second.join) continue;
      const junctionColumns = [...first.join.from, ...second.join.from];
      if (!keys.some((key) => isSubset(junctionColumns, key))) continue;
      found.push({
        sourceSchema: first.targetSchema,
        sourceName: first.targetName,
        forward: false,
        internalKey: first.internalKey || second.internalKey,
        kind: 'many-to-many',
        targetSchema: second.targetSchema,
        targetName: second.targetName,
        constraint: second.constraint,
        join: null,
        junction: {
          schema: junction.schema,
          name: junction.name,
          sourceConstraint: first.constraint,
          source: { from: first.join.to, to: first.join.from },
          targetConstraint: second.constraint,
          target: { from: second.join.from, to: second.join.to },
        },
      });
    }
  }
  return found;
}

/** A view's keys are its base table's keys when it passes all their columns through (PostgREST's view primary keys). */
function inheritedKeys(view: RelationModel, byKey: ReadonlyMap<string, KeyedRelation>): (readonly string[])[] {
  const bases = new Set(view.columnSources.map((s) => relationKey(s.schema, s.table)));
  const keys: (readonly string[])[] = [];
  for (const base of bases) {
    const table = byKey.get(base);
    if (!table) continue;
    for (const key of keysOf(table)) {
      const mapped = key.map((column) =>
        view.columnSources.find((s) => relationKey(s.schema, s.table) === base && s.sourceColumn === column)?.column,
      );
      if (mapped.every((column): column is string => column !== undefined)) keys.push(mapped);
    }
  }
  return keys;
}

/**
 * Every embeddable relationship of the exposed relations: each foreign key as to-one
 * and to-many (one-to-one both ways when the key columns are the table's primary key
 * or a unique constraint), repeated for views that expose the key columns (also when the
 * key belongs to a table of another schema), and many-to-many through junctions (tables
 * or views of them) whose primary key or unique constraint holds both foreign keys'
 * columns. Only relationships between exposed relations, through exposed junctions, are
 * kept, as in PostgREST's schema cache. Keyed by source `schema.name`, sorted.
 */
export function buildRelationships(model: SchemaModel): Map<string, Relationship[]> {
  const internal: readonly InternalTableModel[] = model.internalTables ?? [];
  const byKey = new Map<string, KeyedRelation>(
    [...model.relations, ...internal].map((relation) => [relationKey(relation.schema, relation.name), relation]),
  );
  const exposed = new Set(model.relations.map((relation) => relationKey(relation.schema, relation.name)));
  const direct: Relationship[] = [];
  for (const table of [...model.relations.filter((relation) => relation.kind === 'table'), ...internal]) {
    const internalKey = !exposed.has(relationKey(table.schema, table.name));
    for (const fk of table.foreignKeys) {
      const target = byKey.get(relationKey(fk.targetSchema, fk.targetName));
      if (!target) continue;
      const oneToOne = keysOf(table).some((key) => sameColumnSet(key, fk.columns));
      for (const source of endpoints(model, table, fk.columns)) {
        for (const destination of endpoints(model, target, fk.targetColumns)) {
          direct.push(...directPair(fk, source, destination, oneToOne, internalKey));
        }
      }
    }
  }
  const between = direct.filter(
    (r) => exposed.has(relationKey(r.sourceSchema, r.sourceName)) && exposed.has(relationKey(r.targetSchema, r.targetName)),
  );
  const grouped = new Map<string, Relationship[]>();
  for (const relation of model.relations) grouped.set(relationKey(relation.schema, relation.name), []);
  for (const relationship of between) grouped.get(relationKey(relationship.sourceSchema, relationship.sourceName))?.push(relationship);
  for (const junction of model.relations) {
    const keys = junction.kind === 'table' ? keysOf(junction) : inheritedKeys(junction, byKey);
    const own = grouped.get(relationKey(junction.schema, junction.name)) ?? [];
    for (const relationship of manyToMany(junction, keys, own)) {
      grouped.get(relationKey(relationship.sourceSchema, relationship.sourceName))?.push(relationship);
    }
  }
  for (const [key, list] of grouped) grouped.set(key, sortRelationships(list));
  return grouped;
}

/** PostgREST's order of cardinalities (its constructors' order), which orders PGRST201's candidates. */
const kindOrder = ['one-to-many', 'many-to-one', 'one-to-one', 'many-to-many'];

const pairs = (from: readonly string[], to: readonly string[]): string[] => from.flatMap((column, i) => [column, to[i] ?? '']);

/**
 * PostgREST's ordering of one relation's relationships: by target, then cardinality, then the
 * foreign key and its column pairs, or the junction, its two keys and their column pairs.
 */
function sortRelationships(list: readonly Relationship[]): Relationship[] {
  return sortByKey(list, (r) => {
    const head = [r.targetSchema, r.targetName, String(kindOrder.indexOf(r.kind))];
    if (r.junction) {
      const j = r.junction;
      return [...head, j.schema, j.name, j.sourceConstraint, j.targetConstraint, ...pairs(j.source.from, j.source.to), ...pairs(j.target.to, j.target.from)];
    }
    return [...head, r.constraint, ...pairs(r.join?.from ?? [], r.join?.to ?? [])];
  });
}

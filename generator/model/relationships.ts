import type { RelationMeta } from '../../runtime/index.js';
import { compareCodePoints, sortByKey } from './sort.js';
import type { ForeignKeyModel, RelationModel, SchemaModel } from './types.js';

/** A relationship as PostgREST's schema cache sees it, oriented from `source`. */
export interface Relationship extends RelationMeta {
  readonly sourceSchema: string;
  readonly sourceName: string;
  /** The source holds the foreign key (the side `supabase gen types` lists under Relationships). */
  readonly forward: boolean;
}

/** A relation with the columns that stand for a given set of base-table columns. */
interface Endpoint {
  readonly relation: RelationModel;
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

function keysOf(relation: RelationModel): (readonly string[])[] {
  return [...(relation.primaryKey ? [relation.primaryKey.columns] : []), ...relation.uniqueConstraints.map((key) => key.columns)];
}

/**
 * The relation itself plus every view that passes all of `columns` through unchanged
 * (PostgREST lets views inherit their base tables' foreign keys).
 */
function endpoints(model: SchemaModel, table: RelationModel, columns: readonly string[]): Endpoint[] {
  const found: Endpoint[] = [{ relation: table, columns }];
  for (const view of model.relations) {
    if (view.kind === 'table') continue;
    const mapped = columns.map((column) => {
      const candidates = view.columnSources
        .filter((s) => s.schema === table.schema && s.table === table.name && s.sourceColumn === column)
        .map((s) => s.column)
        .sort(compareCodePoints);
      return candidates[0];
    });
    if (mapped.every((column): column is string => column !== undefined)) found.push({ relation: view, columns: mapped });
  }
  return found;
}

function directPair(fk: ForeignKeyModel, source: Endpoint, target: Endpoint, oneToOne: boolean): Relationship[] {
  return [
    {
      sourceSchema: source.relation.schema,
      sourceName: source.relation.name,
      forward: true,
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
      kind: oneToOne ? 'one-to-one' : 'one-to-many',
      targetSchema: source.relation.schema,
      targetName: source.relation.name,
      constraint: fk.name,
      join: { from: target.columns, to: source.columns },
      junction: null,
    },
  ];
}

function manyToMany(junction: RelationModel, byKey: Map<string, RelationModel>): Relationship[] {
  const found: Relationship[] = [];
  const keys = keysOf(junction);
  for (const first of junction.foreignKeys) {
    for (const second of junction.foreignKeys) {
      if (first.name === second.name) continue;
      const source = byKey.get(relationKey(first.targetSchema, first.targetName));
      const target = byKey.get(relationKey(second.targetSchema, second.targetName));
      if (!source || !target || source.kind !== 'table' || target.kind !== 'table') continue;
      const junctionColumns = [...first.columns, ...second.columns];
      if (!keys.some((key) => isSubset(junctionColumns, key))) continue;
      found.push({
        sourceSchema: source.schema,
        sourceName: source.name,
        forward: false,
        kind: 'many-to-many',
        targetSchema: target.schema,
        targetName: target.name,
        constraint: second.name,
        join: null,
        junction: {
          schema: junction.schema,
          name: junction.name,
          sourceConstraint: first.name,
          source: { from: first.targetColumns, to: first.columns },
          targetConstraint: second.name,
          target: { from: second.columns, to: second.targetColumns },
        },
      });
    }
  }
  return found;
}

/**
 * Every embeddable relationship of the exposed relations: each foreign key as to-one
 * and to-many (one-to-one both ways when the key columns are the table's primary key
 * or a unique constraint), repeated for views that expose the key columns, and
 * many-to-many through junction tables whose primary key or unique constraint holds
 * both foreign keys' columns. Keyed by source `schema.name`, sorted.
 */
export function buildRelationships(model: SchemaModel): Map<string, Relationship[]> {
  const byKey = new Map(model.relations.map((relation) => [relationKey(relation.schema, relation.name), relation]));
  const all: Relationship[] = [];
  for (const table of model.relations) {
    if (table.kind !== 'table') continue;
    for (const fk of table.foreignKeys) {
      const target = byKey.get(relationKey(fk.targetSchema, fk.targetName));
      if (!target) continue;
      const oneToOne = keysOf(table).some((key) => sameColumnSet(key, fk.columns));
      for (const source of endpoints(model, table, fk.columns)) {
        for (const destination of endpoints(model, target, fk.targetColumns)) {
          all.push(...directPair(fk, source, destination, oneToOne));
        }
      }
    }
    all.push(...manyToMany(table, byKey));
  }
  const grouped = new Map<string, Relationship[]>();
  for (const relation of model.relations) grouped.set(relationKey(relation.schema, relation.name), []);
  for (const relationship of all) grouped.get(relationKey(relationship.sourceSchema, relationship.sourceName))?.push(relationship);
  for (const [key, list] of grouped) grouped.set(key, sortRelationships(list));
  return grouped;
}

const kindOrder = ['many-to-one', 'one-to-one', 'one-to-many', 'many-to-many'];

function sortRelationships(list: readonly Relationship[]): Relationship[] {
  return sortByKey(list, (r) => [
    r.targetSchema,
    r.targetName,
    String(kindOrder.indexOf(r.kind)),
    r.constraint,
    r.junction?.schema ?? '',
    r.junction?.name ?? '',
    r.junction?.sourceConstraint ?? '',
    ...(r.join?.from ?? []),
    '\u0000',
    ...(r.join?.to ?? []),
  ]);
}

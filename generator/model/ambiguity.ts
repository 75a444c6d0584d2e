import type { Relationship } from './relationships.js';
import { sortByKey } from './sort.js';

/** One entry of the PGRST201 `details` array, worded as PostgREST words it. */
export interface AmbiguityDetail {
  readonly cardinality: Relationship['kind'];
  readonly embedding: string;
  readonly relationship: string;
}

/** Two or more relationships from one relation to targets of the same name: embedding by that name is PGRST201. */
export interface EmbedAmbiguity {
  readonly target: string;
  readonly details: readonly AmbiguityDetail[];
  /** `target!hint` spellings that pick one candidate each (FK name, or the junction for many-to-many). */
  readonly options: readonly string[];
}

const list = (columns: readonly string[]): string => `(${columns.join(', ')})`;

export function ambiguityDetail(r: Relationship): AmbiguityDetail {
  const embedding = `${r.sourceName} with ${r.targetName}`;
  if (r.junction) {
    const j = r.junction;
    return {
      cardinality: r.kind,
      embedding,
      relationship: `${j.name} using ${j.sourceConstraint}${list(j.source.to)} and ${j.targetConstraint}${list(j.target.from)}`,
    };
  }
  const join = r.join ?? { from: [], to: [] };
  return {
    cardinality: r.kind,
    embedding,
    relationship: `${r.constraint} using ${r.sourceName}${list(join.from)} and ${r.targetName}${list(join.to)}`,
  };
}

/**
 * PostgREST resolves a self-relation embedded by the table's own name to the
 * one-to-many side (the many-to-one side is reached by the FK column name).
 */
function matchesByName(r: Relationship): boolean {
  const isSelf = r.sourceSchema === r.targetSchema && r.sourceName === r.targetName;
  return !isSelf || r.kind === 'one-to-many';
}

/** The ambiguous embeddings (by target name) of one relation, given its sorted relationships. */
export function findAmbiguities(relationships: readonly Relationship[]): EmbedAmbiguity[] {
  const byTarget = new Map<string, Relationship[]>();
  for (const r of relationships.filter(matchesByName)) byTarget.set(r.targetName, [...(byTarget.get(r.targetName) ?? []), r]);
  const ambiguities: EmbedAmbiguity[] = [];
  for (const [target, candidates] of byTarget) {
    if (candidates.length < 2) continue;
    ambiguities.push({
      target,
      details: candidates.map(ambiguityDetail),
      options: candidates.map((r) => `${r.targetName}!${r.junction ? r.junction.name : r.constraint}`),
    });
  }
  return sortByKey(ambiguities, (a) => [a.target]);
}

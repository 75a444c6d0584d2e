import { pgrstError } from '../errors.js';
import type { ComputedRelationMeta, ProjectMeta, RelationMeta, TableMeta } from '../metadata.js';

/** How an embed reaches its rows: joined over a foreign key, or from `f(parent row)`. */
export type EmbedSource =
  | { readonly kind: 'foreign-key'; readonly relation: RelationMeta }
  | { readonly kind: 'computed'; readonly computed: ComputedRelationMeta };

export interface ResolvedRelation {
  readonly source: EmbedSource;
  readonly target: TableMeta;
  /** many-to-one and one-to-one give an object; one-to-many and many-to-many an array. */
  readonly toOne: boolean;
}

function singleFrom(rel: RelationMeta): string | null {
  return rel.join && rel.join.from.length === 1 ? (rel.join.from[0] ?? null) : null;
}

function singleTo(rel: RelationMeta): string | null {
  return rel.join && rel.join.to.length === 1 ? (rel.join.to[0] ?? null) : null;
}

function isDirect(rel: RelationMeta): boolean {
  return rel.kind !== 'many-to-many';
}

/**
 * PostgREST's `findRel`: the embed name is a table/view name, an FK constraint name or an FK
 * column of the source; the hint is a constraint, an FK column of either side or (m2m) the
 * junction table. Self-relations follow PostgREST's convention (table name → one-to-many,
 * FK column → many-to-one).
 */
function matches(source: TableMeta, rel: RelationMeta, target: TableMeta, name: string, hint: string | null): boolean {
  const isSelf = rel.targetSchema === source.schema && rel.targetName === source.name;
  const targetIsView = target.kind !== 'table';
  if (isSelf) {
    if (hint === null) {
      return (name === rel.targetName && rel.kind === 'one-to-many') || (singleFrom(rel) === name && rel.kind === 'many-to-one');
    }
    return name === rel.targetName && rel.kind === 'one-to-many' && singleTo(rel) === hint;
  }
  if (hint === null) {
    return name === rel.targetName
      || (isDirect(rel) && rel.constraint === name && !targetIsView)
      || (isDirect(rel) && singleFrom(rel) === name && !targetIsView);
  }
  return name === rel.targetName && (
    (isDirect(rel) && (rel.constraint === hint || singleFrom(rel) === hint || singleTo(rel) === hint))
    || (rel.junction !== null && rel.junction.name === hint)
  );
}

function fmtCols(cols: readonly string[]): string {
  return `(${cols.join(', ')})`;
}

/** One entry of PGRST201's `details`, worded as PostgREST's `compressedRel`. */
function describe(source: TableMeta, rel: RelationMeta): Record<string, string> {
  const embedding = `${source.name} with ${rel.targetName}`;
  if (rel.junction) {
    const j = rel.junction;
    return {
      cardinality: 'many-to-many',
      embedding,
      relationship: `${j.name} using ${j.sourceConstraint}${fmtCols(j.source.to)} and ${j.targetConstraint}${fmtCols(j.target.from)}`,
    };
  }
  const join = rel.join ?? { from: [], to: [] };
  return {
    cardinality: rel.kind,
    embedding,
    relationship: `${rel.constraint} using ${source.name}${fmtCols(join.from)} and ${rel.targetName}${fmtCols(join.to)}`,
  };
}

function hintName(rel: RelationMeta): string {
  return `'${rel.targetName}!${rel.junction ? rel.junction.name : rel.constraint}'`;
}

/** Levenshtein distance; used only for "Perhaps you meant" hints. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const cur = [i];
    for (let j = 1; j <= b.length; j += 1) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** PostgREST's relationship hint takes any candidate its fuzzy set returns (`Fuzzy.get`, least score 0.33). */
const RELATIONSHIP_HINT_SCORE = 0.33;

/**
 * The closest candidate when it is similar enough to be a plausible typo (a score, 1 − distance ÷ length, of at
 * least `minScore`), else null. PostgREST asks 0.75 of a function's name and 0.33 of a parameter list and of a
 * relationship.
 */
export function closest(name: string, candidates: Iterable<string>, minScore = 0.6): string | null {
  let best: string | null = null;
  let bestScore = 0;
  for (const c of candidates) {
    if (c === name) continue;
    const score = 1 - distance(name.toLowerCase(), c.toLowerCase()) / Math.max(name.length, c.length, 1);
    if (score > bestScore) { best = c; bestScore = score; }
  }
  return bestScore >= minScore ? best : null;
}

/**
 * A computed relationship is found by its function's name whatever the hint. Its function
 * shadows the foreign-key relationships to the relation of the same schema and name, as
 * PostgREST's schema cache keys both by (source, function or target) and lets functions win.
 */
function computedMatches(meta: ProjectMeta, source: TableMeta, name: string): ResolvedRelation[] {
  const found: ResolvedRelation[] = [];
  for (const computed of source.computedRelations) {
    if (computed.function.name !== name || computed.targetSchema !== source.schema) continue;
    const target = meta.tables[`${computed.targetSchema}.${computed.targetName}`];
    if (target) found.push({ source: { kind: 'computed', computed }, target, toOne: computed.toOne });
  }
  return found;
}

function shadowed(source: TableMeta, relation: RelationMeta): boolean {
  return source.computedRelations.some(
    (c) => c.function.schema === relation.targetSchema && c.function.name === relation.targetName,
  );
}

export function findRelation(meta: ProjectMeta, source: TableMeta, name: string, hint: string | null): ResolvedRelation {
  const found: ResolvedRelation[] = computedMatches(meta, source, name);
  for (const relation of source.relations) {
    // Embedding stays inside the source's schema, as in PostgREST's schema cache lookup.
    if (relation.targetSchema !== source.schema || shadowed(source, relation)) continue;
    const target = meta.tables[`${relation.targetSchema}.${relation.targetName}`];
    if (!target || !matches(source, relation, target, name, hint)) continue;
    found.push({ source: { kind: 'foreign-key', relation }, target, toOne: relation.kind === 'many-to-one' || relation.kind === 'one-to-one' });
  }
  if (found.length === 1) return found[0] as ResolvedRelation;
  if (found.length === 0) {
    const candidates = [...source.relations.map((r) => r.targetName), ...source.computedRelations.map((c) => c.function.name)];
    const suggestion = hint === null ? closest(name, candidates, RELATIONSHIP_HINT_SCORE) : null;
    throw pgrstError(
      'PGRST200',
      `Could not find a relationship between '${source.name}' and '${name}' in the schema cache`,
      `Searched for a foreign key relationship between '${source.name}' and '${name}'${hint === null ? '' : ` using the hint '${hint}'`} in the schema '${source.schema}', but no matches were found.`,
      suggestion === null ? null : `Perhaps you meant '${suggestion}' instead of '${name}'.`,
    );
  }
  // PostgREST describes a computed relationship in PGRST201 as an empty object and offers no hint for it.
  const fkRelations = found.flatMap((f) => (f.source.kind === 'foreign-key' ? [f.source.relation] : []));
  throw pgrstError(
    'PGRST201',
    `Could not embed because more than one relationship was found for '${source.name}' and '${name}'`,
    found.map((f) => (f.source.kind === 'foreign-key' ? describe(source, f.source.relation) : {})),
    `Try changing '${name}' to one of the following: ${fkRelations.map(hintName).join(', ')}. Find the desired relationship in the 'details' key.`,
  );
}

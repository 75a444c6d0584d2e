import { findAmbiguities } from '../model/ambiguity.js';
import { relationKey } from '../model/relationships.js';
import { Imports, printValue, sections, type Printable } from './code.js';
import { runtimeModule, type EmitContext } from './context.js';
import { fileHeader } from '../../runtime/generated-files.js';
import { propertyKey } from './names.js';

/**
 * `relations.ts`: the embedding graph (every relation's relationships, as in its table
 * module) and, precomputed, the embeddings PostgREST refuses as ambiguous (PGRST201).
 */
export function emitRelationsModule(context: EmitContext): string {
  const imports = new Imports();
  imports.add(runtimeModule, 'RelationMeta', true);
  const graph: string[] = [];
  const ambiguous: Record<string, Printable> = {};
  for (const module of context.tables) {
    const key = relationKey(module.relation.schema, module.relation.name);
    imports.add(`./tables/${module.fileBase}.js`, `meta as ${module.identifier}`, false);
    graph.push(`  ${propertyKey(key)}: ${module.identifier}.relations,\n`);
    const found = findAmbiguities(context.relationships.get(key) ?? []);
    if (found.length > 0) ambiguous[key] = found as unknown as Printable;
  }
  return sections(
    fileHeader(context.ref),
    imports.print(),
    ambiguityTypes,
    '/** Relationships by source relation (`schema.name`). */\n' +
      `export const relationships: Readonly<Record<string, readonly RelationMeta[]>> = ${graph.length === 0 ? '{}' : `{\n${graph.join('')}}`};\n`,
    '/** Embeddings by target name that match several relationships, by source relation. */\n' +
      `export const ambiguities: Readonly<Record<string, readonly EmbedAmbiguity[]>> = ${printValue(ambiguous as Printable)};\n`,
  );
}

const ambiguityTypes = `/** One entry of the PGRST201 \`details\` array. */
export interface AmbiguityDetail {
  readonly cardinality: RelationMeta["kind"];
  readonly embedding: string;
  readonly relationship: string;
}

/** Embedding \`target\` from the source relation matches several relationships (PGRST201, status 300). */
export interface EmbedAmbiguity {
  readonly target: string;
  readonly details: readonly AmbiguityDetail[];
  /** The \`target!hint\` spellings that each pick one relationship, for the error's hint. */
  readonly options: readonly string[];
}
`;


import { canonicalJson, schemaFingerprint } from '../model/fingerprint.js';
import { functionGroups } from '../model/project-meta.js';
import { buildRelationships } from '../model/relationships.js';
import { compareCodePoints } from '../model/sort.js';
import type { SchemaModel } from '../model/types.js';
import type { EmitContext, FunctionModule, TableModule } from './context.js';
import { emitDatabaseTypes } from './database-types.js';
import { emitIndexModule } from './index-module.js';
import { IdentifierRegistry, moduleFileBase } from './names.js';
import { emitOpenApiFiles } from './openapi.js';
import { emitRelationsModule } from './relations-module.js';
import { emitRpcModule } from './rpc-module.js';
import { emitTableModule } from './table-module.js';

/** A project ref as the platform allows it (it is written into comments and paths unescaped). */
const projectRef = /^[a-z][a-z0-9_]{2,39}$/;

export class EmitError extends Error {
  readonly code: 'invalid_ref';

  constructor(code: EmitError['code'], message: string) {
    super(message);
    this.name = 'EmitError';
    this.code = code;
  }
}

export interface EmitOptions {
  /** The project ref, named in headers and the OpenAPI document. */
  readonly ref: string;
  /** OpenAPI path items of the project extension's custom routes (`functionPaths`), documented in openapi.json and api.d.ts. */
  readonly functionPaths?: Readonly<Record<string, unknown>>;
}

/** Names every module of the project once, so all emitters agree on files and identifiers. */
export function planProject(model: SchemaModel, ref: string): EmitContext {
  const defaultSchema = model.schemas[0] ?? 'public';
  const identifiers = new IdentifierRegistry();
  const tables: TableModule[] = model.relations.map((relation) => {
    const fileBase = moduleFileBase(relation.schema, relation.name, defaultSchema);
    return { relation, fileBase, identifier: identifiers.allocate('table_', fileBase) };
  });
  const functions: FunctionModule[] = [...functionGroups(model).values()].map((overloads) => {
    const first = overloads[0] as (typeof overloads)[number];
    const fileBase = moduleFileBase(first.schema, first.name, defaultSchema);
    return { schema: first.schema, name: first.name, overloads, fileBase, identifier: identifiers.allocate('rpc_', fileBase) };
  });
  return {
    ref,
    model,
    fingerprint: schemaFingerprint(model),
    relationships: buildRelationships(model),
    tables,
    functions,
  };
}

/**
 * `schema.json`: the normalised model the code was generated from, for reviewers (schema
 * changes show up as diffs) and offline checks. JSON has no comments, so the header is
 * a pair of fields around the model; the fingerprint is the sha256 of the model's
 * canonical JSON.
 */
function emitSchemaSnapshot(context: EmitContext): string {
  const snapshot = {
    generatedBy: `Gantry, from the database of project "${context.ref}". Do not edit: run \`gantry gen ${context.ref}\`.`,
    fingerprint: `sha256:${context.fingerprint}`,
    model: JSON.parse(canonicalJson(context.model)) as unknown,
  };
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/**
 * Every file of `generated/<ref>/`, keyed by path relative to that folder, in path
 * order. Pure: the same model and ref always give the same bytes.
 */
export function emitProject(model: SchemaModel, options: EmitOptions): Map<string, string> {
  if (!projectRef.test(options.ref)) throw new EmitError('invalid_ref', `"${options.ref}" is not a project ref`);
  const context = planProject(model, options.ref);
  const files: [string, string][] = [
    ['index.ts', emitIndexModule(context)],
    ['relations.ts', emitRelationsModule(context)],
    ['database.types.ts', emitDatabaseTypes(context)],
    ...emitOpenApiFiles(context, options.functionPaths ?? {}),
    ['schema.json', emitSchemaSnapshot(context)],
  ];
  for (const module of context.tables) files.push([`tables/${module.fileBase}.ts`, emitTableModule(context, module)]);
  for (const module of context.functions) files.push([`rpc/${module.fileBase}.ts`, emitRpcModule(context, module)]);
  return new Map(files.sort(([a], [b]) => compareCodePoints(a, b)));
}

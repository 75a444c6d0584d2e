import type { Relationship } from '../model/relationships.js';
import type { FunctionModel, RelationModel, SchemaModel } from '../model/types.js';

/** What every emitter of one project shares: the model and the names chosen for its modules. */
export interface EmitContext {
  readonly ref: string;
  readonly model: SchemaModel;
  readonly fingerprint: string;
  readonly relationships: ReadonlyMap<string, readonly Relationship[]>;
  readonly tables: readonly TableModule[];
  readonly functions: readonly FunctionModule[];
}

export interface TableModule {
  readonly relation: RelationModel;
  /** File name without extension under `tables/`. */
  readonly fileBase: string;
  /** Identifier the module is imported as in `index.ts`. */
  readonly identifier: string;
}

export interface FunctionModule {
  readonly schema: string;
  readonly name: string;
  /** Overloads, in model order. */
  readonly overloads: readonly FunctionModel[];
  readonly fileBase: string;
  readonly identifier: string;
}

/**
 * The runtime's public entry as generated code imports it: the package's name, which resolves to
 * `node_modules/gantry` in a team's repository and to itself (a package's self-reference) in
 * Gantry's own, wherever generated/ lives.
 */
export const runtimeModule = 'gantry';

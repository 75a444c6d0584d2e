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

/** Relative import path from a module under `tables/` or `rpc/` to the runtime's public entry. */
export const runtimeFromSubdir = '../../../runtime/index.js';
/** Relative import path from `generated/<ref>/index.ts` to the runtime's public entry. */
export const runtimeFromRoot = '../../runtime/index.js';

/**
 * Route descriptors: how generated modules register their tables and functions with
 * the runtime. Generated code stays data-shaped (no handlers, no I/O), so a project's
 * server is the runtime's request engine applied to these descriptors, and a
 * regeneration swaps data rather than code.
 */
import type { FunctionMeta, ProjectMeta, TableMeta } from './metadata.js';

/**
 * The data API routes of one table or view (`/rest/v1/<name>`). The type parameters
 * carry the wire shapes of its rows for typed consumers; they have no runtime value.
 */
export interface TableRoutes<Row = unknown, Insert = unknown, Update = unknown> {
  readonly kind: 'table';
  readonly meta: TableMeta;
  readonly types?: { readonly row: Row; readonly insert: Insert; readonly update: Update };
}

/** The RPC route of one function name (`/rest/v1/rpc/<name>`), overloads together. */
export interface RpcRoutes<Overloads = unknown> {
  readonly kind: 'rpc';
  readonly functions: readonly FunctionMeta[];
  readonly types?: Overloads;
}

/** Everything a generated project exports for the runtime to serve it. */
export interface ProjectDefinition {
  readonly ref: string;
  readonly project: ProjectMeta;
  readonly tables: readonly TableRoutes[];
  readonly functions: readonly RpcRoutes[];
}

export function tableRoutes<Row, Insert, Update>(meta: TableMeta): TableRoutes<Row, Insert, Update> {
  return { kind: 'table', meta };
}

export function rpcRoutes<Overloads>(functions: readonly FunctionMeta[]): RpcRoutes<Overloads> {
  return { kind: 'rpc', functions };
}

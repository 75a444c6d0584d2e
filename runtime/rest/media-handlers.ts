import type { FunctionMeta, MediaHandlerMeta, ProjectMeta } from './metadata.js';

/**
 * The media type handlers `Accept` may choose for a request: a relation's aggregates; for a function, what its
 * overloads return (a media type domain, or rows of a relation that has aggregates). The overload a call
 * resolves to must then have the one chosen (see `buildRpc`).
 */
export function mediaHandlersOf(meta: ProjectMeta, schema: string, resource: { readonly kind: 'table' | 'rpc'; readonly name: string }): readonly MediaHandlerMeta[] {
  if (resource.kind === 'table') return meta.tables[`${schema}.${resource.name}`]?.mediaHandlers ?? [];
  return (meta.functions[`${schema}.${resource.name}`] ?? []).flatMap((fn) => functionHandlers(meta, fn));
}

/** The handlers one function's result can take: only a single value of a media type domain, as PostgREST. */
export function functionHandlers(meta: ProjectMeta, fn: FunctionMeta): readonly MediaHandlerMeta[] {
  if (fn.mediaHandler) return fn.returnsSet ? [] : [fn.mediaHandler];
  const relation = fn.returnRelation;
  return relation === null ? [] : meta.tables[`${relation.schema}.${relation.name}`]?.mediaHandlers ?? [];
}

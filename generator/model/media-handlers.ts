import type { MediaHandlerMeta } from '../../runtime/index.js';
import { resolveDomain } from './domains.js';
import type { FunctionModel, MediaAggregateModel, RelationModel, SchemaModel, TypeRef } from './types.js';

/**
 * A domain named like a media type (`"image/png"`, `"*\/*"`): PostgREST's media type handler types. PostgREST's
 * own `application/vnd.pgrst.*` types are never overridden, so a domain of that name handles nothing.
 */
export function isMediaTypeDomain(type: TypeRef): boolean {
  return type.kind === 'domain' && /^[^/\s]+\/[^/\s]+$/.test(type.name) && !type.name.startsWith('application/vnd.pgrst.');
}

function isBinary(type: TypeRef): boolean {
  return resolveDomain(type).name === 'bytea';
}

/** A function returning a media type domain is that type's handler. */
export function functionMediaHandler(returnType: TypeRef): MediaHandlerMeta | null {
  if (!isMediaTypeDomain(returnType)) return null;
  return { mediaType: returnType.name, binary: isBinary(returnType), aggregate: null };
}

function takesRowsOf(aggregate: MediaAggregateModel, relation: RelationModel): boolean {
  const input = aggregate.input;
  return input.kind === 'composite' && input.schema === relation.schema && input.name === relation.name;
}

function aggregateHandler(aggregate: MediaAggregateModel, anyElement: boolean): MediaHandlerMeta {
  return {
    mediaType: aggregate.returnType.name,
    binary: isBinary(aggregate.returnType),
    aggregate: { schema: aggregate.schema, name: aggregate.name, anyElement },
  };
}

/**
 * A relation's handlers: the aggregates over its own rows before those over `anyelement`, so the more specific
 * one wins a media type both give (PostgREST).
 */
export function relationMediaHandlers(model: SchemaModel, relation: RelationModel): MediaHandlerMeta[] {
  const aggregates = model.mediaAggregates ?? [];
  return [
    ...aggregates.filter((a) => takesRowsOf(a, relation)).map((a) => aggregateHandler(a, false)),
    ...aggregates.filter((a) => a.input.kind === 'pseudo' && a.input.name === 'anyelement').map((a) => aggregateHandler(a, true)),
  ];
}

/** The handlers a function's result can take, as the runtime's `functionHandlers`: its own media type, or its rows' relation's. */
export function functionMediaHandlers(model: SchemaModel, fn: FunctionModel): MediaHandlerMeta[] {
  const own = functionMediaHandler(fn.returnType);
  if (own) return fn.returnsSet ? [] : [own];
  const type = resolveDomain(fn.returnType);
  const relation = type.kind === 'composite' ? model.relations.find((r) => r.schema === type.schema && r.name === type.name) : undefined;
  return relation ? relationMediaHandlers(model, relation) : [];
}

/** OpenAPI `content` entries for handlers: a string, bytes for a bytea domain. */
export function mediaHandlerContent(handlers: readonly MediaHandlerMeta[]): Record<string, { schema: { type: 'string'; format?: 'binary' } }> {
  const content: Record<string, { schema: { type: 'string'; format?: 'binary' } }> = {};
  for (const handler of handlers) {
    content[handler.mediaType] ??= { schema: handler.binary ? { type: 'string', format: 'binary' } : { type: 'string' } };
  }
  return content;
}

import type { ProjectMeta } from './metadata.js';
import { findTable } from './sql/statement.js';
import { functionNotFound } from './sql/rpc.js';

/**
 * The `Allow` header of a resource, as PostgREST answers OPTIONS: what the relation can do
 * at all (not what the caller's grants permit), and for functions what their volatility
 * permits. PUT is PATCH here (service document), so it follows UPDATE.
 */
export function allowedMethods(meta: ProjectMeta, schema: string, resource: { kind: 'table' | 'rpc'; name: string }): string {
  if (resource.kind === 'rpc') {
    const overloads = meta.functions[`${schema}.${resource.name}`];
    if (!overloads?.length) throw functionNotFound(meta, schema, resource.name);
    return overloads.some((fn) => fn.volatility === 'volatile') ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST';
  }
  const { updatable } = findTable(meta, schema, resource.name);
  return [
    'OPTIONS', 'GET', 'HEAD',
    ...(updatable.insert ? ['POST'] : []),
    ...(updatable.update ? ['PUT', 'PATCH'] : []),
    ...(updatable.delete ? ['DELETE'] : []),
  ].join(',');
}

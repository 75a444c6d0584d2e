import type { TypeRef } from './types.js';

/** Follows domains down to the type values are stored as. */
export function resolveDomain(type: TypeRef): TypeRef {
  let current = type;
  while (current.kind === 'domain' && current.base) current = current.base;
  return current;
}

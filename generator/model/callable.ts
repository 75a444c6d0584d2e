import { inputArgs } from './project-meta.js';
import type { FunctionModel } from './types.js';

/** Types of a single unnamed parameter that can take the whole request body. */
const WHOLE_BODY_TYPES = new Set(['bytea', 'json', 'jsonb', 'text', 'xml']);

/**
 * Whether the data API can call the function, by PostgREST's schema cache rule: arguments
 * travel by name, so every input parameter must be named, except a lone unnamed parameter
 * of a type that takes the whole body (json/jsonb, or text/xml/bytea raw bodies). Functions
 * that fail the rule are in neither the API, the OpenAPI document nor `database.types.ts`.
 */
export function isCallable(fn: FunctionModel): boolean {
  const inputs = inputArgs(fn);
  if (inputs.every((arg) => arg.name !== '')) return true;
  const [only] = inputs;
  return inputs.length === 1 && only !== undefined && only.type.schema === 'pg_catalog' && WHOLE_BODY_TYPES.has(only.type.name);
}

import { resolveDomain } from '../model/domains.js';
import { typedRelation } from '../model/typed-relation.js';
import type { SchemaModel, TypeRef } from '../model/types.js';
import { indexedAccess } from './names.js';

/**
 * PostgreSQL types as the JSON the API sends, typed exactly as `supabase gen types
 * typescript` types them (so code written against Supabase types compiles unchanged):
 * all numbers (int8 and numeric included) are `number`, dates, times and intervals `string`,
 * json `Json`, enums and composites by reference into `Database`, unknown types `unknown`.
 */

const numberTypes = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);
const stringTypes = new Set([
  'bytea', 'bpchar', 'varchar', 'date', 'text', 'citext', 'time', 'timetz', 'timestamp', 'timestamptz', 'uuid', 'vector', 'interval',
]);

export interface TypeContext {
  readonly model: SchemaModel;
  /** Called when a reference to the `Database` or `Json` type is emitted, so the caller can import it. */
  readonly uses: (name: 'Database' | 'Json') => void;
}

export function tsType(type: TypeRef, context: TypeContext): string {
  const resolved = resolveDomain(type);
  switch (resolved.kind) {
    case 'array': {
      const element = resolved.element ? tsType(resolved.element, context) : 'unknown';
      return element.includes(' ') ? `(${element})[]` : `${element}[]`;
    }
    case 'enum':
      return reference(resolved, 'Enums', context);
    case 'composite':
      return compositeReference(resolved, context);
    case 'pseudo':
      if (resolved.name === 'void') return 'undefined';
      if (resolved.name === 'record') return 'Record<string, unknown>';
      return 'unknown';
    case 'base':
      return baseType(resolved.name, context);
    default:
      return 'unknown';
  }
}

function baseType(name: string, context: TypeContext): string {
  if (name === 'bool') return 'boolean';
  if (numberTypes.has(name)) return 'number';
  if (stringTypes.has(name)) return 'string';
  if (name === 'json' || name === 'jsonb') {
    context.uses('Json');
    return 'Json';
  }
  return 'unknown';
}

function reference(type: TypeRef, group: 'Enums' | 'CompositeTypes', context: TypeContext): string {
  if (!context.model.schemas.includes(type.schema)) return 'unknown';
  context.uses('Database');
  return indexedAccess('Database', [type.schema, group, type.name]);
}

function compositeReference(type: TypeRef, context: TypeContext): string {
  const relation = typedRelation(context.model, type);
  if (relation) {
    context.uses('Database');
    return indexedAccess('Database', [relation.schema, relation.kind === 'table' ? 'Tables' : 'Views', relation.name, 'Row']);
  }
  return reference(type, 'CompositeTypes', context);
}

/** `T | null` for nullable values. */
export function nullable(type: string, isNullable: boolean): string {
  return isNullable ? `${type} | null` : type;
}

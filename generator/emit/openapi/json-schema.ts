import { resolveDomain } from '../../model/domains.js';
import { typedRelation } from '../../model/typed-relation.js';
import type { SchemaModel, TypeRef } from '../../model/types.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 embeds it) as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** `$ref` to a component schema. */
export function schemaRef(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${escapePointer(name)}` };
}

/** JSON Pointer escaping of one reference token (RFC 6901). */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * How the data API writes each base type: PostgreSQL's JSON rendering (`to_json`), so
 * int8 and numeric are JSON numbers, timestamps ISO strings, bytea `\x`-hex strings.
 * Formats are the OpenAPI format registry's; where PostgreSQL's text is not the
 * registry's (timestamp without zone, time, interval) there is no format.
 */
const BASE_TYPES: Readonly<Record<string, JsonSchema>> = {
  bool: { type: 'boolean' },
  int2: { type: 'integer', format: 'int16', minimum: -32768, maximum: 32767 },
  int4: { type: 'integer', format: 'int32' },
  int8: { type: 'integer', format: 'int64' },
  oid: { type: 'integer', format: 'int64', minimum: 0 },
  float4: { type: 'number', format: 'float' },
  float8: { type: 'number', format: 'double' },
  numeric: { type: 'number', format: 'decimal' },
  money: { type: 'string' },
  text: { type: 'string' },
  citext: { type: 'string' },
  name: { type: 'string', maxLength: 63 },
  varchar: { type: 'string' },
  bpchar: { type: 'string' },
  char: { type: 'string', maxLength: 1 },
  uuid: { type: 'string', format: 'uuid' },
  date: { type: 'string', format: 'date' },
  timestamptz: { type: 'string', format: 'date-time' },
  timestamp: { type: 'string', description: 'ISO 8601 date and time without time zone' },
  time: { type: 'string', description: 'Time of day without time zone, `HH:MM:SS[.ffffff]`' },
  timetz: { type: 'string', description: 'Time of day with time zone offset' },
  interval: { type: 'string', description: 'Interval in PostgreSQL notation, e.g. `1 day 02:00:00`' },
  bytea: { type: 'string', pattern: '^\\\\x([0-9a-f]{2})*$', description: 'Bytes as `\\x` followed by hex digits' },
  inet: { type: 'string' },
  cidr: { type: 'string' },
  macaddr: { type: 'string' },
  tsvector: { type: 'string' },
  tsquery: { type: 'string' },
  xml: { type: 'string' },
  bit: { type: 'string', pattern: '^[01]*$' },
  varbit: { type: 'string', pattern: '^[01]*$' },
  json: {},
  jsonb: {},
};

/** `character varying(20)`, `character(3)`, `bit(8)`: the length in the column's typmod. */
function declaredLength(sql: string): number | null {
  const match = /^(?:character varying|character|bit varying|bit)\((\d+)\)(?:\[\])*$/.exec(sql);
  return match ? Number(match[1]) : null;
}

function baseSchema(type: TypeRef): JsonSchema {
  const known = BASE_TYPES[type.name];
  if (!known) return { type: 'string' };
  const length = declaredLength(type.sql);
  if (length === null) return known;
  return type.name === 'bit' ? { ...known, minLength: length, maxLength: length } : { ...known, maxLength: length };
}

/** The JSON Schema of a value of `type` as the data API reads and writes it, without null. */
export function typeSchema(type: TypeRef, model: SchemaModel, depth = 0): JsonSchema {
  const resolved = resolveDomain(type);
  switch (resolved.kind) {
    case 'array':
      return { type: 'array', items: resolved.element ? typeSchema(resolved.element, model, depth) : {} };
    case 'enum': {
      const values = model.enums.find((e) => e.schema === resolved.schema && e.name === resolved.name)?.values;
      return values ? { type: 'string', enum: [...values] } : { type: 'string' };
    }
    case 'composite':
      return compositeSchema(resolved, model, depth);
    case 'range':
    case 'multirange':
      return { type: 'string', description: 'Range in PostgreSQL notation, e.g. `[1,10)`' };
    case 'pseudo':
      if (resolved.name === 'record') return { type: 'object' };
      return {};
    default:
      return baseSchema(resolved);
  }
}

/** A composite value is a JSON object; composites nest, and a guard stops pathological depth. */
function compositeSchema(type: TypeRef, model: SchemaModel, depth: number): JsonSchema {
  if (depth > 8) return { type: 'object' };
  const relation = typedRelation(model, type);
  const composite = model.compositeTypes.find((c) => c.schema === type.schema && c.name === type.name);
  const fields = relation?.columns.map((c) => ({ name: c.name, type: c.type })) ?? composite?.attributes ?? null;
  if (fields === null) return { type: 'object' };
  const comment = relation?.comment ?? composite?.comment ?? null;
  return {
    type: 'object',
    ...(comment === null ? {} : { description: comment }),
    properties: Object.fromEntries(fields.map((f) => [f.name, nullable(typeSchema(f.type, model, depth + 1), true)])),
  };
}

/** The schema with JSON null allowed too (JSON Schema 2020-12 type arrays). */
export function nullable(schema: JsonSchema, isNullable: boolean): JsonSchema {
  if (!isNullable) return schema;
  const type = schema.type;
  if (typeof type === 'string') {
    const withNull: Record<string, unknown> = { ...schema, type: [type, 'null'] };
    if (Array.isArray(schema.enum)) withNull.enum = [...(schema.enum as unknown[]), null];
    return withNull;
  }
  if (Array.isArray(type)) return type.includes('null') ? schema : { ...schema, type: [...(type as string[]), 'null'] };
  if (schema.$ref !== undefined) return { anyOf: [schema, { type: 'null' }] };
  // No `type`: any JSON value (json, unknown types), null included.
  return schema;
}

/**
 * A column default as a JSON value, when the expression is a constant PostgreSQL
 * would store as is (`'draft'::post_status`, `false`, `0`, `'{}'::jsonb`); undefined
 * for anything computed (`now()`, `auth.uid()`, sequences).
 */
export function defaultValue(expression: string, schema: JsonSchema): unknown {
  const text = expression.trim();
  if (/^NULL(::.+)?$/i.test(text)) return null;
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text) || /^\(-\d+(\.\d+)?\)$/.test(text)) return numberFrom(text.replace(/[()]/g, ''), schema);
  const quoted = /^'((?:[^']|'')*)'(?:::[\w." ]+(?:\(\d+(?:,\d+)?\))?(?:\[\])*)?$/.exec(text);
  if (!quoted) return undefined;
  const literal = (quoted[1] as string).replace(/''/g, "'");
  const type = schema.type;
  if (type === undefined && Object.keys(schema).length === 0) {
    try {
      return JSON.parse(literal) as unknown;
    } catch {
      return undefined;
    }
  }
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?$/.test(literal) ? numberFrom(literal, schema) : undefined;
  if (type === 'boolean') return literal === 'true' || literal === 't' ? true : literal === 'false' || literal === 'f' ? false : undefined;
  if (type === 'string') return literal;
  return undefined;
}

function numberFrom(text: string, schema: JsonSchema): number | undefined {
  const value = Number(text);
  if (!Number.isFinite(value)) return undefined;
  // A default JSON cannot carry exactly (a huge int8, a long numeric) is better left out than rounded.
  if (schema.type === 'integer' && !Number.isSafeInteger(value)) return undefined;
  if (String(value) !== text.replace(/^(-?)0+(?=\d)/, '$1').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '')) return undefined;
  return value;
}

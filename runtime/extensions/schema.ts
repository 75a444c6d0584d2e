import {
  Kind, Type, TypeRegistry,
  type Static, type TArray, type TBoolean, type TInteger, type TNull, type TNumber, type TObject, type TOptionalWithFlag,
  type TProperties, type TSchema, type TString, type TUnion, type TUnsafe,
} from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';

/**
 * Input and output schemas of custom routes, built with TypeBox: each is a JSON Schema whose
 * TypeScript type is the value it accepts (`Infer<typeof s>`), so one declaration types the
 * handler, validates the request and its answer, and describes the route in OpenAPI. `t` keeps
 * the few builders a route needs, with the defaults a JSON API wants: objects refuse unknown
 * properties, integers stay within the range a JSON number carries exactly.
 */

/** A schema whose accepted values have type `T`. */
export type Schema<T> = TSchema & { static: T };

export type Infer<S extends TSchema> = Static<S>;

/** A string enum as `{ type: 'string', enum }` (TypeBox's own enums are unions of constants, less readable in OpenAPI). */
const STRING_ENUM = 'StringEnum';
TypeRegistry.Set<{ enum: readonly string[] }>(STRING_ENUM, (schema, value) => typeof value === 'string' && schema.enum.includes(value));

/** ±(2^53 − 1): beyond it a JSON number no longer names one integer, and PostgreSQL would get another. */
const SAFE = Number.MAX_SAFE_INTEGER;

type Doc = { readonly description?: string };
type Bounds = { readonly minimum?: number; readonly maximum?: number };

export const t = {
  string: (o: Doc & { readonly minLength?: number; readonly maxLength?: number; readonly pattern?: string } = {}): TString => Type.String(o),
  integer: (o: Doc & Bounds = {}): TInteger => Type.Integer({ ...o, minimum: Math.max(o.minimum ?? -SAFE, -SAFE), maximum: Math.min(o.maximum ?? SAFE, SAFE) }),
  number: (o: Doc & Bounds = {}): TNumber => Type.Number(o),
  boolean: (o: Doc = {}): TBoolean => Type.Boolean(o),
  enum: <const V extends readonly string[]>(values: V, o: Doc = {}): TUnsafe<V[number]> =>
    Type.Unsafe<V[number]>({ ...o, [Kind]: STRING_ENUM, type: 'string', enum: [...values] }),
  array: <S extends TSchema>(items: S, o: Doc = {}): TArray<S> => Type.Array(items, o),
  object: <P extends TProperties>(properties: P, o: Doc = {}): TObject<P> => Type.Object(properties, { ...o, additionalProperties: false }),
  nullable: <S extends TSchema>(inner: S): TUnion<[S, TNull]> => Type.Union([inner, Type.Null()]),
  optional: <S extends TSchema>(inner: S): TOptionalWithFlag<S, true> => Type.Optional(inner),
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** What a schema accepts, in a problem's words: `integer`, `one of "a", "b", null`. */
function expected(schema: TSchema): string {
  if (schema[Kind] === STRING_ENUM) return `one of ${(schema.enum as string[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (schema[Kind] === 'Union') {
    const members = (schema.anyOf as TSchema[]).map(expected);
    const enums = members.filter((m) => m.startsWith('one of '));
    if (enums.length > 0) return `one of ${[...enums.map((m) => m.slice('one of '.length)), ...members.filter((m) => m === 'null')].join(', ')}`;
    return members.join(' or ');
  }
  return typeof schema.type === 'string' ? schema.type : String(schema[Kind]).toLowerCase();
}

function problem(error: ValueError): string {
  const { schema } = error;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty: return 'required';
    case ValueErrorType.ObjectAdditionalProperties: return 'unknown property';
    case ValueErrorType.StringMinLength: return `shorter than ${schema.minLength}`;
    case ValueErrorType.StringMaxLength: return `longer than ${schema.maxLength}`;
    case ValueErrorType.StringPattern: return `does not match ${schema.pattern}`;
    case ValueErrorType.IntegerMinimum: case ValueErrorType.NumberMinimum: return `less than ${schema.minimum}`;
    case ValueErrorType.IntegerMaximum: case ValueErrorType.NumberMaximum: return `more than ${schema.maximum}`;
    case ValueErrorType.Kind: return `expected ${expected(schema)}`;
    case ValueErrorType.Union: return schema.anyOf.some((member: TSchema) => member[Kind] === STRING_ENUM)
      ? `expected ${expected(schema)}`
      : `expected ${expected(schema)}, got ${typeOf(error.value)}`;
    default: return `expected ${expected(schema)}, got ${typeOf(error.value)}`;
  }
}

/** A TypeBox error path (JSON Pointer, `/tags/1`) as the problems name it (`$.tags[1]`), arrays told apart by the value. */
function jsonPath(pointer: string, root: unknown): string {
  let path = '$';
  let at: unknown = root;
  for (const escaped of pointer.split('/').slice(1)) {
    const key = escaped.replaceAll('~1', '/').replaceAll('~0', '~');
    path += Array.isArray(at) ? `[${key}]` : `.${key}`;
    at = typeof at === 'object' && at !== null && Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

/** Every way `value` breaks `schema`, as `path: problem` lines; empty when it conforms. Pure. */
export function validate(schema: TSchema, value: unknown): string[] {
  const errors = [...Value.Errors(schema, value)];
  // A missing property is `required`, not also "expected integer, got undefined".
  const missing = new Set(errors.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map((e) => e.path));
  return errors
    .filter((e) => e.type === ValueErrorType.ObjectRequiredProperty || !missing.has(e.path))
    .map((e) => `${jsonPath(e.path, value)}: ${problem(e)}`);
}

const WHOLE_NUMBER = /^-?(?:0|[1-9]\d*)$/;

/**
 * A handler's result with whole numbers that came as strings made numbers where the schema says
 * integer or number: node-postgres hands `bigint` (`count(*)`) and `numeric` over as strings, and
 * the conversion loses nothing within ±(2^53 − 1). Everything else is left for validation. Pure.
 */
export function withNumbers(schema: TSchema, value: unknown): unknown {
  switch (schema[Kind]) {
    case 'Integer': case 'Number':
      return typeof value === 'string' && WHOLE_NUMBER.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
    case 'Array':
      return Array.isArray(value) ? value.map((item) => withNumbers(schema.items as TSchema, item)) : value;
    case 'Object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const properties = schema.properties as Record<string, TSchema>;
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, Object.hasOwn(properties, key) ? withNumbers(properties[key]!, item) : item]));
    }
    case 'Union': {
      // t.nullable: one schema, or null.
      const inner = (schema.anyOf as TSchema[]).find((member) => member[Kind] !== 'Null');
      return value === null || inner === undefined ? value : withNumbers(inner, value);
    }
    default:
      return value;
  }
}

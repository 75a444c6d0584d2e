/**
 * Input and output schemas of custom routes: a small JSON Schema subset built by functions
 * whose TypeScript type is the value they accept (`Infer<typeof s>`), so one declaration
 * types the handler, validates the request and describes the route in OpenAPI. (No schema
 * library is a dependency; this covers JSON bodies, which is all a route takes.)
 */

export interface JsonSchema {
  readonly type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | readonly [string, 'null'];
  readonly enum?: readonly (string | null)[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: false;
  readonly items?: JsonSchema;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly description?: string;
}

/** A schema whose accepted values have type `T`. */
export interface Schema<T> {
  readonly json: JsonSchema;
  readonly optional: boolean;
  /** Type-level only: never set. */
  readonly __type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

type Shape = Readonly<Record<string, Schema<unknown>>>;
type OptionalKeys<P extends Shape> = { [K in keyof P]: P[K] extends { readonly optional: true } ? K : never }[keyof P];
type ObjectOf<P extends Shape> = { -readonly [K in Exclude<keyof P, OptionalKeys<P>>]: Infer<P[K]> } & { -readonly [K in OptionalKeys<P>]?: Infer<P[K]> };
type Flat<T> = { [K in keyof T]: T[K] };

function schema<T>(json: JsonSchema): Schema<T> {
  return { json, optional: false };
}

type Doc = { readonly description?: string };

export const t = {
  string: (o: Doc & Pick<JsonSchema, 'minLength' | 'maxLength' | 'pattern'> = {}): Schema<string> => schema({ type: 'string', ...o }),
  integer: (o: Doc & Pick<JsonSchema, 'minimum' | 'maximum'> = {}): Schema<number> => schema({ type: 'integer', ...o }),
  number: (o: Doc & Pick<JsonSchema, 'minimum' | 'maximum'> = {}): Schema<number> => schema({ type: 'number', ...o }),
  boolean: (o: Doc = {}): Schema<boolean> => schema({ type: 'boolean', ...o }),
  enum: <const V extends readonly string[]>(values: V, o: Doc = {}): Schema<V[number]> => schema({ type: 'string', enum: values, ...o }),
  array: <T>(items: Schema<T>, o: Doc = {}): Schema<T[]> => schema({ type: 'array', items: items.json, ...o }),
  object: <P extends Shape>(properties: P, o: Doc = {}): Schema<Flat<ObjectOf<P>>> => {
    const json: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, property] of Object.entries(properties)) {
      json[name] = property.json;
      if (!property.optional) required.push(name);
    }
    return schema({ type: 'object', properties: json, required, additionalProperties: false, ...o });
  },
  nullable: <T>(inner: Schema<T>): Schema<T | null> => {
    const type = inner.json.type;
    if (typeof type !== 'string') throw new TypeError('t.nullable takes a schema of one type');
    return schema({ ...inner.json, type: [type, 'null'], ...(inner.json.enum ? { enum: [...inner.json.enum, null] } : {}) });
  },
  optional: <T>(inner: Schema<T>): Schema<T> & { readonly optional: true } => ({ ...inner, optional: true }),
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

/** Every way `value` breaks `json`, as `path: problem` lines; empty when it conforms. Pure. */
export function validate(json: JsonSchema, value: unknown, path = '$'): string[] {
  const actual = typeOf(value);
  const types = json.type === undefined ? [] : typeof json.type === 'string' ? [json.type] : json.type;
  if (types.length > 0 && !types.some((type) => matchesType(type, actual))) return [`${path}: expected ${types.join(' or ')}, got ${actual}`];
  if (value === null) return [];
  if (json.enum && !json.enum.includes(value as string)) return [`${path}: expected one of ${json.enum.map((v) => JSON.stringify(v)).join(', ')}`];
  const problems: string[] = [];
  if (typeof value === 'string') {
    if (json.minLength !== undefined && value.length < json.minLength) problems.push(`${path}: shorter than ${json.minLength}`);
    if (json.maxLength !== undefined && value.length > json.maxLength) problems.push(`${path}: longer than ${json.maxLength}`);
    if (json.pattern !== undefined && !new RegExp(json.pattern, 'u').test(value)) problems.push(`${path}: does not match ${json.pattern}`);
  }
  if (typeof value === 'number') {
    if (json.minimum !== undefined && value < json.minimum) problems.push(`${path}: less than ${json.minimum}`);
    if (json.maximum !== undefined && value > json.maximum) problems.push(`${path}: more than ${json.maximum}`);
  }
  if (Array.isArray(value) && json.items) value.forEach((item, i) => problems.push(...validate(json.items!, item, `${path}[${i}]`)));
  if (actual === 'object' && json.properties) {
    const record = value as Record<string, unknown>;
    for (const name of json.required ?? []) if (!(name in record)) problems.push(`${path}.${name}: required`);
    for (const [name, item] of Object.entries(record)) {
      const property = json.properties[name];
      if (property) problems.push(...validate(property, item, `${path}.${name}`));
      else if (json.additionalProperties === false) problems.push(`${path}.${name}: unknown property`);
    }
  }
  return problems;
}

import { Kind, type TSchema } from '@sinclair/typebox';

/**
 * The input of a GET custom route, read from its query string (a GET has no body): one parameter
 * per property of the input object, converted to the property's type (`?limit=5` is the integer
 * 5, `?done=true` the boolean), an array property from its repeated parameter
 * (`?tag=a&tag=b`). Values that do not convert are left as strings, so validation names them.
 */

const SCALARS: Readonly<Record<string, string>> = { String: 'string', StringEnum: 'string', Integer: 'integer', Number: 'number', Boolean: 'boolean' };
const NUMERIC = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The scalar a property holds (`t.nullable` of one too), and whether it may be null; null when not a scalar. */
function scalarOf(schema: TSchema): { readonly type: string; readonly nullable: boolean } | null {
  const type = SCALARS[String(schema[Kind])];
  if (type !== undefined) return { type, nullable: false };
  if (schema[Kind] !== 'Union') return null;
  const members = schema.anyOf as TSchema[];
  const inner = members.filter((member) => member[Kind] !== 'Null');
  const scalar = inner.length === 1 && members.length === 2 ? scalarOf(inner[0]!) : null;
  return scalar && { type: scalar.type, nullable: true };
}

function arrayItems(schema: TSchema): TSchema | null {
  return schema[Kind] === 'Array' ? (schema.items as TSchema) : null;
}

function properties(schema: TSchema): Readonly<Record<string, TSchema>> {
  return schema[Kind] === 'Object' ? (schema.properties as Record<string, TSchema>) : {};
}

/** Why `schema` cannot be the input of a GET route, or null: an object of scalars and arrays of scalars. Pure. */
export function queryInputProblem(schema: TSchema): string | null {
  if (schema[Kind] !== 'Object') return 'its input must be t.object({ ... }): a GET takes its input from the query string';
  for (const [name, property] of Object.entries(properties(schema))) {
    const items = arrayItems(property);
    const scalarArray = items !== null && scalarOf(items)?.nullable === false;
    if (scalarOf(property) === null && !scalarArray) return `its input property "${name}" must be a string, number, integer, boolean, enum, or an array of one of those`;
  }
  return null;
}

function convert(raw: string, schema: TSchema): unknown {
  const scalar = scalarOf(schema);
  if (scalar?.nullable && raw === 'null') return null;
  if ((scalar?.type === 'integer' || scalar?.type === 'number') && NUMERIC.test(raw)) return Number(raw);
  if (scalar?.type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/**
 * The input object of a GET route (its schema passed queryInputProblem) from the query's parameters,
 * `ignored` left out (the API key); parameters the schema does not name stay strings, for validation
 * to refuse. Problems: a scalar given more than once. Pure.
 */
export function queryInput(schema: TSchema, params: URLSearchParams, ignored: readonly string[] = []): { readonly value: Record<string, unknown>; readonly problems: string[] } {
  const value: Record<string, unknown> = {};
  const problems: string[] = [];
  const known = properties(schema);
  for (const name of new Set(params.keys())) {
    if (ignored.includes(name)) continue;
    // Not a key an object can hold as its own: an unknown property, whatever the schema.
    if (name === '__proto__') {
      problems.push(`$.${name}: unknown property`);
      continue;
    }
    const raws = params.getAll(name);
    const property = Object.hasOwn(known, name) ? known[name] : undefined;
    const items = property ? arrayItems(property) : null;
    if (items !== null) {
      value[name] = raws.map((raw) => convert(raw, items));
    } else if (raws.length > 1) {
      problems.push(`$.${name}: given more than once`);
    } else {
      value[name] = property ? convert(raws[0]!, property) : raws[0];
    }
  }
  return { value, problems };
}

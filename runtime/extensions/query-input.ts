import type { JsonSchema } from './schema.js';

/**
 * The input of a GET custom route, read from its query string (a GET has no body): one parameter
 * per property of the input object, converted to the property's type (`?limit=5` is the integer
 * 5, `?done=true` the boolean), an array property from its repeated parameter
 * (`?tag=a&tag=b`). Values that do not convert are left as strings, so validation names them.
 */

const SCALARS: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean']);
const NUMERIC = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function typesOf(json: JsonSchema): readonly string[] {
  return json.type === undefined ? [] : typeof json.type === 'string' ? [json.type] : json.type;
}

function isScalar(json: JsonSchema): boolean {
  const types = typesOf(json).filter((type) => type !== 'null');
  return types.length === 1 && SCALARS.has(types[0]!);
}

/** Why `json` cannot be the input of a GET route, or null: an object of scalars and arrays of scalars. Pure. */
export function queryInputProblem(json: JsonSchema): string | null {
  if (json.type !== 'object' || json.properties === undefined) return 'its input must be t.object({ ... }): a GET takes its input from the query string';
  for (const [name, property] of Object.entries(json.properties)) {
    const scalarArray = property.type === 'array' && property.items !== undefined && isScalar(property.items) && !typesOf(property.items).includes('null');
    if (!isScalar(property) && !scalarArray) return `its input property "${name}" must be a string, number, integer, boolean, enum, or an array of one of those`;
  }
  return null;
}

function convert(raw: string, json: JsonSchema): unknown {
  const types = typesOf(json);
  if (types.includes('null') && raw === 'null') return null;
  if ((types.includes('integer') || types.includes('number')) && NUMERIC.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/**
 * The input object of a GET route (its schema passed queryInputProblem) from the query's parameters,
 * `ignored` left out (the API key); parameters the schema does not name stay strings, for validation
 * to refuse. Problems: a scalar given more than once. Pure.
 */
export function queryInput(json: JsonSchema, params: URLSearchParams, ignored: readonly string[] = []): { readonly value: Record<string, unknown>; readonly problems: string[] } {
  const value: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const name of new Set(params.keys())) {
    if (ignored.includes(name)) continue;
    // Not a key an object can hold as its own: an unknown property, whatever the schema.
    if (name === '__proto__') {
      problems.push(`$.${name}: unknown property`);
      continue;
    }
    const raws = params.getAll(name);
    const property = json.properties !== undefined && Object.hasOwn(json.properties, name) ? json.properties[name] : undefined;
    if (property?.type === 'array') {
      value[name] = raws.map((raw) => convert(raw, property.items ?? {}));
    } else if (raws.length > 1) {
      problems.push(`$.${name}: given more than once`);
    } else {
      value[name] = property ? convert(raws[0]!, property) : raws[0];
    }
  }
  return { value, problems };
}

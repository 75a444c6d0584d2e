import { inputArgs, resultColumns } from '../../model/project-meta.js';
import { resolveDomain } from '../../model/domains.js';
import { functionMediaHandlers, mediaHandlerContent } from '../../model/media-handlers.js';
import type { FunctionArgModel, FunctionModel, SchemaModel, TypeRef } from '../../model/types.js';
import type { FunctionModule } from '../context.js';
import { nullable, schemaRef, typeSchema, type JsonSchema } from './json-schema.js';
import { API_ROLES, rolesSentence, type ApiRole } from './roles.js';
import { CONTENT_RANGE, errorRefs, parameterRef } from './shared.js';

/** Component key of the Row schema of an exposed relation, when there is one. */
export type RowKeyOf = (schema: string, name: string) => string | null;

interface Result {
  /** null: the function returns void. */
  readonly schema: JsonSchema | null;
  /** Table-like results take select, filters, order, limit and counts. */
  readonly rows: boolean;
}

function isJson(type: TypeRef): boolean {
  const resolved = resolveDomain(type);
  return resolved.name === 'json' || resolved.name === 'jsonb';
}

/** One overload's result as the data API sends it (a row type as an object, SETOF as an array). */
function overloadResult(model: SchemaModel, fn: FunctionModel, rowKey: RowKeyOf): Result {
  const columns = resultColumns(fn);
  let item: JsonSchema;
  let composite = columns.length > 0;
  if (composite) {
    item = {
      type: 'object',
      properties: Object.fromEntries(columns.map((c) => [c.name, nullable(typeSchema(c.type, model), true)])),
    };
  } else {
    const type = resolveDomain(fn.returnType);
    if (type.kind === 'pseudo' && type.name === 'void') return { schema: null, rows: false };
    // An anonymous record is answered as a value (an object, null without a row), not as rows to shape.
    composite = type.kind === 'composite';
    const key = type.kind === 'composite' ? rowKey(type.schema, type.name) : null;
    item = key === null ? typeSchema(fn.returnType, model) : schemaRef(key);
    if (!composite) item = nullable(item, true);
  }
  return { schema: fn.returnsSet ? { type: 'array', items: item } : item, rows: composite && fn.returnsSet };
}

/** A lone unnamed parameter (the only kind a callable function has): it takes the whole body. */
function singleUnnamed(fn: FunctionModel): FunctionArgModel | null {
  const args = inputArgs(fn);
  return args.length === 1 && args[0]?.name === '' ? args[0] : null;
}

function argumentsSchema(model: SchemaModel, fn: FunctionModel): JsonSchema {
  const args = inputArgs(fn);
  const unnamed = singleUnnamed(fn);
  if (unnamed !== null && isJson(unnamed.type)) return { description: 'The whole body is the single unnamed json argument.' };
  return {
    type: 'object',
    required: args.filter((arg) => !arg.hasDefault).map((arg) => arg.name),
    properties: Object.fromEntries(
      args.map((arg) => {
        const schema = typeSchema(arg.type, model);
        const value = arg.mode === 'variadic' && schema.type !== 'array' ? { type: 'array', items: schema } : schema;
        const notes = [
          ...(arg.name === '' ? ['The unnamed parameter: it receives the whole body as sent (PostgREST).'] : []),
          ...(arg.hasDefault ? ['Has a default.'] : []),
        ];
        return [arg.name, { ...nullable(value, true), 'x-pg-type': arg.type.sql, ...(notes.length > 0 ? { description: notes.join(' ') } : {}) }];
      }),
    ),
    additionalProperties: false,
  };
}

/** Raw bodies a single unnamed text, xml or bytea parameter takes, by media type. */
const RAW_BODIES: Readonly<Record<string, { readonly media: string; readonly schema: JsonSchema }>> = {
  text: { media: 'text/plain', schema: { type: 'string' } },
  xml: { media: 'text/xml', schema: { type: 'string' } },
  bytea: { media: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
};

function rawBodies(overloads: readonly FunctionModel[]): Record<string, { schema: JsonSchema }> {
  const content: Record<string, { schema: JsonSchema }> = {};
  for (const fn of overloads) {
    const unnamed = singleUnnamed(fn);
    const raw = unnamed !== null && unnamed.type.schema === 'pg_catalog' ? RAW_BODIES[unnamed.type.name] : undefined;
    if (raw) content[raw.media] = { schema: raw.schema };
  }
  return content;
}

function oneOrAny(schemas: readonly JsonSchema[]): JsonSchema {
  return schemas.length === 1 ? (schemas[0] as JsonSchema) : { anyOf: [...schemas] };
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/** Query keys the data API reads itself: a function argument of that name cannot be sent with GET. */
const RESERVED_QUERY_KEYS = new Set(['select', 'columns', 'on_conflict', 'order', 'limit', 'offset', 'and', 'or', 'count', 'apikey']);

/** GET takes arguments as query parameters; arrays and composites are written as PostgreSQL literals. */
function queryArguments(model: SchemaModel, overloads: readonly FunctionModel[]): JsonSchema[] {
  const seen = new Map<string, { schema: JsonSchema; required: boolean; count: number; pgType: string }>();
  for (const fn of overloads) {
    for (const arg of inputArgs(fn)) {
      if (arg.name === '' || RESERVED_QUERY_KEYS.has(arg.name) || seen.has(arg.name)) {
        const known = seen.get(arg.name);
        if (known) known.count++;
        continue;
      }
      const schema = typeSchema(arg.type, model);
      const scalar = typeof schema.type === 'string' && SCALAR_TYPES.has(schema.type) && arg.mode !== 'variadic';
      seen.set(arg.name, {
        schema: scalar ? schema : { type: 'string', description: 'A PostgreSQL literal, e.g. `{1,2}` for an array.' },
        required: !arg.hasDefault,
        count: 1,
        pgType: arg.type.sql,
      });
    }
  }
  return [...seen].map(([name, arg]) => ({
    name,
    in: 'query',
    required: arg.required && arg.count === overloads.length,
    description: `Argument \`${name}\` (${arg.pgType}).`,
    schema: arg.schema,
  }));
}

function executeRoles(overloads: readonly FunctionModel[]): ApiRole[] {
  return API_ROLES.filter((role) => overloads.some((fn) => fn.execute[role]));
}

function functionDescription(overloads: readonly FunctionModel[], roles: readonly ApiRole[], get: boolean): string {
  const first = overloads[0] as FunctionModel;
  const lines: string[] = [];
  const comments = [...new Set(overloads.map((fn) => fn.comment).filter((c): c is string => c !== null))];
  lines.push(...comments);
  lines.push(
    overloads.length === 1
      ? `\`${first.name}(${first.identityArguments})\`, ${first.volatility.toUpperCase()}, ${first.language}.`
      : `Overloads, chosen by the argument names sent: ${overloads.map((fn) => `\`${fn.name}(${fn.identityArguments})\``).join(', ')}.`,
  );
  lines.push(get
    ? 'Not volatile: callable with GET (arguments in the query) and POST (arguments in a JSON object).'
    : 'Volatile: called with POST (arguments in a JSON object); GET and HEAD run it in a read-only transaction, where a write fails (405 `25006`).');
  if (overloads.some((fn) => fn.securityDefiner)) lines.push('SECURITY DEFINER: runs with the rights of its owner, so row-level security is that of the owner.');
  lines.push(rolesSentence(roles));
  lines.push('Role and claims are set as for table requests, so `auth.uid()` and `auth.role()` resolve inside the function.');
  return lines.join('\n\n');
}

/**
 * The path item `/rest/v1/rpc/<fn>` for one function name (overloads together): POST,
 * and GET when no overload is volatile (as PostgREST's `Allow`: GET of a volatile one runs, read-only). Null when no role may execute any overload.
 */
export function functionPath(model: SchemaModel, module: FunctionModule, rowKey: RowKeyOf, tag: string, operationBase: string): JsonSchema | null {
  const { overloads } = module;
  const roles = executeRoles(overloads);
  if (roles.length === 0) return null;
  const results = overloads.map((fn) => overloadResult(model, fn, rowKey));
  const returns = results.filter((r): r is Result & { schema: JsonSchema } => r.schema !== null).map((r) => r.schema);
  const rows = results.some((r) => r.rows);
  const voidOnly = returns.length === 0;
  const headers = rows ? { 'Content-Range': CONTENT_RANGE } : undefined;
  const responses: Record<string, unknown> = {};
  if (!voidOnly) {
    const content = {
      'application/json': { schema: oneOrAny(returns) },
      ...mediaHandlerContent(overloads.flatMap((fn) => functionMediaHandlers(model, fn))),
    };
    responses['200'] = { description: rows ? 'The result rows.' : 'The result.', ...(headers ? { headers } : {}), content };
    if (rows) responses['206'] = { description: 'A partial range of the result rows.', headers, content };
  }
  if (returns.length < results.length) responses['204'] = { description: 'The function returns void.' };
  Object.assign(responses, errorRefs('rpc'));
  const shaping = rows ? ['select', 'order', 'limit', 'offset', 'count', 'or', 'and', 'Range'].map(parameterRef) : [];
  const get = overloads.every((fn) => fn.volatility !== 'volatile');
  const description = functionDescription(overloads, roles, get);
  const bodies = overloads.map((fn) => argumentsSchema(model, fn));
  const noArguments = overloads.some((fn) => inputArgs(fn).every((arg) => arg.hasDefault));
  const item: Record<string, unknown> = {
    post: {
      tags: [tag],
      operationId: `${operationBase}.post`,
      summary: `Call ${module.name}`,
      description,
      parameters: [...shaping, parameterRef('Prefer.read')],
      requestBody: { required: !noArguments, content: { 'application/json': { schema: oneOrAny(bodies) }, ...rawBodies(overloads) } },
      responses,
      'x-roles': roles,
    },
  };
  if (get) {
    item.get = {
      tags: [tag],
      operationId: `${operationBase}.get`,
      summary: `Call ${module.name}`,
      description,
      parameters: [...queryArguments(model, overloads), ...shaping],
      responses,
      'x-roles': roles,
    };
  }
  return item;
}

import type { JsonSchema } from './json-schema.js';
import { parameterRef } from './shared.js';

/**
 * A project may expose several schemas; as in PostgREST, a request picks one with
 * `Accept-Profile` (GET, HEAD) or `Content-Profile` (POST, PATCH, PUT, DELETE), and
 * without either uses the first (default) one. Each further schema has its own
 * document, in which every operation carries the header its method reads, required and
 * fixed to that schema: typed clients must send it and "Try it out" fills it in.
 */

export const ACCEPT_PROFILE = 'Accept-Profile';
export const CONTENT_PROFILE = 'Content-Profile';

/** Methods whose schema the data API takes from `Accept-Profile`. */
const READ_METHODS: ReadonlySet<string> = new Set(['get', 'head']);
const METHODS = ['get', 'head', 'post', 'patch', 'put', 'delete'] as const;

function profileHeader(name: string, methods: string, schema: string, defaultSchema: string): JsonSchema {
  return {
    name,
    in: 'header',
    required: true,
    description:
      `Selects the schema \`${schema}\` for ${methods}. Without it the data API uses the default schema \`${defaultSchema}\`; ` +
      'a schema that is not exposed is refused with 406 `PGRST106`.',
    // The default, not an example, is what Swagger UI puts into "Try it out".
    schema: { type: 'string', enum: [schema], default: schema },
  };
}

/** `#/components/parameters/Accept-Profile` and `.../Content-Profile` of the document of `schema`. */
export function profileParameters(schema: string, defaultSchema: string): [string, JsonSchema][] {
  return [
    [ACCEPT_PROFILE, profileHeader(ACCEPT_PROFILE, 'reads (GET, HEAD)', schema, defaultSchema)],
    [CONTENT_PROFILE, profileHeader(CONTENT_PROFILE, 'writes and calls by POST (POST, PATCH, PUT, DELETE)', schema, defaultSchema)],
  ];
}

/** The path item with the profile header its method reads first in every operation's parameters. */
export function withProfileHeaders(item: JsonSchema): JsonSchema {
  const result: Record<string, unknown> = { ...item };
  for (const method of METHODS) {
    const operation = item[method] as JsonSchema | undefined;
    if (operation === undefined) continue;
    const parameters = Array.isArray(operation.parameters) ? (operation.parameters as unknown[]) : [];
    const header = parameterRef(READ_METHODS.has(method) ? ACCEPT_PROFILE : CONTENT_PROFILE);
    result[method] = { ...operation, parameters: [header, ...parameters] };
  }
  return result;
}

/**
 * The parameters of `GET /openapi.json` in a project with several exposed schemas:
 * which schema's document to return, as `Accept-Profile` (as PostgREST) or as `?profile=`
 * (a URL per document, for links and the docs page).
 */
export function documentProfileParameters(schemas: readonly string[]): JsonSchema[] {
  const listed = schemas.map((schema) => `\`${schema}\``).join(', ');
  const rest = `without it the default schema \`${schemas[0] ?? ''}\`. Any other schema is refused with 406 \`PGRST106\`.`;
  const choice = { type: 'string', enum: [...schemas] };
  return [
    { name: ACCEPT_PROFILE, in: 'header', required: false, description: `The exposed schema whose document is returned: ${listed}; ${rest}`, schema: choice },
    { name: 'profile', in: 'query', required: false, description: `The same as \`Accept-Profile\`, which wins when both are given; ${rest}`, schema: choice },
  ];
}

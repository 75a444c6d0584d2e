import type { Extension } from './define.js';
import { Kind, type TSchema } from '@sinclair/typebox';

export const FUNCTIONS_TAG = 'Functions (extensions)';

const errorResponses = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '404': { $ref: '#/components/responses/NotFound' },
  '409': { $ref: '#/components/responses/Conflict' },
  '500': { $ref: '#/components/responses/ServerError' },
};

/** A GET route's input properties as query parameters (arrays repeated: `?tag=a&tag=b`). */
function queryParameters(input: TSchema): Record<string, unknown>[] {
  const required = new Set<string>(input.required ?? []);
  return Object.entries((input.properties ?? {}) as Record<string, TSchema>).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema,
    ...(schema[Kind] === 'Array' ? { style: 'form', explode: true } : {}),
  }));
}

/** The OpenAPI path items of an extension's custom routes, with their input and output schemas. Pure. */
export function functionPaths(extension: Extension): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const name of Object.keys(extension.routes).sort()) {
    const route = extension.routes[name]!;
    const get = route.method === 'GET';
    const operation = {
      operationId: `functions.${name}`,
      summary: route.summary ?? `Call ${name}`,
      description: get
        ? 'A custom route of the project\'s extension, its input in the query string: it runs in one read-only transaction as the caller\'s role '
          + '(row-level security applies). Parameters that do not match the input schema are answered 400 `PGRST102`, the problems in `details`.'
        : 'A custom route of the project\'s extension: it runs in one transaction as the caller\'s role (row-level security applies). '
          + 'A body that does not match the input schema is answered 400 `PGRST102`, the problems in `details`.',
      tags: [FUNCTIONS_TAG],
      ...(get
        ? { parameters: queryParameters(route.input) }
        : { requestBody: { required: true, content: { 'application/json': { schema: route.input } } } }),
      responses: { '200': { description: 'The result.', content: { 'application/json': { schema: route.output } } }, ...errorResponses },
    };
    paths[`/functions/v1/${name}`] = { [(route.method ?? 'POST').toLowerCase()]: operation };
  }
  return paths;
}

const FUNCTIONS_PREFIX = '/functions/v1/';

/**
 * A project's OpenAPI document with exactly these custom routes (`functionPaths`): routes it
 * documented before are replaced, so the generated document and the host's agree. Pure.
 */
export function withFunctionPaths(document: Readonly<Record<string, unknown>>, functions: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const paths = Object.entries((document.paths ?? {}) as Record<string, unknown>).filter(([path]) => !path.startsWith(FUNCTIONS_PREFIX));
  const tags = (Array.isArray(document.tags) ? (document.tags as { name?: unknown }[]) : []).filter((tag) => tag.name !== FUNCTIONS_TAG);
  const any = Object.keys(functions).length > 0;
  if (!any && paths.length === Object.keys(document.paths ?? {}).length) return document;
  return {
    ...document,
    paths: Object.fromEntries([...paths, ...Object.entries(functions)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    tags: any ? [...tags, { name: FUNCTIONS_TAG, description: 'Custom routes of the project\'s extension (`extensions/<ref>/index.ts`).' }] : tags,
  };
}

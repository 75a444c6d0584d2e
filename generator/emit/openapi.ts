import { withFunctionPaths } from '../../runtime/extensions/openapi.js';
import type { EmitContext } from './context.js';
import { schemaFileBase } from './names.js';
import { emitClientTypes } from './openapi/client-types.js';
import { buildOpenApiDocument, openApiText } from './openapi/document.js';

/**
 * `openapi.json`: the OpenAPI 3.1 document of the default schema (see
 * `openapi/document.ts`), and `api.d.ts`: openapi-typescript's types of exactly that
 * document. Each further exposed schema gets `openapi.<schema>.json` and
 * `api.<schema>.d.ts` (the schema's name folded and hashed when it is not plain
 * lower-case), and the default schema's document also has the custom routes of the
 * project's extension. JSON has no comments, so the generated-file header lives in
 * `x-generated-by`. Keys are sorted for stable diffs.
 */
export function emitOpenApiFiles(context: EmitContext, functionPaths: Readonly<Record<string, unknown>> = {}): [string, string][] {
  const [, ...others] = context.model.schemas;
  return [
    // The extension's custom routes are the project's, not a schema's: the default schema's document has them.
    ...documentFiles(context, '', { ...withFunctionPaths(buildOpenApiDocument(context), functionPaths) }),
    ...others.flatMap((schema) => documentFiles(context, `.${schemaFileBase(schema)}`, buildOpenApiDocument(context, schema))),
  ];
}

function documentFiles(context: EmitContext, infix: string, document: Record<string, unknown>): [string, string][] {
  const text = openApiText(document);
  const types = emitClientTypes(context.ref, JSON.parse(text) as Record<string, unknown>);
  return [
    [`openapi${infix}.json`, text],
    [`api${infix}.d.ts`, types],
  ];
}

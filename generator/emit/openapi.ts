import type { EmitContext } from './context.js';
import { emitClientTypes } from './openapi/client-types.js';
import { buildOpenApiDocument, openApiText } from './openapi/document.js';

/**
 * `openapi.json`: the project's OpenAPI 3.1 document (see `openapi/document.ts`). JSON
 * has no comments, so the generated-file header lives in `x-generated-by` and
 * `x-schema-fingerprint`. Keys are sorted for stable diffs.
 */
export function emitOpenApi(context: EmitContext): string {
  return openApiText(buildOpenApiDocument(context));
}

/** `api.d.ts`: openapi-typescript's types of exactly the document `openapi.json` holds. */
export function emitApiTypes(context: EmitContext): string {
  const document = JSON.parse(emitOpenApi(context)) as Record<string, unknown>;
  return emitClientTypes(context.ref, context.fingerprint, document);
}

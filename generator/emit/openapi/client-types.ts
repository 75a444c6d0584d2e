import { astToString, transformSchema, type GlobalContext, type OpenAPI3 } from 'openapi-typescript';
import { fileHeader } from '../../../runtime/generated-files.js';

/**
 * openapi-typescript's options, spelled out as `openapiTS()` fills them in. Only
 * `defaultNonNullable` differs from its default: a column default makes an Insert
 * property optional, it must not make it required.
 */
function transformContext(document: OpenAPI3): GlobalContext {
  return {
    additionalProperties: false,
    alphabetize: true,
    arrayLength: false,
    defaultNonNullable: false,
    discriminators: { objects: {}, refsHandled: [] },
    emptyObjectsUnknown: false,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    injectFooter: [],
    pathParamsAsTypes: false,
    postTransform: undefined,
    propertiesRequiredByDefault: false,
    rootTypes: false,
    rootTypesNoSchemaPrefix: false,
    rootTypesKeepCasing: false,
    // Read only by openapiTS()'s lint and bundle steps, which a generated document without external refs does not need.
    redoc: undefined as unknown as GlobalContext['redoc'],
    silent: true,
    transform: undefined,
    transformProperty: undefined,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: false,
    resolve<T>($ref: string): T | undefined {
      return resolvePointer(document, $ref) as T | undefined;
    },
  };
}

function resolvePointer(document: unknown, $ref: string): unknown {
  if (!$ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of $ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** The options `openapiTS()` must be given to produce the same text (see the unit test). */
export const OPENAPI_TS_OPTIONS = { alphabetize: true, defaultNonNullable: false, silent: true } as const;

/**
 * TypeScript's printer indents by four spaces; generated files use two (and must be a
 * fixed point of the formatter, which the unit tests check). Halving the indentation
 * keeps JSDoc's ` * ` alignment (4k+1 spaces become 2k+1).
 */
function reindent(text: string): string {
  return text.replace(/^ +/gm, (spaces) => ' '.repeat(2 * Math.floor(spaces.length / 4) + (spaces.length % 4)));
}

/** The body of `api.d.ts` as openapi-typescript prints it (without header and formatting). */
export function openApiTypes(document: Record<string, unknown>): string {
  const openapi = document as unknown as OpenAPI3;
  return astToString(transformSchema(openapi, transformContext(openapi)));
}

/**
 * `api.d.ts`: the types of every path, operation and component of `openapi.json`, for
 * `openapi-fetch` (`createClient<paths>()`) and any other openapi-typescript consumer.
 */
export function emitClientTypes(ref: string, document: Record<string, unknown>): string {
  return `${fileHeader(ref)}\n${reindent(openApiTypes(document))}`;
}

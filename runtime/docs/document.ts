import fs from 'node:fs/promises';
import path from 'node:path';
import { firstHeader, parseProfile, type RequestHeaders } from '../rest/parse/headers.js';

/** One generated OpenAPI document of a project. */
export interface OpenApiDocument {
  readonly ref: string;
  readonly document: Readonly<Record<string, unknown>>;
}

/** A project's generated OpenAPI documents, one per exposed schema, parsed once per project load. */
export interface OpenApiDocuments {
  readonly ref: string;
  /** The exposed schemas as the data API knows them, the default first. */
  readonly schemas: readonly string[];
  /** The default schema's document, `openapi.json`. */
  readonly main: OpenApiDocument;
  /** Documents of the further schemas, by schema (each names its schema in `x-schema`). */
  readonly others: ReadonlyMap<string, OpenApiDocument>;
}

async function readDocument(file: string, ref: string): Promise<OpenApiDocument | null> {
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return null;
  const document = JSON.parse(text) as unknown;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`generated/${ref}/${path.basename(file)} is not a JSON object`);
  }
  return { ref, document: document as Record<string, unknown> };
}

/** Documents of further schemas: `openapi.<schema>.json`; their file names are the generator's business, `x-schema` says which is which. */
const FURTHER_DOCUMENT = /^openapi\.[^/]+\.json$/;

/**
 * Reads `generated/<ref>/openapi.json` and, for each further exposed schema, its
 * `openapi.<schema>.json` (written next to `index.ts` by the generator); `schemas` are
 * the exposed schemas of the generated definition. Documents of schemas no longer
 * exposed are ignored. Null when the project has no generated document yet.
 */
export async function loadOpenApiDocuments(generatedDir: string, ref: string, schemas: readonly string[]): Promise<OpenApiDocuments | null> {
  const dir = path.join(generatedDir, ref);
  const main = await readDocument(path.join(dir, 'openapi.json'), ref);
  if (main === null) return null;
  const others = new Map<string, OpenApiDocument>();
  if (schemas.length > 1) {
    const names = (await fs.readdir(dir)).filter((name) => FURTHER_DOCUMENT.test(name)).sort();
    for (const name of names) {
      const other = await readDocument(path.join(dir, name), ref);
      const schema = other?.document['x-schema'];
      if (other !== null && typeof schema === 'string' && schemas.indexOf(schema) > 0) others.set(schema, other);
    }
  }
  return { ref, schemas, main, others };
}

/**
 * The document of the schema `Accept-Profile` names, or else the `profile` query
 * parameter (a URL per document, which the docs page and links need), read as the data
 * API reads the header: absent or empty means the default schema, a schema that is not
 * exposed is refused with 406 `PGRST106` in the data API's words. Null when that schema
 * has no generated document.
 */
export function documentFor(
  openapi: OpenApiDocuments,
  headers: RequestHeaders,
  query: unknown,
): { readonly schema: string | null; readonly document: OpenApiDocument | null } {
  if (openapi.schemas.length === 0) return { schema: null, document: openapi.main };
  const header = firstHeader(headers, 'accept-profile');
  const requested = header !== undefined && header.trim() !== '' ? header : typeof query === 'string' ? query : undefined;
  const schema = parseProfile({ 'accept-profile': requested }, 'GET', openapi.schemas);
  return { schema, document: schema === openapi.schemas[0] ? openapi.main : (openapi.others.get(schema) ?? null) };
}

/** The document as served: its one server is the project's URL on the host the client reached. */
export function servedDocument(openapi: OpenApiDocument, projectUrl: string): string {
  return JSON.stringify({ ...openapi.document, servers: [{ url: projectUrl, description: `Project ${openapi.ref}` }] });
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * `{origin}/v1/<ref>` for the request: PUBLIC_URL when the operator set it (behind a
 * proxy the request's own scheme and host are not what clients use), else the origin
 * the client reached (scheme and Host header, so "try it" calls go back to the same
 * host), else the default public URL when the Host header is missing or malformed.
 */
export function projectUrlFor(
  request: { readonly protocol: string; readonly host: string | undefined },
  publicUrl: { readonly url: string; readonly explicit: boolean },
  ref: string,
): string {
  const fromRequest = request.host !== undefined && HOST.test(request.host) ? `${request.protocol}://${request.host}` : null;
  const origin = publicUrl.explicit || fromRequest === null ? publicUrl.url : fromRequest;
  return `${origin.replace(/\/+$/, '')}/v1/${ref}`;
}

import fs from 'node:fs/promises';
import path from 'node:path';

/** A project's generated OpenAPI document, parsed once per project load. */
export interface OpenApiDocument {
  readonly ref: string;
  readonly document: Readonly<Record<string, unknown>>;
}

/**
 * Reads `generated/<ref>/openapi.json` (written next to `index.ts` by the generator).
 * Null when the project has no generated document yet.
 */
export async function loadOpenApiDocument(generatedDir: string, ref: string): Promise<OpenApiDocument | null> {
  const text = await fs.readFile(path.join(generatedDir, ref, 'openapi.json'), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return null;
  const document = JSON.parse(text) as unknown;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`generated/${ref}/openapi.json is not a JSON object`);
  }
  return { ref, document: document as Record<string, unknown> };
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

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import Handlebars from 'handlebars';
import type { ProjectContext } from '../platform/project-context.js';
import { ApiError, toApiError } from '../rest/errors.js';
import { writeError } from '../rest/respond.js';
import { requireDocsKey } from './api-key.js';
import { documentFor, projectUrlFor, servedDocument, type OpenApiDocuments } from './document.js';

const templatesDir = path.resolve(import.meta.dirname, '../../templates/docs');
const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

interface PageVariables {
  readonly title: string;
  readonly role: string;
  readonly assets: string;
  readonly configJson: string;
  /** Several schemas: Swagger UI's standalone preset, whose top bar selects the document. */
  readonly standalone: boolean;
}

/** One entry of the docs page's schema selector. */
interface SpecChoice {
  readonly name: string;
  readonly url: string;
}

const page = Handlebars.compile<PageVariables>(readFileSync(path.join(templatesDir, 'page.html.hbs'), 'utf8'));

/** The only files `/docs/assets/` serves: Swagger UI from node_modules and the page's own script and style. */
const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  'swagger-ui.css': { file: path.join(swaggerUiDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: path.join(swaggerUiDir, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { file: path.join(swaggerUiDir, 'swagger-ui-standalone-preset.js'), type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: path.join(swaggerUiDir, 'favicon-32x32.png'), type: 'image/png' },
  'gantry-docs.js': { file: path.join(templatesDir, 'gantry-docs.js'), type: 'text/javascript; charset=utf-8' },
  'gantry-docs.css': { file: path.join(templatesDir, 'gantry-docs.css'), type: 'text/css; charset=utf-8' },
};

const assetCache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let content = assetCache.get(name);
  if (content === undefined) {
    content = readFileSync((ASSETS[name] as { file: string }).file);
    assetCache.set(name, content);
  }
  return content;
}

/** Swagger UI needs inline styles and data: images; scripts and requests stay on this host. */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function fail(res: Response, error: unknown): void {
  writeError(res, toApiError(error), false);
}

function projectUrl(req: Request, ctx: ProjectContext): string {
  return projectUrlFor({ protocol: req.protocol, host: req.get('host') }, { url: ctx.config.publicUrl, explicit: ctx.config.publicUrlSet }, ctx.ref);
}

function keyOf(req: Request, ctx: ProjectContext): { key: string; role: string } {
  return requireDocsKey(req.query.apikey, req.get('apikey'), ctx.jwtSecret);
}

function missingDocument(ref: string): ApiError {
  return new ApiError(404, 'PGRST126', `No OpenAPI document has been generated for project "${ref}"`, null, `Run \`gantry gen ${ref}\`.`);
}

/**
 * The documents the page offers when the project exposes several schemas, default
 * first, each at its own URL (`?profile=`): Swagger UI resolves a document's references
 * against its URL, so one URL for all would mix the documents up.
 */
function specChoices(openapi: OpenApiDocuments, specUrl: string): SpecChoice[] | null {
  if (openapi.schemas.length < 2) return null;
  return openapi.schemas.map((schema, index) =>
    index === 0 ? { name: `${schema} (default)`, url: specUrl } : { name: schema, url: `${specUrl}&profile=${encodeURIComponent(schema)}` },
  );
}

/**
 * `/openapi.json` and `/docs` of one project (section 4.4 of the service document),
 * plus the static assets of the docs page. Both take the project's key as `?apikey=`.
 */
export function createDocsRouter(ctx: ProjectContext, openapi: OpenApiDocuments | null): Router {
  const router = express.Router();

  router.get('/openapi.json', (req, res) => {
    try {
      keyOf(req, ctx);
      if (openapi === null) throw missingDocument(ctx.ref);
      const { schema, document } = documentFor(openapi, req.headers, req.query.profile);
      if (document === null) throw missingDocument(ctx.ref);
      const body = servedDocument(document, projectUrl(req, ctx));
      // As the data API: the schema is named in the response when the project has several.
      if (schema !== null && openapi.schemas.length > 1) res.set('Content-Profile', schema);
      res.set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).status(200).send(body);
    } catch (error) {
      fail(res, error);
    }
  });

  router.get('/docs', (req, res) => {
    try {
      const { key, role } = keyOf(req, ctx);
      if (openapi === null) throw missingDocument(ctx.ref);
      const base = req.baseUrl;
      const specUrl = `${base}/openapi.json?apikey=${encodeURIComponent(key)}`;
      const specs = specChoices(openapi, specUrl);
      const config = { specUrl, apiKey: key, ...(specs ? { specs } : {}) };
      const html = page({
        title: `${ctx.ref} API reference`,
        role,
        assets: `${base}/docs/assets`,
        configJson: JSON.stringify(config).replace(/</g, '\\u003c'),
        standalone: specs !== null,
      });
      res
        .set({ 'Content-Security-Policy': PAGE_POLICY, 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' })
        .status(200)
        .type('html')
        .send(html);
    } catch (error) {
      fail(res, error);
    }
  });

  router.get('/docs/assets/:file', (req, res) => {
    const name = String(req.params.file);
    const known = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (known === undefined) {
      fail(res, new ApiError(404, 'PGRST125', `No docs asset named "${name}"`));
      return;
    }
    res.set({ 'Content-Type': known.type, 'Cache-Control': 'public, max-age=3600' }).status(200).send(asset(name));
  });

  return router;
}

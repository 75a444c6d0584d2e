import type { ApiRequest } from '../rest/parse/ast.js';
import { ApiError } from '../rest/errors.js';
import type { BodyShape } from '../rest/sql/statement.js';

/**
 * A project's extension that could not be loaded against the schema the host serves (a migration
 * applied with `--force`, DDL from psql): the project is served without it, and what would run its
 * hooks or routes is refused, so no request runs without the code its authors put in its way.
 */
export interface UnavailableExtension {
  /** The schema of the hooked tables. */
  readonly schema: string;
  /**
   * Tables the extension hooks, as its module declares them (or as the last version that loaded did);
   * null when neither is known: then every table of `schema` needs it.
   */
  readonly tables: ReadonlySet<string> | null;
}

/** 503: what the answer names is the extension, never the schema: its compiler's lines go to the server log. */
export function extensionUnavailableError(ref: string): ApiError {
  return new ApiError(
    503,
    'extension_not_loadable',
    `The extension of project "${ref}" cannot be loaded against the current schema`,
    'This request needs its hooks or routes; requests to other tables are served.',
    `Fix extensions/${ref}/ (the server log has each problem with file:line:col); the project recovers by itself once it loads.`,
  );
}

function needs(unavailable: UnavailableExtension, relation: string | null): boolean {
  if (relation === null || !relation.startsWith(`${unavailable.schema}.`)) return false;
  return unavailable.tables === null || unavailable.tables.has(relation.slice(unavailable.schema.length + 1));
}

function shapeNeeds(unavailable: UnavailableExtension, shape: BodyShape): boolean {
  return needs(unavailable, shape.relation) || shape.embeds.some((embed) => shapeNeeds(unavailable, embed));
}

/**
 * Whether a data API request would run hooks of the unavailable extension: hooks of the table it names,
 * or `afterRead` of any table whose rows its body shows (embeds, a function's rows).
 */
export function requestNeedsExtension(unavailable: UnavailableExtension, request: ApiRequest, shape: BodyShape | null): boolean {
  if (request.action !== 'call' && needs(unavailable, `${request.schema}.${request.target}`)) return true;
  return shape !== null && shapeNeeds(unavailable, shape);
}

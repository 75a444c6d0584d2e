/** The APIs a host serves, as metrics and log lines name them; `host` is the host's own (health, unknown paths). */
export type ApiName = 'rest' | 'auth' | 'docs' | 'functions' | 'calls' | 'host';

export interface RequestRoute {
  readonly api: ApiName;
  /** The ref named in the path (`/v1/<ref>/...`), or '' for the host's own paths. */
  readonly ref: string;
  /**
   * The route template as far as the path tells it, never the path itself (it can hold ids):
   * the data API's are complete; auth's, docs' and functions' end in `*` for the router to refine.
   */
  readonly route: string;
}

const PROJECT_PREFIX = '/v1/';

const HOST_ROUTES: ReadonlySet<string> = new Set(['/health', '/health/live']);

export const RPC_ROUTE = '/v1/:ref/rest/v1/rpc/:function';

/** The data API's template from the path below `/rest/v1`. */
export function restRoute(rest: string): string {
  if (rest === '' || rest === '/') return '/v1/:ref/rest/v1/';
  return rest.startsWith('/rpc/') ? RPC_ROUTE : '/v1/:ref/rest/v1/:relation';
}

/** Which API a host request is for, its ref and route template, from the path alone (pure; no query string). */
export function requestRoute(url: string): RequestRoute {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.startsWith(PROJECT_PREFIX)) return { api: 'host', ref: '', route: HOST_ROUTES.has(path) ? path : '*' };
  const slash = path.indexOf('/', PROJECT_PREFIX.length);
  const ref = path.slice(PROJECT_PREFIX.length, slash < 0 ? undefined : slash);
  const below = slash < 0 ? '' : path.slice(slash);
  if (below === '/rest/v1' || below.startsWith('/rest/v1/')) return { api: 'rest', ref, route: restRoute(below.slice('/rest/v1'.length)) };
  if (below === '/auth/v1' || below.startsWith('/auth/v1/')) return { api: 'auth', ref, route: '/v1/:ref/auth/v1/*' };
  if (below === '/functions/v1' || below.startsWith('/functions/v1/')) return { api: 'functions', ref, route: '/v1/:ref/functions/v1/*' };
  return { api: 'docs', ref, route: '/v1/:ref/*' };
}

/**
 * The template once the router has matched: express leaves the matched route's path (`/admin/users/:user_id`)
 * on the request, which replaces the `*` of the template; without one (a 404) the `*` stays.
 */
export function refinedRoute(route: string, matched: string | undefined): string {
  if (matched === undefined || !route.endsWith('/*')) return route;
  return route.slice(0, -2) + matched;
}

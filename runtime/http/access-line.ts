/** What an access line says of a request. */
export interface AccessFacts {
  readonly ref: string;
  readonly api: string;
  readonly method: string | undefined;
  /** The route template, never the path: a path can hold ids, a query string an apikey. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
  readonly requestId: string;
}

/** The one shape of access lines, on the project host and the call-analysis listener alike. */
export function accessLine(facts: AccessFacts): Record<string, unknown> {
  return {
    ref: facts.ref,
    api: facts.api,
    method: facts.method,
    route: facts.route,
    status: facts.status,
    duration_ms: Math.round(facts.seconds * 1e6) / 1e3,
    request_id: facts.requestId,
  };
}

/** The path of the express route that matched, when it is a plain template (express leaves it on the request). */
export function matchedRoutePath(req: object): string | undefined {
  const path = (req as { route?: { path?: unknown } }).route?.path;
  return typeof path === 'string' ? path : undefined;
}

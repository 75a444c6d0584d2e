import type { Logger } from 'pino';

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
function accessLine(facts: AccessFacts): Record<string, unknown> {
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

const unredacted = new WeakMap<Logger, Logger>();

/**
 * Writes a request's access line. It goes through a child without pino's redaction: its fields are
 * the typed facts above, none of them a secret, and the redaction's walk over the logger's 51 paths
 * cost about 45 µs a line, measured as the largest part of the 20-row read's CPU growth (docs/performance.md).
 * Every other line keeps the redaction as its second line of defence.
 */
export function logAccess(log: Logger, facts: AccessFacts, message: string): void {
  let plain = unredacted.get(log);
  if (plain === undefined) {
    plain = log.child({}, { redact: [] });
    unredacted.set(log, plain);
  }
  plain.info(accessLine(facts), message);
}

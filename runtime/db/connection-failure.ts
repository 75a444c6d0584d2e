/** SQLSTATEs of a server shutting down, crashing or starting up (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now). */
const SERVER_GOING_AWAY = new Set(['57P01', '57P02', '57P03']);

/** Socket errors of a database that cannot be reached. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What node-postgres throws, without a code, for a connection that broke or never came up, or a pool already ended. */
const BROKEN_CONNECTION = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Cannot use a pool after calling end on the pool)/;

/**
 * A project's connections were closed under a request that had already picked them: the host reloaded
 * or unloaded the project (a move's switch to the new cluster, a schema reload) meanwhile. The request
 * sent nothing, so it is answered as a connection failure and a retry reaches the new connections.
 */
export class ConnectionsClosedError extends Error {
  constructor() {
    super('the project\'s connections are closed');
    this.name = 'ConnectionsClosedError';
  }
}

/**
 * True when `error` says the database could not be reached or the connection was lost,
 * not that the statement failed: the request may succeed once PostgreSQL is back.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof ConnectionsClosedError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SERVER_GOING_AWAY.has(code) || UNREACHABLE.has(code) || code.startsWith('08')) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return false;
  }
  // Promise.any / pool aggregates (a dual-stack ECONNREFUSED) carry the causes.
  const causes = (error as { errors?: unknown }).errors;
  if (Array.isArray(causes) && causes.length > 0 && causes.every(isConnectionFailure)) return true;
  return typeof message === 'string' && BROKEN_CONNECTION.test(message);
}

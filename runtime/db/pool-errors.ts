import type pg from 'pg';

/**
 * A dropped connection (PostgreSQL restarting or killed, a network cut) must not crash
 * the process. node-postgres reports it as 'error' on the pool for an idle client, and on
 * the client itself for one checked out but between queries, where nobody listens (an
 * unhandled 'error' event). The query in flight still fails with it, and the pool
 * discards a client that is no longer queryable when it comes back.
 */
export function surviveDroppedConnections<T extends pg.Pool>(pool: T): T {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

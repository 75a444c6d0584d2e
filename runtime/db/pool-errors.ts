import pg from 'pg';

const { Client: PgClient } = pg;

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

/**
 * A client for one task (connect, a few queries, end) that survives a dropped connection
 * the same way: the query in flight fails with the error instead of the process crashing.
 */
export function taskClient(config: string | pg.ClientConfig): pg.Client {
  const client = new PgClient(config);
  client.on('error', () => undefined);
  return client;
}

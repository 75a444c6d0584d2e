import pg from 'pg';

/**
 * The most connections a server (told apart by its PGAPPNAME, `appName`) held to a database while it was
 * under load (data API, admin pool, schema watch), polled every 200 ms: the pools follow the load within
 * DB_MAX_CONNECTIONS.
 */
export function sampleConnections(superuserUrl: string, databaseName: string, appName: string): { stop: () => Promise<number> } {
  const client = new pg.Client(superuserUrl);
  let most = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'
           AND application_name = $2`,
        [databaseName, appName],
      );
      most = Math.max(most, rows[0]!.n);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await client.end();
  })();
  return { stop: async () => { running = false; await loop; return most; } };
}

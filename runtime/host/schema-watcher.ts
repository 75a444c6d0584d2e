import pg from 'pg';
import type { Logger } from 'pino';

export const SCHEMA_CHANNEL = 'gantry_schema';
/** How a schema watch's connection shows in pg_stat_activity. */
export const SCHEMA_WATCH_APPLICATION = 'gantry schema watch';

/**
 * gantry.schema_version (project migration 003), bumped by every DDL, with the identity of the database
 * (its cluster's system identifier where the role may read it, and its OID): one cheap query tells whether
 * the schema changed, and another database (a project deleted and created again under the same ref,
 * DATABASE_URL pointed at another cluster) never passes for the one checked before.
 */
export async function readSchemaVersion(client: pg.ClientBase): Promise<string> {
  const { rows } = await client.query<{ cluster: string | null; database: string; last_value: string; is_called: boolean }>(
    `SELECT CASE WHEN has_function_privilege('pg_control_system()', 'EXECUTE') THEN (SELECT system_identifier::text FROM pg_control_system()) END AS cluster,
            d.oid::text AS database, v.last_value, v.is_called
       FROM gantry.schema_version v, pg_database d WHERE d.datname = current_database()`,
  );
  const row = rows[0]!;
  return `${row.cluster ?? ''}:${row.database}:${row.last_value}/${row.is_called}`;
}

/** DDL usually comes in bursts (a migration is many statements); wait for the burst to end. */
const DEBOUNCE_MS = 100;

/**
 * Listens on each served project's database for the DDL event trigger's NOTIFY (as
 * PostgREST reloads its schema cache) and reports the ref, debounced, so a schema
 * changed by `gantry migrate` or by hand in psql is regenerated and served.
 */
export class SchemaWatcher {
  private readonly clients = new Map<string, pg.Client>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly onChange: (ref: string) => void,
    private readonly log: Logger,
    /** The connection class for a project's watch (one that counts against the host's connection budget). */
    private readonly clientClass: (ref: string) => typeof pg.Client = () => pg.Client,
  ) {}

  /**
   * Listens for `ref`'s schema changes; `knownVersion` is the schema version its code was checked
   * against, so a change made before the LISTEN took effect is reported too.
   */
  async watch(ref: string, databaseUrl: string, knownVersion: string): Promise<void> {
    // A load that finishes while the host closes must not open a watch nobody ends (it would keep the process alive).
    if (this.closed || this.clients.has(ref)) return;
    const Client = this.clientClass(ref);
    const client = new Client({ connectionString: databaseUrl, application_name: SCHEMA_WATCH_APPLICATION });
    this.clients.set(ref, client);
    client.on('notification', () => this.changed(ref));
    client.on('error', (error) => {
      this.log.warn({ ref, err: error }, 'schema listener lost');
      if (this.clients.get(ref) === client) this.clients.delete(ref);
    });
    try {
      await client.connect();
      if (this.closed) throw new Error('schema watcher is closed');
      await client.query(`LISTEN ${SCHEMA_CHANNEL}`);
      if ((await readSchemaVersion(client)) !== knownVersion) this.changed(ref);
    } catch (error) {
      this.clients.delete(ref);
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  async unwatch(ref: string): Promise<void> {
    clearTimeout(this.timers.get(ref));
    this.timers.delete(ref);
    const client = this.clients.get(ref);
    this.clients.delete(ref);
    await client?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.clients.keys()].map((ref) => this.unwatch(ref)));
  }

  private changed(ref: string): void {
    clearTimeout(this.timers.get(ref));
    this.timers.set(
      ref,
      setTimeout(() => {
        this.timers.delete(ref);
        this.onChange(ref);
      }, DEBOUNCE_MS),
    );
  }
}

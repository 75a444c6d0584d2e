import pg from 'pg';

export interface ProjectPoolPair {
  readonly api: pg.Pool;
  readonly admin: pg.Pool;
}

export interface PoolUrls {
  readonly api: string;
  readonly admin: string;
}

/** Idle connections are closed after this; an unused project holds no connection. */
const IDLE_CONNECTION_MS = 30_000;

/**
 * One pair of pools per project database, created on first use: `api` connects as
 * authenticator (the data API's, small: about two connections per core), `admin` as
 * the superuser (the auth schema's).
 */
export class ProjectPools {
  private readonly entries = new Map<string, ProjectPoolPair>();

  constructor(private readonly apiPoolSize: number) {}

  get(ref: string, urls: PoolUrls): ProjectPoolPair {
    let entry = this.entries.get(ref);
    if (!entry) {
      const api = new pg.Pool({ connectionString: urls.api, max: this.apiPoolSize, idleTimeoutMillis: IDLE_CONNECTION_MS });
      const admin = new pg.Pool({ connectionString: urls.admin, max: 4, idleTimeoutMillis: IDLE_CONNECTION_MS });
      // A dropped database or restarted cluster surfaces on the next query; an idle
      // client's error must not crash the host.
      api.on('error', () => undefined);
      admin.on('error', () => undefined);
      entry = { api, admin };
      this.entries.set(ref, entry);
    }
    return entry;
  }

  has(ref: string): boolean {
    return this.entries.has(ref);
  }

  async close(ref: string): Promise<void> {
    const entry = this.entries.get(ref);
    if (!entry) return;
    this.entries.delete(ref);
    await Promise.all([entry.api.end(), entry.admin.end()]);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((ref) => this.close(ref)));
  }
}

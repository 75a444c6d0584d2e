import os from 'node:os';
import pg from 'pg';
import { surviveDroppedConnections } from '../db/pool-errors.js';
import { RlsExecutor } from '../db/rls-transaction.js';

export interface ProjectConnections {
  readonly executor: RlsExecutor;
  readonly admin: pg.Pool;
}

export interface ConnectionUrls {
  /** The authenticator role on the project database. */
  readonly api: string;
  /** The superuser on the project database. */
  readonly admin: string;
}

/**
 * Bounds the transactions queued on one shared connection (see RlsExecutor's maxInFlight).
 * Measured with `npm run bench` at 50 connections: unbounded, the to-many embed's p99 was
 * 76–78 ms; at 12 it is 47–48 ms with the 20-row read and RPC unchanged (within noise) and
 * the embed's req/s about 5% lower; at 8 the light reads lose about 5% for no further gain.
 */
const MAX_IN_FLIGHT_PER_SHARED_CONNECTION = 12;

/** Idle connections of the admin pool close after this; an unused project holds few connections. */
const IDLE_CONNECTION_MS = 30_000;

/** How long an unloaded project's pools stay open for the requests still running on them. */
const RETIRE_GRACE_MS = 60_000;

async function closeConnections(entry: ProjectConnections): Promise<void> {
  await Promise.all([entry.executor.close(), entry.admin.end()]);
}

/**
 * The database connections of each project, created on first use: the data API's
 * executor (a few pipelined connections as authenticator, about one per core, plus a
 * small pool for transactions that must see their results before committing) and the
 * admin pool for the `auth` schema.
 */
export class ProjectPools {
  private readonly entries = new Map<string, ProjectConnections>();
  /** Pools of unloaded projects, closed after RETIRE_GRACE_MS. */
  private readonly retiring = new Map<NodeJS.Timeout, ProjectConnections>();

  constructor(
    /** False behind a transaction-mode pooler (DB_PREPARED_STATEMENTS): see RlsExecutor's preparedStatements. */
    private readonly preparedStatements = true,
    private readonly muxSize: number = Math.max(2, os.availableParallelism()),
  ) {}

  get(ref: string, urls: ConnectionUrls): ProjectConnections {
    let entry = this.entries.get(ref);
    if (!entry) {
      // A dropped database or restarted cluster surfaces on the next query, not as a crash.
      const admin = surviveDroppedConnections(new pg.Pool({ connectionString: urls.admin, max: 4, idleTimeoutMillis: IDLE_CONNECTION_MS }));
      entry = { executor: new RlsExecutor(urls.api, { shared: this.muxSize, pooled: 10, maxInFlight: MAX_IN_FLIGHT_PER_SHARED_CONNECTION, preparedStatements: this.preparedStatements }), admin };
      this.entries.set(ref, entry);
    }
    return entry;
  }

  async close(ref: string): Promise<void> {
    const entry = this.entries.get(ref);
    if (!entry) return;
    this.entries.delete(ref);
    await closeConnections(entry);
  }

  /**
   * Detaches a project's pools (its next load gets new ones) and closes them a little later, so a
   * request still running on them finishes first.
   */
  retire(ref: string): void {
    const entry = this.entries.get(ref);
    if (!entry) return;
    this.entries.delete(ref);
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      void closeConnections(entry);
    }, RETIRE_GRACE_MS);
    timer.unref();
    this.retiring.set(timer, entry);
  }

  async closeAll(): Promise<void> {
    const retiring = [...this.retiring];
    this.retiring.clear();
    for (const [timer] of retiring) clearTimeout(timer);
    await Promise.all([...[...this.entries.keys()].map((ref) => this.close(ref)), ...retiring.map(([, entry]) => closeConnections(entry))]);
  }
}

import os from 'node:os';
import { BoundedPool, type PoolGrowth } from '../db/bounded-pool.js';
import { budgetedClient } from '../db/budgeted-client.js';
import type { ConnectionBudget } from '../db/connection-budget.js';
import { surviveDroppedConnections } from '../db/pool-errors.js';
import { RlsExecutor } from '../db/rls-transaction.js';
import { PROJECT_WAIT_LIMITS } from './budget-limits.js';
import { projectPoolSizes, type ProjectPoolSizes } from './pool-sizes.js';

export interface ProjectConnections {
  readonly executor: RlsExecutor;
  readonly admin: BoundedPool;
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

/**
 * How often a pool that grew past its base size gives back what its busiest moment since the
 * last time did not need: long enough that steady load keeps its connections (reopening one
 * costs a backend start), short enough that a burst's connections return within seconds.
 */
const GROWN_SWEEP_MS = 5_000;

/** Idle connections of the admin pool close after this; an unused project holds few connections. */
const IDLE_CONNECTION_MS = 30_000;

/** How long an unloaded project's pools stay open at most for the requests still running on them. */
const RETIRE_GRACE_MS = 60_000;

/** How often a retired project's pools are checked for the last request to have finished. */
const RETIRE_CHECK_MS = 250;

async function closeConnections(entry: ProjectConnections): Promise<void> {
  await Promise.all([entry.executor.close(), entry.admin.end()]);
}

function isIdle(entry: ProjectConnections): boolean {
  return entry.executor.idle && entry.admin.idleCount === entry.admin.totalCount && entry.admin.queued === 0;
}

/**
 * The database connections of each project, created on first use: the data API's
 * executor (a few pipelined connections as authenticator plus a small pool for
 * transactions that must see their results before committing) and the admin pool for
 * the `auth` schema. Every connection holds a permit of the host's connection budget;
 * the pools are sized so that one project never waits for its own share, and its pooled and admin
 * connections grow past that while requests queue for them and the budget has room. Requests waiting
 * for one of a project's connections queue within PROJECT_WAIT_LIMITS, and a connection
 * falling idle while other projects wait for the budget is closed rather than kept.
 */
export class ProjectPools {
  private readonly entries = new Map<string, ProjectConnections>();
  /** Pools of unloaded projects, closed once their last request finished. */
  private readonly retiring = new Map<NodeJS.Timeout, ProjectConnections>();
  private readonly sizes: ProjectPoolSizes;

  constructor(
    readonly budget: ConnectionBudget,
    /** False behind a transaction-mode pooler (DB_PREPARED_STATEMENTS): see RlsExecutor's preparedStatements. */
    private readonly preparedStatements = true,
    muxSize: number = Math.max(2, os.availableParallelism()),
  ) {
    this.sizes = projectPoolSizes(budget.limits.perOwner, muxSize);
  }

  get(ref: string, urls: ConnectionUrls): ProjectConnections {
    let entry = this.entries.get(ref);
    if (!entry) {
      const Client = budgetedClient(this.budget, ref);
      const yieldWhen = () => this.budget.contended(ref);
      // Grown connections hold budget permits past the project's share: the budget grants them only while
      // nobody else waits and it keeps headroom, and takes them back through yieldWhen.
      const growth: PoolGrowth = { ceiling: this.budget.limits.max, budgetRoom: () => this.budget.mayGrow(ref), sweepMs: GROWN_SWEEP_MS };
      // A dropped database or restarted cluster surfaces on the next query, not as a crash.
      const admin = surviveDroppedConnections(
        new BoundedPool({ connectionString: urls.admin, max: this.sizes.admin, idleTimeoutMillis: IDLE_CONNECTION_MS, Client }, { wait: PROJECT_WAIT_LIMITS, yieldWhen, growth }),
      );
      const executor = new RlsExecutor(urls.api, {
        shared: this.sizes.shared,
        pooled: this.sizes.pooled,
        maxInFlight: MAX_IN_FLIGHT_PER_SHARED_CONNECTION,
        preparedStatements: this.preparedStatements,
        Client,
        wait: PROJECT_WAIT_LIMITS,
        yieldWhen,
        growth,
      });
      entry = { executor, admin };
      this.entries.set(ref, entry);
    }
    return entry;
  }

  /** Whether the project's connections carry nothing right now (true for a project without any). */
  isIdle(ref: string): boolean {
    const entry = this.entries.get(ref);
    return !entry || isIdle(entry);
  }

  /** Closes the connections of every project that carry nothing right now (the budget is short of them). */
  shedIdle(): void {
    for (const { executor, admin } of this.entries.values()) {
      executor.shedIdle();
      admin.shedIdle();
    }
  }

  async close(ref: string): Promise<void> {
    const entry = this.entries.get(ref);
    if (!entry) return;
    this.entries.delete(ref);
    await closeConnections(entry);
  }

  /**
   * Detaches a project's pools (its next load gets new ones) and closes them once the requests
   * still running on them have finished, at the latest after RETIRE_GRACE_MS.
   */
  retire(ref: string): void {
    const entry = this.entries.get(ref);
    if (!entry) return;
    this.entries.delete(ref);
    const until = Date.now() + RETIRE_GRACE_MS;
    const timer: NodeJS.Timeout = setInterval(() => {
      if (!isIdle(entry) && Date.now() < until) return;
      clearInterval(timer);
      this.retiring.delete(timer);
      void closeConnections(entry);
    }, RETIRE_CHECK_MS);
    timer.unref();
    this.retiring.set(timer, entry);
  }

  async closeAll(): Promise<void> {
    const retiring = [...this.retiring];
    this.retiring.clear();
    for (const [timer] of retiring) clearInterval(timer);
    await Promise.all([...[...this.entries.keys()].map((ref) => this.close(ref)), ...retiring.map(([, entry]) => closeConnections(entry))]);
  }
}

import pg from 'pg';
import { checkoutGate, type ConnectionBudget, type Permit, type WaitLimits } from './connection-budget.js';
import { sizeAfterHandBack, sizeAfterSweep, sizeForCheckout, type PoolBounds } from './pool-growth.js';

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

export interface BoundedPoolOptions {
  /** How many checkouts may wait for one of the pool's connections, and for how long. */
  readonly wait: WaitLimits;
  /**
   * Asked as each connection is handed back: true closes it instead of keeping it idle (other
   * projects wait for the host's connection budget and this one holds more than its turn).
   */
  readonly yieldWhen?: () => boolean;
  /** Given: the pool grows past `max` while checkouts queue, and shrinks back to it (see pool-growth.ts). */
  readonly growth?: PoolGrowth;
}

export interface PoolGrowth {
  /** Connections the pool may grow to. */
  readonly ceiling: number;
  /** Whether the host's connection budget has room for one more of this pool's connections now. */
  readonly budgetRoom: () => boolean;
  /** How often the pool gives back what the busiest moment since the last time did not need (0: only when `sweep` is called). */
  readonly sweepMs: number;
}

const OWNER = 'checkout';

/**
 * A pg.Pool whose checkouts wait in a bounded queue: past `wait` a checkout fails with
 * ConnectionBudgetError (503 + Retry-After), as a wait for the host's budget does. pg.Pool's
 * own queue has no bound on its length, and its connectionTimeoutMillis would also cut short a
 * new connection still waiting for a budget permit (which is bounded on its own). With at most
 * `max` checkouts admitted, pg.Pool never queues; `pool.query` checks out through `connect`, so
 * it is bounded too.
 */
export class BoundedPool extends pg.Pool {
  private readonly gate: ConnectionBudget;
  private readonly permits = new WeakMap<object, Permit>();
  private readonly growth: PoolGrowth | undefined;
  private readonly bounds: PoolBounds;
  /** The most checkouts held at once since the last sweep. */
  private peakBusy = 0;
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(config: pg.PoolConfig, options: BoundedPoolOptions) {
    super(config);
    const base = config.max ?? 10;
    this.gate = checkoutGate(base, options.wait);
    const { yieldWhen, growth } = options;
    this.growth = growth;
    this.bounds = { base, ceiling: Math.max(base, growth?.ceiling ?? base) };
    // 'release' comes for every hand-back (also of a broken client), before the pool files it as idle or removes it.
    this.on('release', (error: Error | undefined, client: pg.PoolClient) => {
      // Shrunk first, so that the freed checkout permit goes to a waiter only within the new size.
      const yielding = !error && yieldWhen?.() === true;
      this.resize(sizeAfterHandBack(this.size, this.bounds, yielding));
      this.permits.get(client)?.release();
      this.permits.delete(client);
      if (!error && (yielding || this.totalCount > this.size)) void (client as unknown as pg.Client).end().catch(() => undefined);
    });
    if (growth && growth.sweepMs > 0) {
      this.sweeper = setInterval(() => this.sweep(), growth.sweepMs);
      this.sweeper.unref();
    }
  }

  /** Connections the pool may hold now: its base size, or more while it has grown. */
  get size(): number {
    return this.gate.capacity;
  }

  /**
   * Shrinks a grown pool to what its busiest moment since the last sweep needed and closes the
   * idle connections past that.
   */
  sweep(): void {
    const busy = this.gate.stats().inUse;
    this.resize(sizeAfterSweep(this.size, this.bounds, Math.max(this.peakBusy, busy)));
    this.peakBusy = busy;
    const extra = Math.min(this.idleCount, this.totalCount - this.size);
    for (let n = extra; n > 0; n--) super.connect().then((client) => client.release(true), () => undefined);
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | void {
    clearInterval(this.sweeper);
    return callback ? super.end(callback) : super.end();
  }

  /**
   * Closes the connections idle in the pool now: the host's budget is short of connections, and
   * an idle one kept here could be what another request (of this project or another) waits for.
   */
  shedIdle(): void {
    // Checkouts served with the idle connections, released as broken: they close. Not while
    // checkouts wait, which the idle connections are about to serve.
    if (this.waitingCount > 0) return;
    for (let n = this.idleCount; n > 0; n--) super.connect().then((client) => client.release(true), () => undefined);
  }

  /** Checkouts waiting for a connection. */
  get queued(): number {
    return this.gate.stats().waiting + this.waitingCount;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const checkedOut = this.checkout();
    if (!callback) return checkedOut;
    checkedOut.then(
      (client) => callback(undefined, client, (release?: unknown) => client.release(release as boolean | Error | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }

  private resize(size: number): void {
    if (size === this.size) return;
    // pg.Pool opens a connection for a checkout while it holds fewer than options.max.
    this.options.max = size;
    this.gate.resize(size);
  }

  private checkout(): Promise<pg.PoolClient> {
    if (this.growth) {
      const busy = this.gate.stats().inUse;
      this.resize(sizeForCheckout({ size: this.size, busy }, this.bounds, busy >= this.size && this.growth.budgetRoom()));
    }
    // Granted at once, the connection is asked for in this same tick, so its budget permit is
    // counted before the next checkout decides whether the pool may grow.
    const now = this.gate.tryAcquire(OWNER);
    return now ? this.connectWith(now) : this.gate.acquire(OWNER).then((permit) => this.connectWith(permit));
  }

  private async connectWith(permit: Permit): Promise<pg.PoolClient> {
    this.peakBusy = Math.max(this.peakBusy, this.gate.stats().inUse);
    try {
      const client = await super.connect();
      this.permits.set(client, permit);
      return client;
    } catch (error) {
      permit.release();
      throw error;
    }
  }
}

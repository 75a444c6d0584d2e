import pg from 'pg';
import { checkoutGate, type ConnectionBudget, type Permit, type WaitLimits } from './connection-budget.js';

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

export interface BoundedPoolOptions {
  /** How many checkouts may wait for one of the pool's connections, and for how long. */
  readonly wait: WaitLimits;
  /**
   * Asked as each connection is handed back: true closes it instead of keeping it idle (other
   * projects wait for the host's connection budget and this one holds more than its turn).
   */
  readonly yieldWhen?: () => boolean;
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

  constructor(config: pg.PoolConfig, options: BoundedPoolOptions) {
    super(config);
    this.gate = checkoutGate(config.max ?? 10, options.wait);
    const { yieldWhen } = options;
    // 'release' comes for every hand-back (also of a broken client), before the pool files it as idle or removes it.
    this.on('release', (error: Error | undefined, client: pg.PoolClient) => {
      this.permits.get(client)?.release();
      this.permits.delete(client);
      if (!error && yieldWhen?.()) void (client as unknown as pg.Client).end().catch(() => undefined);
    });
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

  private async checkout(): Promise<pg.PoolClient> {
    const permit = await this.gate.acquire(OWNER);
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

/**
 * The host's budget of PostgreSQL connections for projects (DB_MAX_CONNECTIONS): every
 * project connection holds a permit from it while open. Permits go round-robin between
 * the projects waiting for one, a project holds more than `perOwner` only while nobody else
 * waits and `headroom` permits stay free for others, and a wait is bounded in length and
 * time, so a busy project slows others down at most by its share and an overloaded host
 * answers "retry later" instead of queueing without end.
 */
export interface BudgetLimits {
  /** Permits in all (open connections). */
  readonly max: number;
  /** Permits one owner (project) may always have (its share of the budget). */
  readonly perOwner: number;
  /**
   * Given: an owner may hold more than `perOwner` while no other owner waits and this many
   * permits stay free (a project arriving then gets connections at once, and one waiting makes
   * the grown owner give back: see `contended`). Absent: never more than `perOwner`.
   */
  readonly headroom?: number;
  /** Acquisitions that may wait at once; the next one fails at once. */
  readonly maxWaiting: number;
  /** How long one acquisition may wait (Infinity: as long as it takes). */
  readonly maxWaitMs: number;
}

/** How many may wait for a group of connections (or transaction slots), and for how long. */
export interface WaitLimits {
  /** Acquisitions that may wait at once; the next one fails at once. */
  readonly maxWaiting: number;
  /** How long one acquisition may wait (Infinity: as long as it takes). */
  readonly maxWaitMs: number;
}

/** No bound: everything waits its turn, however long (the default where no host policy applies). */
export const UNBOUNDED_WAIT: WaitLimits = { maxWaiting: Infinity, maxWaitMs: Infinity };

export type BudgetFailure = 'queue_full' | 'timed_out';

/** No connection could be had in time: the client should retry (PostgREST's PGRST003). */
export class ConnectionBudgetError extends Error {
  readonly code = 'PGRST003';

  constructor(
    readonly reason: BudgetFailure,
    /** Seconds after which a retry has a fair chance. */
    readonly retryAfterSeconds: number,
  ) {
    super('Timed out acquiring connection from connection pool.');
    this.name = 'ConnectionBudgetError';
  }
}

/** One open connection's share of the budget; releasing twice releases once. */
export interface Permit {
  release(): void;
}

interface Waiter {
  readonly grant: (permit: Permit) => void;
  readonly fail: (error: ConnectionBudgetError) => void;
  readonly timer: NodeJS.Timeout | undefined;
}

/**
 * Asked to free connections when an acquisition has to wait: the host closes what the
 * least recently used idle projects hold (never `forOwner`'s own).
 */
export type Reclaim = (forOwner: string) => void;

export interface BudgetStats {
  readonly inUse: number;
  readonly waiting: number;
  readonly owners: number;
}

/**
 * Permits per project derived from the whole budget: a third of it, so that three busy
 * projects cannot take everything from the rest, and at least 4 (a schema watch, an admin
 * connection, a shared and a pooled data connection).
 */
export function perProjectShare(max: number): number {
  return Math.min(max, Math.max(4, Math.floor(max / 3)));
}

/** The smallest budget a host can serve a project with (see perProjectShare). */
export const MIN_BUDGET = 4;

export class ConnectionBudget {
  private inUse = 0;
  /** Permits in all: `limits.max`, or what `resize` set. */
  private max: number;
  private readonly held = new Map<string, number>();
  /** Waiting acquisitions per owner; the Map's order is the round-robin order. */
  private readonly queues = new Map<string, Waiter[]>();
  private waitingCount = 0;

  constructor(
    readonly limits: BudgetLimits,
    private readonly reclaim: Reclaim = () => undefined,
  ) {
    if (!(limits.max >= 1 && limits.perOwner >= 1 && limits.maxWaiting >= 0 && (limits.headroom ?? 0) >= 0)) throw new RangeError('invalid connection budget');
    this.max = limits.max;
  }

  /** Permits in all now. */
  get capacity(): number {
    return this.max;
  }

  /**
   * Changes the number of permits in all (a pool's checkout gate as the pool grows or shrinks).
   * Permits held past a smaller capacity stay valid; none is granted until the count is below it.
   */
  resize(max: number): void {
    if (!(max >= 1)) throw new RangeError('invalid connection budget');
    this.max = max;
    this.drain();
  }

  /**
   * Whether `owner` may open one more connection now without waiting and without taking what
   * another owner needs: nobody waits, and past its share the budget keeps its headroom.
   */
  mayGrow(owner: string): boolean {
    return this.waitingCount === 0 && this.grantable(owner);
  }

  /** A permit for `owner` now, or null when it would have to wait. */
  tryAcquire(owner: string): Permit | null {
    return this.mayGrow(owner) ? this.grant(owner) : null;
  }

  /** A permit for `owner`, at once when the budget and its share allow, else after waiting its turn. */
  acquire(owner: string): Promise<Permit> {
    const now = this.tryAcquire(owner);
    if (now) return Promise.resolve(now);
    if (this.waitingCount >= this.limits.maxWaiting) return Promise.reject(this.failure('queue_full'));
    const promise = new Promise<Permit>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        fail: reject,
        // setTimeout would take Infinity for 1 ms.
        timer: Number.isFinite(this.limits.maxWaitMs)
          ? setTimeout(() => {
              if (this.remove(owner, waiter)) reject(this.failure('timed_out'));
            }, this.limits.maxWaitMs)
          : undefined,
      };
      const queue = this.queues.get(owner);
      if (queue) queue.push(waiter);
      else this.queues.set(owner, [waiter]);
      this.waitingCount++;
    });
    this.drain();
    if (this.waitingCount > 0) this.reclaim(owner);
    return promise;
  }

  /**
   * Whether `owner` should give back a connection it is done with instead of keeping it
   * idle: another owner waits and `owner` holds more than an even split of the budget (with more
   * owners than permits, any: a project loading must not keep an idle connection that another's
   * load waits for, or loads could wait on one another until they time out).
   */
  contended(owner: string): boolean {
    if (this.waitingCount === 0) return false;
    const others = [...this.queues.keys()].some((o) => o !== owner);
    if (!others) return false;
    const active = new Set([...this.held.keys(), ...this.queues.keys()]).size;
    return (this.held.get(owner) ?? 0) > Math.floor(this.max / active);
  }

  /** The permits one owner (a project) holds now. */
  heldBy(owner: string): number {
    return this.held.get(owner) ?? 0;
  }

  stats(): BudgetStats {
    return { inUse: this.inUse, waiting: this.waitingCount, owners: this.held.size };
  }

  /** Fails every waiting acquisition (the host is closing). */
  close(): void {
    for (const [owner, queue] of [...this.queues]) {
      for (const waiter of [...queue]) if (this.remove(owner, waiter)) waiter.fail(this.failure('timed_out'));
    }
  }

  private grantable(owner: string): boolean {
    if (this.inUse >= this.max) return false;
    if ((this.held.get(owner) ?? 0) < this.limits.perOwner) return true;
    const { headroom } = this.limits;
    return headroom !== undefined && this.inUse < this.max - headroom && !this.othersWait(owner);
  }

  private othersWait(owner: string): boolean {
    return this.queues.size > 1 || (this.queues.size === 1 && !this.queues.has(owner));
  }

  private grant(owner: string): Permit {
    this.inUse++;
    this.held.set(owner, (this.held.get(owner) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inUse--;
        const left = (this.held.get(owner) ?? 1) - 1;
        if (left === 0) this.held.delete(owner);
        else this.held.set(owner, left);
        this.drain();
      },
    };
  }

  /** Hands free permits to waiting owners in turn, skipping those at their share. */
  private drain(): void {
    while (this.inUse < this.max && this.waitingCount > 0) {
      const owner = this.nextGrantable();
      if (owner === undefined) return;
      const queue = this.queues.get(owner)!;
      const waiter = queue.shift()!;
      this.queues.delete(owner);
      // Served: to the back of the round, if it still waits.
      if (queue.length > 0) this.queues.set(owner, queue);
      this.waitingCount--;
      clearTimeout(waiter.timer);
      waiter.grant(this.grant(owner));
    }
  }

  /** The first waiting owner in round-robin order that may have a permit now (no array per call: this runs on every release). */
  private nextGrantable(): string | undefined {
    for (const owner of this.queues.keys()) if (this.grantable(owner)) return owner;
    return undefined;
  }

  private remove(owner: string, waiter: Waiter): boolean {
    const queue = this.queues.get(owner);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return false;
    queue.splice(index, 1);
    if (queue.length === 0) this.queues.delete(owner);
    this.waitingCount--;
    clearTimeout(waiter.timer);
    return true;
  }

  private failure(reason: BudgetFailure): ConnectionBudgetError {
    return new ConnectionBudgetError(reason, Number.isFinite(this.limits.maxWaitMs) ? Math.max(1, Math.ceil(this.limits.maxWaitMs / 1000)) : 1);
  }
}

/**
 * A bounded queue in front of `capacity` connections or slots of one owner (one project's pool):
 * past its bound a request fails with the same ConnectionBudgetError as the host's budget.
 */
export function checkoutGate(capacity: number, wait: WaitLimits): ConnectionBudget {
  // One owner: `max` alone bounds it, also after a resize.
  return new ConnectionBudget({ max: capacity, perOwner: Infinity, maxWaiting: wait.maxWaiting, maxWaitMs: wait.maxWaitMs });
}

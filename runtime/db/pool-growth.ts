/**
 * When a project's pool opens more connections than its base size, and when it gives them back.
 * Decisions only, on counts the pool keeps (connections allowed, busy, checkouts waiting), so they
 * are tested without a database or a clock; BoundedPool applies them.
 */

/** A pool's size bounds: it never shrinks below `base` and never grows past `ceiling`. */
export interface PoolBounds {
  readonly base: number;
  readonly ceiling: number;
}

/** What a pool carries when a checkout arrives. */
export interface PoolLoad {
  /** Connections the pool may hold now. */
  readonly size: number;
  /** Checkouts holding one of them. */
  readonly busy: number;
}

/**
 * The size for a checkout that arrives at `load`: one more when every connection is busy (the
 * checkout would have to wait), the pool is below its ceiling and the host's budget has room
 * (`budgetRoom`: the budget keeps headroom for other projects and none of them waits).
 * Concurrent commits share WAL flushes, so more connections under a queue of writes is more
 * throughput, up to the database's pace.
 */
export function sizeForCheckout(load: PoolLoad, bounds: PoolBounds, budgetRoom: boolean): number {
  if (load.busy < load.size || load.size >= bounds.ceiling || !budgetRoom) return load.size;
  return load.size + 1;
}

/**
 * The size after a connection is handed back: one less when the pool is above its base and the
 * host asks it to yield (other projects wait for the budget), so it does not reopen what it
 * just gave back.
 */
export function sizeAfterHandBack(size: number, bounds: PoolBounds, yielding: boolean): number {
  return yielding && size > bounds.base ? size - 1 : size;
}

/**
 * The size at a periodic sweep: what the busiest moment since the last sweep needed, never below
 * the base. A pool that grew for a burst gives the connections back once the burst is over; one
 * under steady load keeps them (closing and reopening would cost a connection start each time).
 */
export function sizeAfterSweep(size: number, bounds: PoolBounds, peakBusy: number): number {
  return Math.max(bounds.base, Math.min(size, peakBusy));
}

/** How one project's share of the connection budget is split between its pools. */
export interface ProjectPoolSizes {
  /** Pipelined connections for reads. */
  readonly shared: number;
  /** Pooled connections for writes, counted reads and commit decisions. */
  readonly pooled: number;
  /** The admin pool (auth schema, migrations). */
  readonly admin: number;
}

/** Pooled data connections past this bring no more throughput (measured with `npm run bench`). */
const MAX_POOLED = 10;
const MAX_ADMIN = 4;

/**
 * Splits `share` permits (at least 4) so that the pools together with the schema watch's one
 * connection never need more than the share: a project then never waits for itself.
 */
export function projectPoolSizes(share: number, muxSize: number): ProjectPoolSizes {
  if (share < 4) throw new RangeError('a project needs a share of at least 4 connections');
  const forPools = share - 1;
  const admin = Math.min(MAX_ADMIN, Math.max(1, Math.floor(forPools / 4)));
  const shared = Math.min(muxSize, Math.max(1, Math.floor((forPools - admin) / 3)));
  const pooled = Math.min(MAX_POOLED, forPools - admin - shared);
  return { shared, pooled, admin };
}

import type { ConnectionBudget } from '../db/connection-budget.js';
import type { ConnectionUrls, ProjectConnections, ProjectPools } from './pools.js';

/**
 * The project pools of each cluster, each with its own connection budget (a cluster's
 * `max_connections` is its own): a cluster's pools and budget are made when a project of it
 * is first served, so a host opens connections to a cluster only while it serves one of its
 * projects. A project whose registry row names another cluster (it was moved) is served from
 * new pools; its old ones are retired, closed once the requests still on them finish.
 */
export class ClusterPools {
  private readonly byCluster = new Map<string, ProjectPools>();
  /** The cluster each project's pools are on now. */
  private readonly clusterOf = new Map<string, string>();

  constructor(
    private readonly make: (cluster: string) => ProjectPools,
    private readonly fallback: string,
  ) {
    // The main cluster's budget exists from the start (it opens nothing): its capacity is what the metrics report.
    this.of(fallback);
  }

  private of(cluster: string): ProjectPools {
    let pools = this.byCluster.get(cluster);
    if (!pools) {
      pools = this.make(cluster);
      this.byCluster.set(cluster, pools);
    }
    return pools;
  }

  private poolsOf(ref: string): ProjectPools | undefined {
    const cluster = this.clusterOf.get(ref);
    return cluster === undefined ? undefined : this.byCluster.get(cluster);
  }

  /** The cluster the project's pools are on, undefined when it has none. */
  clusterServing(ref: string): string | undefined {
    return this.clusterOf.get(ref);
  }

  get(ref: string, cluster: string, urls: ConnectionUrls): ProjectConnections {
    const current = this.clusterOf.get(ref);
    if (current !== undefined && current !== cluster) this.byCluster.get(current)?.retire(ref);
    this.clusterOf.set(ref, cluster);
    return this.of(cluster).get(ref, urls);
  }

  /** The budget a project's connections count against: its cluster's. */
  budgetFor(ref: string): ConnectionBudget {
    return this.of(this.clusterOf.get(ref) ?? this.fallback).budget;
  }

  isIdle(ref: string): boolean {
    return this.poolsOf(ref)?.isIdle(ref) ?? true;
  }

  /** Whether two projects' connections count against the same budget (only those free connections for each other). */
  shareBudget(a: string, b: string): boolean {
    return (this.clusterOf.get(a) ?? this.fallback) === (this.clusterOf.get(b) ?? this.fallback);
  }

  /** Closes the idle connections of every project on `ref`'s cluster. */
  shedIdle(ref: string): void {
    this.of(this.clusterOf.get(ref) ?? this.fallback).shedIdle();
  }

  async close(ref: string): Promise<void> {
    const pools = this.poolsOf(ref);
    this.clusterOf.delete(ref);
    await pools?.close(ref);
  }

  retire(ref: string): void {
    const pools = this.poolsOf(ref);
    this.clusterOf.delete(ref);
    pools?.retire(ref);
  }

  async closeAll(): Promise<void> {
    this.clusterOf.clear();
    await Promise.all([...this.byCluster.values()].map((pools) => pools.closeAll()));
  }

  /** Every cluster's budget, to close them at shutdown. */
  budgets(): ConnectionBudget[] {
    return [...this.byCluster.values()].map((pools) => pools.budget);
  }
}

/** The embedded cluster cannot be started, reached or placed. */
export class ClusterError extends Error {
  readonly code = 'cluster_unavailable';
}

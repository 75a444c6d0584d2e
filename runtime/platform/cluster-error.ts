import { CodedError } from '../coded-error.js';

/** The embedded cluster cannot be started, reached or placed. */
export class ClusterError extends CodedError {
  readonly code = 'cluster_unavailable';
}

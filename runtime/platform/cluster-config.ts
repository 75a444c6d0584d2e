import { ConfigError } from '../config-error.js';
import { CodedError } from '../coded-error.js';

/** The main cluster's name: the one of DATABASE_URL (or the embedded one), holding the registry and the queue. */
export const DEFAULT_CLUSTER = 'default';

const CLUSTER_NAME = /^[a-z][a-z0-9_]{0,29}$/;

/** A further PostgreSQL cluster project databases may live on (GANTRY_CLUSTERS). */
export interface ClusterDeclaration {
  readonly name: string;
  /** GANTRY_CLUSTER_<NAME>_URL: a superuser of the cluster (through a pooler when DIRECT_URL is given too). */
  readonly url: string;
  /** GANTRY_CLUSTER_<NAME>_DIRECT_URL: the same cluster without a pooler; null: `url` serves both. */
  readonly directUrl: string | null;
  /** GANTRY_CLUSTER_<NAME>_MAX_CONNECTIONS: this host's connection budget on the cluster; null: DB_MAX_CONNECTIONS. */
  readonly maxConnections: number | null;
}

/** The variable holding one of a cluster's settings: GANTRY_CLUSTER_EU_URL for `eu`'s URL. */
export function clusterVariable(name: string, setting: 'URL' | 'DIRECT_URL' | 'MAX_CONNECTIONS'): string {
  return `GANTRY_CLUSTER_${name.toUpperCase()}_${setting}`;
}

function readMaxConnections(env: NodeJS.ProcessEnv, name: string, minimum: number): number | null {
  const variable = clusterVariable(name, 'MAX_CONNECTIONS');
  const raw = env[variable];
  if (raw === undefined || raw === '') return null;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) throw new ConfigError(`${variable} must be an integer of at least ${minimum}, got "${raw}"`);
  return value;
}

/**
 * GANTRY_CLUSTERS, a comma-separated list of names, and each name's GANTRY_CLUSTER_<NAME>_*
 * variables. Connection URLs hold secrets, so they come from the environment only, never
 * from gantry.toml (which is committed and the same in every environment).
 */
export function readClusterDeclarations(env: NodeJS.ProcessEnv, minimumBudget: number): ClusterDeclaration[] {
  const names = (env.GANTRY_CLUSTERS ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  const seen = new Set<string>();
  return names.map((name) => {
    if (!CLUSTER_NAME.test(name)) throw new ConfigError(`GANTRY_CLUSTERS: "${name}" is not a cluster name (it must match ${CLUSTER_NAME.source})`);
    if (name === DEFAULT_CLUSTER) throw new ConfigError(`GANTRY_CLUSTERS: "${DEFAULT_CLUSTER}" is the main cluster's name (DATABASE_URL); name the others otherwise`);
    if (seen.has(name)) throw new ConfigError(`GANTRY_CLUSTERS names "${name}" twice`);
    seen.add(name);
    const url = env[clusterVariable(name, 'URL')];
    if (!url) throw new ConfigError(`GANTRY_CLUSTERS names "${name}" but ${clusterVariable(name, 'URL')} is not set`);
    return {
      name,
      url,
      directUrl: env[clusterVariable(name, 'DIRECT_URL')] || null,
      maxConnections: readMaxConnections(env, name, minimumBudget),
    };
  });
}

/** A cluster name the configuration does not declare (`--cluster`, `--to`, or a registry row of another deployment). */
export class UnknownClusterError extends CodedError {
  readonly code = 'unknown_cluster';

  /** `consequence`: what the unknown name means for the command at hand, said after the known names. */
  constructor(name: string, known: readonly string[], consequence?: string) {
    const names = `the clusters are ${known.map((n) => `"${n}"`).join(', ')} (GANTRY_CLUSTERS declares the others than "${DEFAULT_CLUSTER}")`;
    super(`unknown cluster "${name}": ${names}${consequence ? `; ${consequence}` : ''}`);
  }
}

import path from 'node:path';
import { MIN_BUDGET } from './db/connection-budget.js';
import { readCallsSettings, type CallsSettings } from './calls/settings.js';
import { ConfigError } from './config-error.js';
import { envFlag, envNumber, envStrictFlag } from './env.js';
import { findConfigFile, readConfigFile, type ConfigFile } from './config-file.js';
import { readClusterDeclarations, type ClusterDeclaration } from './platform/cluster-config.js';

/** Every environment variable of the outside contract, read in one place. */
export interface GantryConfig {
  readonly databaseUrl: string | null;
  /**
   * DATABASE_DIRECT_URL: the same cluster without a pooler in between, for what needs a
   * session of its own (LISTEN, session advisory locks, migrations, CREATE DATABASE, the job
   * queue) while DATABASE_URL may name a transaction-mode pooler such as PgBouncer. Null:
   * DATABASE_URL serves both.
   */
  readonly databaseDirectUrl: string | null;
  /**
   * DB_PREPARED_STATEMENTS: whether the data API names its prepared statements. A
   * transaction-mode pooler hands each transaction to any server connection, where a
   * statement prepared by another transaction does not exist, so the default is off when
   * DATABASE_DIRECT_URL says a pooler is in front and on otherwise.
   */
  readonly preparedStatements: boolean;
  /**
   * The project root: the folder of the nearest `gantry.toml` from the current folder upwards, else
   * the current folder. Every folder below resolves from it, never from Gantry's own package.
   */
  readonly root: string;
  /** The root's `gantry.toml`, parsed; null when there is none. */
  readonly configFile: ConfigFile | null;
  /** GANTRY_HOME, else `.gantry` in the root. */
  readonly gantryHome: string;
  readonly host: string;
  readonly port: number;
  readonly callsPort: number;
  /** Origin used in links that go out in e-mails; defaults to the base URL. */
  readonly publicUrl: string;
  /** Whether PUBLIC_URL was set; when not, a host on an ephemeral port uses its bound base URL. */
  readonly publicUrlSet: boolean;
  readonly smtpUrl: string | null;
  readonly smtpFrom: string;
  /** Default for new projects' `auth.autoconfirm`. */
  readonly authAutoconfirm: boolean;
  /**
   * AUTH_ALLOW_PRIVATE_PROVIDER_URLS=true: OAuth/OIDC providers (issuer, token, user-info and key
   * URLs) may be on loopback or private addresses — tests and local development with a provider
   * on this machine. Off: auth reaches providers only on public addresses.
   */
  readonly authAllowPrivateProviderUrls: boolean;
  /** The call-analysis API's tunables (`CALLS_*`, see runtime/calls/settings.ts). */
  readonly calls: CallsSettings;
  /** Where generated project code lives: GANTRY_GENERATED_DIR, else `paths.generated` of gantry.toml, else `generated/` in the root. */
  readonly generatedDir: string;
  /**
   * Where projects' own code lives (`extensions/<ref>/`), never written by the generator:
   * GANTRY_EXTENSIONS_DIR, else `extensions/` beside GANTRY_GENERATED_DIR when that is set (so that an
   * extension imports its types as `../../generated/<ref>/database.types.js` in any layout), else
   * `paths.extensions` of gantry.toml, else `extensions/` in the root.
   */
  readonly extensionsDir: string;
  /**
   * Where projects' schema histories live (`migrations/<ref>/<version>_<name>.sql`, committed):
   * GANTRY_MIGRATIONS_DIR, else found as extensions/ is.
   */
  readonly migrationsDir: string;
  /**
   * Express's `trust proxy` (TRUST_PROXY): which X-Forwarded-For hops to believe for the
   * client address that auth rate limits and audit entries use. Off by default: a client
   * could name any address.
   */
  readonly trustProxy: boolean | number | string;
  /**
   * PostgreSQL connections this host may hold for projects at once (DB_MAX_CONNECTIONS):
   * data API, admin pools and schema watches of every project together.
   */
  readonly dbMaxConnections: number;
  /**
   * ADMIN_PORT: the admin listener (metrics, liveness, readiness, project status), off when unset, as
   * PostgREST's admin server; on ADMIN_HOST, loopback unless set, never on the public port.
   */
  readonly adminPort: number | null;
  readonly adminHost: string;
  /** The further clusters project databases may live on (GANTRY_CLUSTERS); the main cluster is not among them. */
  readonly clusters: readonly ClusterDeclaration[];
  /**
   * SHUTDOWN_DELAY_SECONDS: after SIGTERM, how long the host keeps serving while its readiness answers
   * 503 `draining` and every answer closes its connection, so that load balancers take it out of their
   * rotation before it stops accepting (in milliseconds here).
   */
  readonly shutdownDelayMs: number;
}

function readPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be a port number (0-65535), got "${raw}"`);
  }
  return port;
}

function readDirectUrl(env: NodeJS.ProcessEnv): string | null {
  const direct = env.DATABASE_DIRECT_URL || null;
  if (direct && !env.DATABASE_URL) {
    throw new ConfigError('DATABASE_DIRECT_URL is given without DATABASE_URL: it names the direct way to the cluster of DATABASE_URL');
  }
  return direct;
}

/** `true`, `false`, a hop count, or addresses/subnets/`loopback`… as express's `trust proxy` takes them. */
function readTrustProxy(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/**
 * A stock PostgreSQL allows 100 connections, 3 of them reserved for superusers. A host
 * also holds about 10 outside the budget (the platform pool, the registry listener, the
 * call-analysis queue); two hosts at 30 + 10 each leave about 17 for psql, `gantry`
 * commands and monitoring.
 */
export const DEFAULT_DB_MAX_CONNECTIONS = 30;

function readConnectionBudget(env: NodeJS.ProcessEnv): number {
  const raw = env.DB_MAX_CONNECTIONS;
  if (raw === undefined || raw === '') return DEFAULT_DB_MAX_CONNECTIONS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < MIN_BUDGET) {
    throw new ConfigError(`DB_MAX_CONNECTIONS must be an integer of at least ${MIN_BUDGET}, got "${raw}"`);
  }
  return value;
}

/** Twice a readiness check every 2 s, a common load balancer setting, with room for the check's own time. */
export const DEFAULT_SHUTDOWN_DELAY_SECONDS = 5;

type Folder = 'generated' | 'migrations' | 'extensions';

/** A project folder: its own variable, else beside GANTRY_GENERATED_DIR, else gantry.toml's `paths`, else the root's. */
function folder(env: NodeJS.ProcessEnv, root: string, file: ConfigFile | null, name: Folder): string {
  const own = env[`GANTRY_${name.toUpperCase()}_DIR`];
  if (own) return path.resolve(own);
  if (name !== 'generated' && env.GANTRY_GENERATED_DIR) return path.join(path.dirname(path.resolve(env.GANTRY_GENERATED_DIR)), name);
  return path.resolve(root, file?.paths[name] ?? name);
}

/** Reads the environment and the root's gantry.toml; `cwd` is where the root is looked for. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): GantryConfig {
  const host = env.HOST || '127.0.0.1';
  const port = readPort(env, 'PORT', 54321);
  const callsPort = readPort(env, 'CALLS_PORT', 54322);
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const databaseDirectUrl = readDirectUrl(env);
  const found = findConfigFile(cwd);
  const configFile = found === null ? null : readConfigFile(found);
  const root = found === null ? path.resolve(cwd) : path.dirname(found);
  return {
    databaseUrl: env.DATABASE_URL || null,
    databaseDirectUrl,
    preparedStatements: envStrictFlag(env, 'DB_PREPARED_STATEMENTS', databaseDirectUrl === null, (message) => new ConfigError(message)),
    root,
    configFile,
    gantryHome: env.GANTRY_HOME ? path.resolve(env.GANTRY_HOME) : path.join(root, '.gantry'),
    host,
    port,
    callsPort,
    publicUrl: (env.PUBLIC_URL || baseUrl).replace(/\/+$/, ''),
    publicUrlSet: Boolean(env.PUBLIC_URL),
    smtpUrl: env.SMTP_URL || null,
    smtpFrom: env.SMTP_FROM || 'no-reply@localhost',
    authAutoconfirm: envFlag(env, 'AUTH_AUTOCONFIRM'),
    authAllowPrivateProviderUrls: envFlag(env, 'AUTH_ALLOW_PRIVATE_PROVIDER_URLS'),
    calls: readCallsSettings(env),
    generatedDir: folder(env, root, configFile, 'generated'),
    extensionsDir: folder(env, root, configFile, 'extensions'),
    migrationsDir: folder(env, root, configFile, 'migrations'),
    trustProxy: readTrustProxy(env),
    dbMaxConnections: readConnectionBudget(env),
    adminPort: env.ADMIN_PORT === undefined || env.ADMIN_PORT === '' ? null : readPort(env, 'ADMIN_PORT', 0),
    adminHost: env.ADMIN_HOST || '127.0.0.1',
    clusters: readClusterDeclarations(env, MIN_BUDGET),
    shutdownDelayMs: Math.round(envNumber(env, 'SHUTDOWN_DELAY_SECONDS', DEFAULT_SHUTDOWN_DELAY_SECONDS, 0, (message) => new ConfigError(message), false) * 1000),
  };
}

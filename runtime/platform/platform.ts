import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { GantryConfig } from '../config.js';
import type { ProjectSettings } from './project-context.js';
import { acquireCluster, externalCluster, type Cluster, type EmbeddedOptions } from './cluster.js';
import { DEFAULT_CLUSTER, UnknownClusterError } from './cluster-config.js';
import { surviveDroppedConnections, taskClient } from '../db/pool-errors.js';
import type { Queryable } from '../db/transaction.js';
import { migratePlatform } from './migrations.js';
import { resolveSettings } from './settings.js';
import type { StoredSigningKey } from '../tokens/keyring.js';
import { currentSigningKey, SIGNING_KEYS_COLUMN, toStoredKeys } from './signing-keys.js';

export const PLATFORM_DATABASE = 'gantry';
export const PROJECTS_CHANNEL = 'gantry_projects';

export interface ProjectRecord {
  readonly ref: string;
  readonly databaseName: string;
  readonly jwtSecret: string;
  readonly settings: ProjectSettings;
  readonly createdAt: Date;
  /** Its asymmetric signing keys; none for a project that has only ever signed with its jwt_secret. */
  readonly signingKeys: readonly StoredSigningKey[];
  /** The cluster its database lives on (DEFAULT_CLUSTER or a name GANTRY_CLUSTERS declares). */
  readonly cluster: string;
  /** The cluster it is being moved to: hosts pause its writes meanwhile. Null when no move runs. */
  readonly movingTo: string | null;
  /** After a move, the cluster that keeps its old database until `project move --confirm`. */
  readonly movedFrom: string | null;
}

interface ProjectRow {
  ref: string;
  database_name: string;
  jwt_secret: string;
  settings: Record<string, unknown>;
  created_at: Date;
  signing_keys: Parameters<typeof toStoredKeys>[0];
  cluster: string;
  moving_to: string | null;
  moved_from: string | null;
}

const PROJECT_COLUMNS = `p.*, ${SIGNING_KEYS_COLUMN}`;

function toRecord(row: ProjectRow): ProjectRecord {
  const signingKeys = toStoredKeys(row.signing_keys);
  // A project stored before `auth.signing_alg` existed signs as it did then: with its current key if it has one.
  const current = currentSigningKey(signingKeys);
  const implied = current ? { 'auth.signing_alg': current.alg } : {};
  return {
    ref: row.ref,
    databaseName: row.database_name,
    jwtSecret: row.jwt_secret,
    settings: resolveSettings({ ...implied, ...row.settings }),
    createdAt: row.created_at,
    signingKeys,
    cluster: row.cluster,
    movingTo: row.moving_to,
    movedFrom: row.moved_from,
  };
}

/** A secret for signing (HS256) or logging in: 256 bits from the CSPRNG. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The cluster plus the platform database: the registry of projects and the
 * cluster-wide roles. Opening it is idempotent and safe from concurrent processes.
 */
export class Platform {
  /** Every cluster by name, the main one as DEFAULT_CLUSTER: URLs only, nothing is connected until used. */
  private readonly clusters: ReadonlyMap<string, Cluster>;
  /** The API login of each cluster other than the main one, made sure of on first use. */
  private readonly apiLogins = new Map<string, Promise<ApiLogin>>();

  private constructor(
    readonly config: GantryConfig,
    /** The main cluster: the platform database (registry, queue) and the projects placed on DEFAULT_CLUSTER. */
    readonly cluster: Cluster,
    readonly pool: pg.Pool,
    private readonly apiLogin: ApiLogin,
  ) {
    this.clusters = new Map([
      [DEFAULT_CLUSTER, cluster],
      ...config.clusters.map((c): [string, Cluster] => [c.name, externalCluster(c.url, c.directUrl ?? c.url)]),
    ]);
  }

  static async open(config: GantryConfig, options: EmbeddedOptions = {}): Promise<Platform> {
    const cluster = await acquireCluster(config, options);
    try {
      await ensureDatabase(cluster, PLATFORM_DATABASE);
      const pool = surviveDroppedConnections(new pg.Pool({ connectionString: cluster.urlFor(PLATFORM_DATABASE), max: 4, idleTimeoutMillis: 10_000 }));
      const client = await pool.connect();
      try {
        await migratePlatform(client);
        return new Platform(config, cluster, pool, await ensureApiRoles(client, client, ''));
      } finally {
        client.release();
      }
    } catch (error) {
      await cluster.release();
      throw error;
    }
  }

  /** URL the data API uses: the authenticator login role (see ensureApiRoles) on a database of the main cluster, through the pooler if any. */
  authenticatorUrl(databaseName: string): string {
    return this.cluster.pooledUrlAs(databaseName, this.apiLogin.role, this.apiLogin.password);
  }

  /** The names of the clusters projects may live on, the main one first. */
  clusterNames(): string[] {
    return [...this.clusters.keys()];
  }

  /** The named cluster; `unknown_cluster` when the configuration does not declare it. */
  clusterNamed(name: string): Cluster {
    const cluster = this.clusters.get(name);
    if (!cluster) throw new UnknownClusterError(name, this.clusterNames());
    return cluster;
  }

  /** The cluster a project's database lives on. */
  clusterOf(record: Pick<ProjectRecord, 'cluster'>): Cluster {
    return this.clusterNamed(record.cluster);
  }

  /** The superuser on a project's database, a session of its own. */
  projectUrl(record: Pick<ProjectRecord, 'cluster' | 'databaseName'>): string {
    return this.clusterOf(record).urlFor(record.databaseName);
  }

  /**
   * The login role the data API uses on a cluster, its API roles made sure of (once per process):
   * the roles live in each cluster, their password in the registry.
   */
  apiLoginOn(name: string): Promise<ApiLogin> {
    if (name === DEFAULT_CLUSTER) return Promise.resolve(this.apiLogin);
    let login = this.apiLogins.get(name);
    if (!login) {
      const cluster = this.clusterNamed(name);
      login = (async () => {
        const client = taskClient(cluster.urlFor('postgres'));
        await client.connect();
        try {
          // Keyed by the server's identity, not the name: a name pointed at another server gets that server's login.
          const { rows } = await client.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()');
          return await ensureApiRoles(client, this.pool, `${rows[0]!.id}/`);
        } finally {
          await client.end();
        }
      })();
      login.catch(() => this.apiLogins.delete(name));
      this.apiLogins.set(name, login);
    }
    return login;
  }

  /** URL the data API uses for a project: the authenticator on its database, on its cluster, through that cluster's pooler if any. */
  async apiUrlFor(record: Pick<ProjectRecord, 'cluster' | 'databaseName'>): Promise<string> {
    const login = await this.apiLoginOn(record.cluster);
    return this.clusterOf(record).pooledUrlAs(record.databaseName, login.role, login.password);
  }

  async listProjects(): Promise<ProjectRecord[]> {
    const { rows } = await this.pool.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p ORDER BY ref`);
    return rows.map(toRecord);
  }

  async getProject(ref: string): Promise<ProjectRecord | null> {
    const { rows } = await this.pool.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE ref = $1`, [ref]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The settings as the registry stores them (no defaults filled in, secrets sealed); null when there is no such project. */
  async storedSettings(ref: string): Promise<Readonly<Record<string, unknown>> | null> {
    const { rows } = await this.pool.query<{ settings: Record<string, unknown> }>('SELECT settings FROM projects WHERE ref = $1', [ref]);
    return rows[0]?.settings ?? null;
  }

  /** Stores settings in one statement, so a host reloading on its NOTIFY never sees some of them without the others. */
  async setSettings(ref: string, settings: Readonly<Record<string, unknown>>): Promise<ProjectRecord | null> {
    const { rows } = await this.pool.query<ProjectRow>(`UPDATE projects p SET settings = settings || $2::jsonb WHERE ref = $1 RETURNING ${PROJECT_COLUMNS}`, [
      ref,
      JSON.stringify(settings),
    ]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async close(): Promise<void> {
    await this.pool.end();
    await this.cluster.release();
  }
}

async function ensureDatabase(cluster: Cluster, name: string): Promise<void> {
  const client = taskClient(cluster.urlFor('postgres'));
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } catch (error) {
    // Another process created it between our check and our CREATE (a concurrent
    // CREATE DATABASE surfaces as a unique violation on pg_database, not 42P04).
    const code = (error as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    await client.end();
  }
}

/** The login role the data API connects as, and its password. */
export interface ApiLogin {
  readonly role: string;
  readonly password: string;
}

/**
 * The cluster-wide API roles, and the login role the data API uses. Gantry sets a password only
 * once, on a login role nobody else can log in as: `authenticator` when the cluster had none
 * (or one without a password), else (a PostgREST or Supabase stack sharing the cluster owns it)
 * a `gantry_authenticator` of its own, granted the same API roles, so that credentials others
 * rely on are never changed. `client` is on the cluster the roles are for; `secrets` on the platform
 * database, whose cluster_secrets keeps the password under `scope` (empty for the main cluster, the
 * server's `<system identifier>/` for another).
 */
async function ensureApiRoles(client: pg.ClientBase, secrets: Queryable, scope: string): Promise<ApiLogin> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', ['gantry.roles']);
  try {
    const login = async (role: string): Promise<ApiLogin | null> => {
      const { rows } = await secrets.query<{ value: string }>('SELECT value FROM cluster_secrets WHERE name = $1', [`${scope}${role}_password`]);
      return rows[0] ? { role, password: rows[0].value } : null;
    };
    // An authenticator that can log in belongs to someone (a role without a password holds no credentials to keep).
    const othersAuthenticator = (await client.query(`SELECT 1 FROM pg_authid WHERE rolname = 'authenticator' AND rolpassword IS NOT NULL`)).rowCount === 1;
    await client.query(await fs.readFile(path.join(import.meta.dirname, 'sql', 'roles.sql'), 'utf8'));
    const known = (await login('authenticator')) ?? (await login('gantry_authenticator'));
    if (known) return known;
    const role = othersAuthenticator ? 'gantry_authenticator' : 'authenticator';
    const password = newSecret();
    if (role === 'gantry_authenticator') {
      const exists = (await client.query(`SELECT 1 FROM pg_roles WHERE rolname = 'gantry_authenticator'`)).rowCount === 1;
      if (!exists) await client.query('CREATE ROLE gantry_authenticator LOGIN NOINHERIT');
      await client.query('GRANT anon, authenticated, service_role TO gantry_authenticator');
    }
    const { rows: alter } = await client.query<{ sql: string }>(`SELECT format('ALTER ROLE %I WITH LOGIN PASSWORD %L', $1::text, $2::text) AS sql`, [role, password]);
    await client.query(alter[0]!.sql);
    await secrets.query('INSERT INTO cluster_secrets (name, value) VALUES ($1, $2)', [`${scope}${role}_password`, password]);
    return { role, password };
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['gantry.roles']);
  }
}

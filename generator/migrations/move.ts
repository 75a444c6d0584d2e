import type pg from 'pg';
import { CodedError } from '../../runtime/coded-error.js';
import { taskClient } from '../../runtime/db/pool-errors.js';
import { dropDatabase, type DatabaseLocation } from '../../runtime/platform/bootstrap.js';
import { copyDatabase, DatabaseCopyError, type CopyReport } from '../../runtime/platform/database-copy.js';
import type { Platform, ProjectRecord } from '../../runtime/platform/platform.js';
import { buildFromHistory } from './create.js';

export type MoveErrorCode = 'move_in_progress' | 'move_unconfirmed' | 'move_target_exists' | 'already_on_cluster' | 'nothing_to_confirm' | 'move_large_objects';

export class MoveError extends CodedError {
  constructor(
    readonly code: MoveErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The least time between the pause and the cut: hosts hear the registry's NOTIFY in milliseconds. */
const PAUSE_PROPAGATION_MS = 300;
/** The most time transactions already running on the old database get to finish; the rest are ended. */
const DRAIN_MS = 5_000;

export interface MoveReport {
  readonly ref: string;
  readonly from: string;
  readonly to: string;
  readonly copied: CopyReport;
  /** Milliseconds the project's writes were paused (registry pause to registry switch). */
  readonly paused_ms: number;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = taskClient(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Transactions other sessions run on the database now. */
async function busySessions(admin: pg.ClientBase, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'`,
    [database],
  );
  return rows[0]!.n;
}

/**
 * The old database takes no more writes: read-only by default for every new session (a host
 * that has not yet heard of the pause gets an error, never a write that the copy misses), and
 * every session on it ended once the transactions running there finished (DRAIN_MS at most).
 */
async function freeze(platform: Platform, source: DatabaseLocation): Promise<void> {
  await withClient(platform.clusterNamed(source.cluster).urlFor('postgres'), async (admin) => {
    await new Promise((resolve) => setTimeout(resolve, PAUSE_PROPAGATION_MS));
    const until = Date.now() + DRAIN_MS;
    while (Date.now() < until && (await busySessions(admin, source.databaseName)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(source.databaseName)} SET default_transaction_read_only = on`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [source.databaseName]);
  });
}

async function thaw(platform: Platform, source: DatabaseLocation): Promise<void> {
  await withClient(platform.clusterNamed(source.cluster).urlFor('postgres'), (admin) =>
    admin.query(`ALTER DATABASE ${admin.escapeIdentifier(source.databaseName)} RESET default_transaction_read_only`));
}

/**
 * Large objects (pg_largeobject) are not rows of any table the copy sees: a database holding any is
 * refused rather than moved without them. Asked before anything is built, and again once the source is
 * read-only (none can be created after that).
 */
async function refuseLargeObjects(source: pg.ClientBase, ref: string): Promise<void> {
  const { rows } = await source.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_largeobject_metadata');
  if (rows[0]!.n === 0) return;
  throw new MoveError('move_large_objects', `${ref} holds ${rows[0]!.n} large object(s) (pg_largeobject), which a move does not copy: store them in a bytea column (or elsewhere) and remove them first; nothing was moved`);
}

/** gantry.schema_version's position: the DDL counter hosts read with the database's identity (readSchemaVersion). */
async function ddlCounter(db: pg.ClientBase): Promise<string> {
  const { rows } = await db.query<{ at: string }>(`SELECT last_value::text || '/' || is_called AS at FROM gantry.schema_version`);
  return rows[0]!.at;
}

/** The fingerprint of a project database's schema as its API sees it (the generator's liveFingerprint). */
export type SchemaFingerprint = (db: pg.ClientBase, record: ProjectRecord) => Promise<string>;

/** The database's own settings (the production mark among them), but not the read-only one the move set. */
async function copyDatabaseSettings(source: pg.ClientBase, target: pg.ClientBase, database: string): Promise<void> {
  const { rows } = await source.query<{ setting: string }>(
    `SELECT unnest(setconfig) AS setting FROM pg_db_role_setting WHERE setrole = 0 AND setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  for (const { setting } of rows) {
    const at = setting.indexOf('=');
    const name = setting.slice(0, at);
    if (name === 'default_transaction_read_only' || !/^[a-z_][a-z0-9_.]*$/.test(name)) continue;
    await target.query(`ALTER DATABASE ${target.escapeIdentifier(database)} SET ${name} = ${target.escapeLiteral(setting.slice(at + 1))}`);
  }
}

/**
 * Moves a project's database to another cluster: the target is built from the project's migrations
 * first (the project serves meanwhile); then its writes are paused through the registry (every host
 * answers them 503 + Retry-After), the old database made read-only, its rows and sequences copied, and
 * the registry switched (hosts follow on its NOTIFY). The old database is kept, read-only, until
 * `confirmMove`. A failure before the switch undoes the pause and drops the target.
 */
export async function moveProject(platform: Platform, record: ProjectRecord, to: string, fingerprint: SchemaFingerprint): Promise<MoveReport> {
  platform.clusterNamed(to);
  if (record.movingTo) throw new MoveError('move_in_progress', `${record.ref} is already being moved to cluster "${record.movingTo}"`);
  if (record.movedFrom) {
    throw new MoveError('move_unconfirmed', `${record.ref} keeps its old database on cluster "${record.movedFrom}": run gantry project move ${record.ref} --confirm first`);
  }
  if (to === record.cluster) throw new MoveError('already_on_cluster', `${record.ref} is on cluster "${to}" already`);
  const source: DatabaseLocation = record;
  const target: DatabaseLocation = { cluster: to, databaseName: record.databaseName };

  await withClient(platform.projectUrl(source), (from) => refuseLargeObjects(from, record.ref));
  await platform.apiLoginOn(to);
  await withClient(platform.clusterNamed(to).urlFor('postgres'), async (admin) => {
    try {
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(target.databaseName)}`);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') throw new MoveError('move_target_exists', `cluster "${to}" already has a database ${target.databaseName}: drop it first`);
      throw error;
    }
  });
  let pausedAt = 0;
  try {
    await buildFromHistory(platform, target, record.ref);
    // Compared while the project still serves: the copy carries the DDL counter over, which lets hosts
    // keep the code checked on the old database (checkCarriesOver) instead of introspecting during the cut.
    const counter = await withClient(platform.projectUrl(source), (from) =>
      withClient(platform.projectUrl(target), async (into) => {
        const at = await ddlCounter(from);
        const [live, rebuilt] = await Promise.all([fingerprint(from, record), fingerprint(into, record)]);
        if (live !== rebuilt) {
          throw new DatabaseCopyError('the database built from the project\'s migrations differs from the live one in what its API exposes (functions, views, policies, comments, …): bring migrations/ in line with the database first');
        }
        return at;
      }));
    pausedAt = Date.now();
    await platform.pool.query('UPDATE projects SET moving_to = $2 WHERE ref = $1', [record.ref, to]);
    await freeze(platform, source);
    const copied = await withClient(platform.projectUrl(source), (from) =>
      withClient(platform.projectUrl(target), async (into) => {
        await refuseLargeObjects(from, record.ref);
        const report = await copyDatabase(from, into);
        await copyDatabaseSettings(from, into, target.databaseName);
        // DDL on the old database since the comparison: hosts introspect the new one.
        if ((await ddlCounter(from)) !== counter) await into.query(`SELECT nextval('gantry.schema_version')`);
        return report;
      }));
    await platform.pool.query('UPDATE projects SET cluster = $2, moving_to = NULL, moved_from = $3 WHERE ref = $1', [record.ref, to, record.cluster]);
    return { ref: record.ref, from: record.cluster, to, copied, paused_ms: Date.now() - pausedAt };
  } catch (error) {
    if (pausedAt > 0) {
      await thaw(platform, source);
      await platform.pool.query('UPDATE projects SET moving_to = NULL WHERE ref = $1', [record.ref]);
    }
    await dropDatabase(platform, target);
    throw error;
  }
}

/** After a move: drops the old database it kept and forgets where it was. */
export async function confirmMove(platform: Platform, record: ProjectRecord): Promise<{ readonly ref: string; readonly dropped: DatabaseLocation }> {
  if (!record.movedFrom) throw new MoveError('nothing_to_confirm', `${record.ref} keeps no old database (no unconfirmed move)`);
  const old: DatabaseLocation = { cluster: record.movedFrom, databaseName: record.databaseName };
  await dropDatabase(platform, old);
  await platform.pool.query('UPDATE projects SET moved_from = NULL WHERE ref = $1', [record.ref]);
  return { ref: record.ref, dropped: old };
}

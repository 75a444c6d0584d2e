import path from 'node:path';
import type { RequestHandler } from 'express';
import pg from 'pg';
import type { GantryConfig } from '../config.js';
import type { Logger } from 'pino';
import type { Platform, ProjectRecord } from '../platform/platform.js';
import { PROJECTS_CHANNEL } from '../platform/platform.js';
import type { ProjectContext } from '../platform/project-context.js';
import { budgetedClient } from '../db/budgeted-client.js';
import { ConnectionBudgetError } from '../db/connection-budget.js';
import type { ClusterPools } from './cluster-pools.js';
import { readSchemaVersion, SchemaWatcher } from './schema-watcher.js';
import { checkCarriesOver, checkHolds, SchemaCheckStore, type SchemaCheck } from './schema-checks.js';
import type { RestHandler } from '../rest/server.js';
import { REF_PATTERN } from '../platform/bootstrap.js';
import { migrateProject, projectMigrationsPending } from '../platform/migrations.js';
import { buildKeyring } from '../tokens/keyring.js';
import { taskClient } from '../db/pool-errors.js';
import { forgetProject, metrics } from '../metrics.js';
import { inDetachedSpan, inSpan } from '../tracing.js';

export interface ServedProject {
  readonly ctx: ProjectContext;
  readonly handler: RequestHandler;
  readonly fingerprint: string | null;
  /** The data API, for the host's fast path that bypasses express; null without generated code. */
  readonly rest: RestHandler | null;
  /** `gantry.schema_version` when the project was last loaded (the admin listener's status). */
  readonly schemaVersion?: string;
  /** The cluster it was loaded from: a reload from another one is a move's (checkCarriesOver). */
  readonly cluster?: string;
}

/**
 * Keeps a project's generated code in line with its live schema. The generator is the CLI's, so the
 * host is handed it rather than importing it.
 */
export interface CodeSync {
  /**
   * Writes the code when it is missing (a project created by a CLI on another machine, or before the CLI
   * wrote it) or was generated from another schema (DDL behind the host's back), and leaves current code
   * alone; over a connection to the project database the host holds (one of its budget's). Resolves to
   * the fingerprint of the code now on disk.
   */
  sync(record: ProjectRecord, client: pg.ClientBase): Promise<string>;
  /** The schema fingerprint of the project's code on disk (its schema.json); null without code. */
  onDisk(ref: string): Promise<string | null>;
}

/** A project the registry has but this host could not load (its database unreachable, its code not loadable). */
export class ProjectUnavailableError extends Error {
  readonly code = 'PGRST002';

  constructor(readonly ref: string) {
    super(`Could not load project "${ref}". Retrying.`);
  }
}

/** Builds the request handler of one project (its generated server, or a fallback); `served` is the version this host serves now. */
export type ServerFactory = (ctx: ProjectContext, served: { readonly fingerprint: string | null } | null) => Promise<{ handler: RequestHandler; fingerprint: string | null; rest: RestHandler | null }>;

/** How long a project may go without a request before the host unloads it (and closes its connections). */
export const PROJECT_IDLE_MS = 10 * 60_000;

/**
 * The projects this host serves. A project is loaded on its first request (so a host
 * with many idle projects starts at once and holds nothing for them), after its
 * generated code has been brought in line with its live schema; from then on it is
 * kept in step with the registry: LISTEN on the platform database wakes the host when
 * a project is changed or deleted, so it is swapped or dropped within moments and no
 * file is polled. A project without requests for `idleMs` is unloaded: its schema
 * watch and connections close, and its next request loads it again, noticing any
 * schema change made meanwhile.
 */
export class ProjectDirectory {
  private readonly served = new Map<string, ServedProject>();
  private listener: pg.Client | null = null;
  private closed = false;
  /**
   * Serialises reloads per ref so a burst of notifications applies in order; each settles to the
   * reload's error, or null, so a request waiting for a first load can tell a failure from success.
   */
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly watcher: SchemaWatcher | null;
  /** When each served project last had a request (ms since the epoch). */
  private readonly lastUsed = new Map<string, number>();
  private readonly idleMs: number;
  private readonly idleSweep: NodeJS.Timeout;
  /** What each project's code was last found in line with, kept across unloads and restarts. */
  private readonly checks: SchemaCheckStore;
  /** Projects being moved to another cluster (the registry's `moving_to`): their writes wait. */
  private readonly paused = new Set<string>();

  constructor(
    private readonly platform: Platform,
    private readonly pools: ClusterPools,
    private readonly factory: ServerFactory,
    private readonly log: Logger,
    private readonly code: CodeSync | null = null,
    private readonly config: GantryConfig = platform.config,
    options: { readonly idleMs?: number } = {},
  ) {
    this.watcher = code ? new SchemaWatcher((ref) => void this.reload(ref), log, (ref) => budgetedClient(pools.budgetFor(ref), ref)) : null;
    this.checks = new SchemaCheckStore(path.join(config.gantryHome, 'schema-checks'));
    this.idleMs = options.idleMs ?? PROJECT_IDLE_MS;
    this.idleSweep = setInterval(() => this.unloadIdle(), Math.min(this.idleMs, 60_000));
    this.idleSweep.unref();
  }

  get(ref: string): ServedProject | undefined {
    const project = this.served.get(ref);
    if (project) this.lastUsed.set(ref, Date.now());
    return project;
  }

  /**
   * The served project, loaded first when this host has not served it yet: a project just created (by a
   * CLI here or on another machine) is answered once its code is ready, never as missing in the meantime.
   * Undefined when the registry has no such project.
   */
  async load(ref: string): Promise<ServedProject | undefined> {
    const served = this.get(ref);
    if (served || !REF_PATTERN.test(ref)) return served;
    const failure = await (this.pending.get(ref) ?? this.schedule(ref));
    if (failure !== null && !this.served.has(ref)) {
      // Out of connections is the host's state, not the project's: the request says so (503 PGRST003).
      if (failure instanceof ConnectionBudgetError) throw failure;
      throw new ProjectUnavailableError(ref);
    }
    return this.served.get(ref);
  }

  /** Whether the project's writes are paused: it is being moved, its data copied from a database that takes no writes. */
  isPaused(ref: string): boolean {
    return this.paused.has(ref);
  }

  refs(): string[] {
    return [...this.served.keys()].sort();
  }

  async start(): Promise<void> {
    await this.listen();
  }

  /** Whether this host serves the project or is loading it: only then do registry changes concern it. */
  private tracks(ref: string): boolean {
    return this.served.has(ref) || this.pending.has(ref);
  }

  /**
   * Re-reads one project from the registry and swaps its server in (or drops it),
   * first bringing its generated code in line with the live schema.
   */
  async reload(ref: string): Promise<void> {
    await this.schedule(ref);
  }

  private schedule(ref: string): Promise<unknown> {
    const previous = this.pending.get(ref) ?? Promise.resolve(null);
    // A span of its own trace: one load serves every request waiting for it.
    const next = previous.then(() => inDetachedSpan('project load', () => this.apply(ref), { attributes: { 'gantry.ref': ref } })).then(
      () => null,
      (error: unknown) => {
        this.log.error({ ref, err: error }, 'project reload failed');
        return error;
      },
    );
    this.pending.set(ref, next);
    void next.finally(() => {
      if (this.pending.get(ref) === next) this.pending.delete(ref);
    });
    return next;
  }

  private async apply(ref: string): Promise<void> {
    const record = await this.platform.getProject(ref);
    // First, before the (slower) reload: a move waits for every host to stop writing. The pause ends
    // once the project is served from where the registry now has it (below): not before, or a write
    // would reach the old, read-only database.
    if (record?.movingTo) this.paused.add(ref);
    else if (!record) this.paused.delete(ref);
    if (!record) {
      this.lastUsed.delete(ref);
      if (this.served.delete(ref)) {
        metrics.projectUnloaded('dropped');
        this.log.info({ ref }, 'project dropped');
      }
      forgetProject(ref);
      await this.watcher?.unwatch(ref);
      await this.pools.close(ref);
      await this.checks.remove(ref);
      return;
    }
    let ctx: ProjectContext;
    let server: Awaited<ReturnType<ServerFactory>>;
    let prepared: { readonly version: string; readonly introspected: boolean };
    let checkSeconds: number;
    try {
      // Moved to another cluster: the watch on the old database ends; its pools retire as the new ones open.
      const serving = this.pools.clusterServing(ref);
      if (serving !== undefined && serving !== record.cluster) await this.watcher?.unwatch(ref);
      ctx = await this.contextFor(record);
      const checkStarted = performance.now();
      const from = this.served.get(ref)?.cluster;
      const moved = from !== undefined && from !== record.cluster && record.movedFrom === from;
      prepared = await inSpan('schema check', () => this.prepare(ctx, record, moved));
      checkSeconds = (performance.now() - checkStarted) / 1000;
      server = await inSpan('server build', () => this.factory(ctx, this.served.get(ref) ?? null));
      // Last, so that a load holds one connection at a time; a change made since `version` was read wakes the watch.
      await this.watcher?.watch(ref, this.platform.projectUrl(record), prepared.version);
    } catch (error) {
      // A project that was never served keeps no schema watch and no connection after a failed first load.
      if (!this.served.has(ref)) {
        await this.watcher?.unwatch(ref);
        await this.pools.close(ref);
      }
      throw error;
    }
    const { handler, fingerprint, rest } = server;
    metrics.projectLoaded(ref, this.served.has(ref), prepared.introspected, checkSeconds);
    this.served.set(ref, { ctx, handler, fingerprint, rest, schemaVersion: prepared.version, cluster: record.cluster });
    if (!record.movingTo) this.paused.delete(ref);
    this.lastUsed.set(ref, Date.now());
    this.log.info({ ref, fingerprint, introspected: prepared.introspected }, 'project served');
  }

  /**
   * Brings a database bootstrapped by an older Gantry up to the auth schema this one serves (a no-op once
   * current), then reads its schema version (after the migration, whose DDL bumps it) and brings the
   * project's code in line with the live schema unless the last check still holds (or, `moved` here from
   * the database it was checked on, carries over): all on one connection.
   */
  private async prepare(ctx: ProjectContext, record: ProjectRecord, moved: boolean): Promise<{ version: string; introspected: boolean }> {
    // The admin pool may go through a transaction-mode pooler: it can see that nothing is pending,
    // but applying holds a session advisory lock, so that takes a direct connection of its own.
    if (await projectMigrationsPending(ctx.adminPool)) await this.migrate(record);
    const client = await ctx.adminPool.connect();
    try {
      const version = await readSchemaVersion(client);
      if (!this.code) return { version, introspected: false };
      const live = { version, schemas: record.settings['api.schemas'] };
      const [stored, onDisk] = await Promise.all([this.checks.get(ctx.ref), this.code.onDisk(ctx.ref)]);
      if (checkHolds(stored, live, onDisk)) return { version, introspected: false };
      if (moved && checkCarriesOver(stored, live, onDisk)) {
        await this.saveCheck(ctx.ref, { ...live, fingerprint: stored!.fingerprint });
        return { version, introspected: false };
      }
      const fingerprint = await this.code.sync(record, client);
      await this.saveCheck(ctx.ref, { ...live, fingerprint });
      return { version, introspected: true };
    } finally {
      client.release();
    }
  }

  private async saveCheck(ref: string, check: SchemaCheck): Promise<void> {
    await this.checks.set(ref, check).catch((error: unknown) => {
      // Only a restart's shortcut is lost: the next load introspects again.
      this.log.warn({ ref, err: error }, 'schema check not saved');
    });
  }

  private async migrate(record: ProjectRecord): Promise<void> {
    const client = taskClient(this.platform.projectUrl(record));
    await client.connect();
    try {
      const applied = await migrateProject(client);
      if (applied.length > 0) this.log.info({ ref: record.ref, applied }, 'project database migrated');
    } finally {
      await client.end();
    }
  }

  private async contextFor(record: ProjectRecord): Promise<ProjectContext> {
    const pools = this.pools.get(record.ref, record.cluster, {
      api: await this.platform.apiUrlFor(record),
      admin: this.platform.clusterOf(record).pooledUrlFor(record.databaseName),
    });
    return {
      ref: record.ref,
      jwtSecret: record.jwtSecret,
      keyring: buildKeyring(record.jwtSecret, record.signingKeys, record.settings['auth.signing_alg']),
      settings: record.settings,
      executor: pools.executor,
      adminPool: pools.admin,
      config: this.config,
    };
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.platform.cluster.urlFor('gantry'));
    client.on('notification', (message) => {
      if (message.channel === PROJECTS_CHANNEL && message.payload && this.tracks(message.payload)) void this.reload(message.payload);
    });
    client.on('error', (error) => {
      // node-postgres reports a connection the server terminates twice (its FATAL, then the
      // unexpected end): a second resync would open a second listener that nothing ends, and
      // its socket would keep the process from exiting. Errors before it listens reject below.
      if (this.listener !== client) return;
      this.log.warn({ err: error }, 'registry listener lost; reconnecting');
      this.listener = null;
      setTimeout(() => void this.resync(), 500).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${PROJECTS_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    // A resync that connected while the directory closed: close() has already ended the listener it knew.
    if (this.closed) await client.end().catch(() => undefined);
    else this.listener = client;
  }

  /** After a lost listener: listen again and reload what we serve, whose changes we may have missed. */
  private async resync(): Promise<void> {
    if (this.closed) return;
    try {
      await this.listen();
      await Promise.all([...this.served.keys()].map((ref) => this.reload(ref)));
    } catch {
      setTimeout(() => void this.resync(), 1000).unref();
    }
  }

  private unloadIdle(): void {
    const before = Date.now() - this.idleMs;
    for (const [ref, at] of this.lastUsed) {
      if (at > before || this.pending.has(ref)) continue;
      this.unload(ref);
      this.pools.retire(ref);
      metrics.projectUnloaded('idle');
      this.log.info({ ref }, 'project unloaded (idle)');
    }
  }

  /**
   * The connection budget's reclaim: another project waits for a connection, so the least recently
   * used project that is not loading and has nothing running is unloaded at once, its connections
   * and schema watch closed (its next request checks the schema version, so nothing is missed).
   * Without such a project, every project's idle connections close, the waiting one's too: two busy
   * projects each keeping an idle admin connection while waiting for a data connection would
   * otherwise wait on each other until their requests time out.
   */
  reclaim(forRef: string): void {
    // Only a project on the same cluster frees a connection of the budget forRef waits for.
    const candidates = [...this.lastUsed]
      .filter(([ref]) => ref !== forRef && !this.pending.has(ref) && this.pools.shareBudget(ref, forRef))
      .sort((a, b) => a[1] - b[1]);
    const victim = candidates.find(([ref]) => this.pools.isIdle(ref));
    if (!victim) {
      this.pools.shedIdle(forRef);
      return;
    }
    const [ref] = victim;
    this.unload(ref);
    // Retired, not closed: a request handed the project just before still runs on its pools.
    this.pools.retire(ref);
    metrics.projectUnloaded('budget');
    this.log.info({ ref, for: forRef }, 'project unloaded (connection budget)');
  }

  private unload(ref: string): void {
    this.lastUsed.delete(ref);
    this.served.delete(ref);
    void this.watcher?.unwatch(ref);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.idleSweep);
    await this.listener?.end().catch(() => undefined);
    await this.watcher?.close();
    await Promise.all(this.pending.values());
    this.served.clear();
    await this.pools.closeAll();
  }
}

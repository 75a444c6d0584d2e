import type { RequestHandler } from 'express';
import pg from 'pg';
import type { GantryConfig } from '../config.js';
import type { Logger } from 'pino';
import type { Platform, ProjectRecord } from '../platform/platform.js';
import { PROJECTS_CHANNEL } from '../platform/platform.js';
import type { ProjectContext } from './project-context.js';
import type { ProjectPools } from './pools.js';
import { SchemaWatcher } from './schema-watcher.js';
import type { RestHandler } from '../rest/server.js';
import { migrateProject } from '../platform/migrations.js';

export interface ServedProject {
  readonly ctx: ProjectContext;
  readonly handler: RequestHandler;
  readonly fingerprint: string | null;
  /** The data API, for the host's fast path that bypasses express; null without generated code. */
  readonly rest: RestHandler | null;
}

/**
 * Regenerates a project's code after its database schema changed behind the host's
 * back (the generator is the CLI's, so the host is handed it rather than importing it).
 */
export type Regenerate = (record: ProjectRecord) => Promise<void>;

/** Builds the request handler of one project (its generated server, or a fallback). */
export type ServerFactory = (ctx: ProjectContext) => Promise<{ handler: RequestHandler; fingerprint: string | null; rest: RestHandler | null }>;

/**
 * The projects this host serves, kept in step with the registry: LISTEN on the
 * platform database wakes it when a project is created, changed or deleted, so a
 * project is served or dropped within moments and no file is polled.
 */
export class ProjectDirectory {
  private readonly served = new Map<string, ServedProject>();
  private listener: pg.Client | null = null;
  private closed = false;
  /** Serialises reloads per ref so a burst of notifications applies in order. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly watcher: SchemaWatcher | null;

  constructor(
    private readonly platform: Platform,
    private readonly pools: ProjectPools,
    private readonly factory: ServerFactory,
    private readonly log: Logger,
    private readonly regenerate: Regenerate | null = null,
    private readonly config: GantryConfig = platform.config,
  ) {
    this.watcher = regenerate ? new SchemaWatcher((ref) => void this.reload(ref, { regenerate: true }), log) : null;
  }

  get(ref: string): ServedProject | undefined {
    return this.served.get(ref);
  }

  refs(): string[] {
    return [...this.served.keys()].sort();
  }

  async start(): Promise<void> {
    await this.listen();
    await Promise.all((await this.platform.listProjects()).map((record) => this.reload(record.ref)));
  }

  /**
   * Re-reads one project from the registry and swaps its server in (or drops it);
   * with regenerate, first rewrites its generated code from the live schema.
   */
  reload(ref: string, options: { regenerate?: boolean } = {}): Promise<void> {
    const previous = this.pending.get(ref) ?? Promise.resolve();
    const next = previous.then(() => this.apply(ref, options.regenerate ?? false)).catch((error: unknown) => {
      this.log.error({ ref, err: error }, 'project reload failed');
    });
    this.pending.set(ref, next);
    void next.finally(() => {
      if (this.pending.get(ref) === next) this.pending.delete(ref);
    });
    return next;
  }

  private async apply(ref: string, regenerate: boolean): Promise<void> {
    const record = await this.platform.getProject(ref);
    if (!record) {
      if (this.served.delete(ref)) this.log.info({ ref }, 'project dropped');
      await this.watcher?.unwatch(ref);
      await this.pools.close(ref);
      return;
    }
    await this.watcher?.watch(ref, this.platform.cluster.urlFor(record.databaseName));
    if (regenerate && this.regenerate) await this.regenerate(record);
    const ctx = this.contextFor(record);
    await this.migrate(ctx);
    const { handler, fingerprint, rest } = await this.factory(ctx);
    this.served.set(ref, { ctx, handler, fingerprint, rest });
    this.log.info({ ref, fingerprint }, 'project served');
  }

  /** Brings a database bootstrapped by an older Gantry up to the auth schema this one serves (a no-op once current). */
  private async migrate(ctx: ProjectContext): Promise<void> {
    const client = await ctx.adminPool.connect();
    try {
      const applied = await migrateProject(client);
      if (applied.length > 0) this.log.info({ ref: ctx.ref, applied }, 'project database migrated');
    } finally {
      client.release();
    }
  }

  private contextFor(record: ProjectRecord): ProjectContext {
    const pools = this.pools.get(record.ref, {
      api: this.platform.authenticatorUrl(record.databaseName),
      admin: this.platform.cluster.urlFor(record.databaseName),
    });
    return {
      ref: record.ref,
      jwtSecret: record.jwtSecret,
      settings: record.settings,
      executor: pools.executor,
      adminPool: pools.admin,
      config: this.config,
    };
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.platform.cluster.urlFor('gantry'));
    client.on('notification', (message) => {
      if (message.channel === PROJECTS_CHANNEL && message.payload) void this.reload(message.payload);
    });
    client.on('error', (error) => {
      this.log.warn({ err: error }, 'registry listener lost; reconnecting');
      this.listener = null;
      setTimeout(() => void this.resync(), 500).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${PROJECTS_CHANNEL}`);
    this.listener = client;
  }

  /** After a lost listener: listen again and reload everything we may have missed. */
  private async resync(): Promise<void> {
    if (this.closed) return;
    try {
      await this.listen();
      const refs = new Set([...this.served.keys(), ...(await this.platform.listProjects()).map((r) => r.ref)]);
      await Promise.all([...refs].map((ref) => this.reload(ref)));
    } catch {
      setTimeout(() => void this.resync(), 1000).unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
    await this.watcher?.close();
    await Promise.all(this.pending.values());
    this.served.clear();
    await this.pools.closeAll();
  }
}

import type { RequestHandler } from 'express';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Platform, ProjectRecord } from '../platform/platform.js';
import { PROJECTS_CHANNEL } from '../platform/platform.js';
import type { ProjectContext } from './project-context.js';
import type { ProjectPools } from './pools.js';

export interface ServedProject {
  readonly ctx: ProjectContext;
  readonly handler: RequestHandler;
  readonly fingerprint: string | null;
}

/** Builds the request handler of one project (its generated server, or a fallback). */
export type ServerFactory = (ctx: ProjectContext) => Promise<{ handler: RequestHandler; fingerprint: string | null }>;

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

  constructor(
    private readonly platform: Platform,
    private readonly pools: ProjectPools,
    private readonly factory: ServerFactory,
    private readonly log: Logger,
  ) {}

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

  /** Re-reads one project from the registry and swaps its server in (or drops it). */
  reload(ref: string): Promise<void> {
    const previous = this.pending.get(ref) ?? Promise.resolve();
    const next = previous.then(() => this.apply(ref)).catch((error: unknown) => {
      this.log.error({ ref, err: error }, 'project reload failed');
    });
    this.pending.set(ref, next);
    void next.finally(() => {
      if (this.pending.get(ref) === next) this.pending.delete(ref);
    });
    return next;
  }

  private async apply(ref: string): Promise<void> {
    const record = await this.platform.getProject(ref);
    if (!record) {
      if (this.served.delete(ref)) this.log.info({ ref }, 'project dropped');
      await this.pools.close(ref);
      return;
    }
    const ctx = this.contextFor(record);
    const { handler, fingerprint } = await this.factory(ctx);
    this.served.set(ref, { ctx, handler, fingerprint });
    this.log.info({ ref, fingerprint }, 'project served');
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
      apiPool: pools.api,
      adminPool: pools.admin,
      config: this.platform.config,
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
    await Promise.all(this.pending.values());
    this.served.clear();
    await this.pools.closeAll();
  }
}

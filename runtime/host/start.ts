import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { GantryConfig } from '../config.js';
import { ConfigError } from '../config-error.js';
import { createCallsApp, startCallsService } from '../calls/app.js';
import { deferContinue } from '../http/expect-continue.js';
import type { Platform } from '../platform/platform.js';
import { createHostApp } from './app.js';
import { RequestEnvelope, type InFlight } from './envelope.js';
import { createReadiness, drainableReadiness, healthRoutes } from './health.js';
import { answerClientError } from './client-error.js';
import { sendJson } from '../http/json-response.js';
import { requestIdOf } from '../http/request-id.js';
import { ConnectionBudget } from '../db/connection-budget.js';
import { connectionBudgetLimits } from './budget-limits.js';
import { ProjectPools } from './pools.js';
import { ClusterPools } from './cluster-pools.js';
import { DEFAULT_CLUSTER } from '../platform/cluster-config.js';
import { ProjectDirectory, type CodeSync } from './project-directory.js';
import { createRestFastPath } from './rest-fast-path.js';
import { createServerFactory } from './server-factory.js';
import { ExtensionWatcher } from './extension-watcher.js';
import { createAdminServer } from './admin.js';
import { collectProcessMetrics, gaugeAtScrape } from '../metrics.js';
import { ANALYZE_QUEUE, DELIVER_QUEUE, type CallsQueue } from '../calls/queue.js';
import { startTracing } from '../tracing.js';

export interface RunningHost {
  readonly baseUrl: string;
  readonly apiUrl: string;
  /** The admin listener's URL (ADMIN_PORT), null when it is off. */
  readonly adminUrl: string | null;
  readonly directory: ProjectDirectory;
  /**
   * Stops accepting, lets in-flight requests finish, closes pools. With `delayMs`, first drains for that
   * long: readiness answers 503 `draining` and every answer closes its connection while the listeners
   * still accept, so a load balancer stops sending before a connection is refused or reset.
   */
  close(options?: { readonly delayMs?: number }): Promise<void>;
}

export interface StartOptions {
  readonly log: Logger;
  /** The runtime's public entry, handed to generated code. */
  readonly runtime: Readonly<Record<string, unknown>>;
  readonly drainTimeoutMs?: number;
  /** A project without requests for this long is unloaded (default PROJECT_IDLE_MS). */
  readonly projectIdleMs?: number;
  /** Given: a project's generated code is brought in line with its live schema before it is served (missing code, DDL). */
  readonly code?: CodeSync;
}

/** Pool, budget, project and queue gauges, read at scrape time (nothing on the request path). */
function registerGauges(directory: ProjectDirectory, pools: ClusterPools, queue: CallsQueue): void {
  collectProcessMetrics();
  gaugeAtScrape('gantry_projects_loaded', 'Projects this host serves now', [], (set) => set({}, directory.refs().length));
  gaugeAtScrape('gantry_connection_budget', 'The connection budgets (DB_MAX_CONNECTIONS, each cluster\'s): permits in use, waiting, in all, clusters together', ['state'], (set) => {
    const budgets = pools.budgets();
    const sum = (value: (budget: ConnectionBudget) => number): number => budgets.reduce((total, budget) => total + value(budget), 0);
    set({ state: 'in_use' }, sum((budget) => budget.stats().inUse));
    set({ state: 'waiting' }, sum((budget) => budget.stats().waiting));
    set({ state: 'capacity' }, sum((budget) => budget.capacity));
  });
  gaugeAtScrape('gantry_project_connections', 'Budget permits (PostgreSQL connections) each loaded project holds', ['ref'], (set) => {
    for (const ref of directory.refs()) set({ ref }, pools.budgetFor(ref).heldBy(ref));
  });
  gaugeAtScrape('gantry_calls_queue_depth', 'Call-analysis jobs waiting, by queue', ['queue'], async (set) => {
    for (const name of [ANALYZE_QUEUE, DELIVER_QUEUE]) set({ queue: name }, await queue.depth(name));
  });
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The answer closes its keep-alive connection after it (Node honours the header): the client reconnects, to another host. */
function closeAfterAnswer(res: http.ServerResponse): void {
  res.setHeader('Connection', 'close');
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Applies TRUST_PROXY; express rejects what it cannot parse. Mounted routers and apps inherit it. */
function trustProxy(app: Express, value: GantryConfig['trustProxy']): void {
  try {
    app.set('trust proxy', value);
  } catch (error) {
    throw new ConfigError(`TRUST_PROXY: ${(error as Error).message}`);
  }
}

/** Starts the project host on HOST:PORT and the call-analysis listener on HOST:CALLS_PORT. */
export async function startHost(platform: Platform, options: StartOptions): Promise<RunningHost> {
  const { log } = options;
  // Before any request: the server spans need the SDK registered. Off (nothing loaded) unless an OTLP endpoint is set.
  const stopTracing = await startTracing(process.env);
  // First, so that an invalid TRUST_PROXY stops the start before anything runs.
  const callsApp = express();
  callsApp.disable('x-powered-by');
  trustProxy(callsApp, platform.config.trustProxy);
  const inFlight: InFlight = { count: 0 };
  let draining = false;
  let hostApp: Express | null = null;
  let restFastPath: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | null = null;
  const hostServer = http.createServer((req, res) => {
    if (draining) closeAfterAnswer(res);
    // Listening comes first (the bound port decides the default PUBLIC_URL); until the
    // projects are loaded every request is answered 503, not ready.
    if (!hostApp) {
      res.setHeader('X-Request-Id', requestIdOf(req));
      // Alive, not ready: a liveness probe must not restart a host that is still loading its projects.
      if (req.url === '/health/live') return sendJson(res, 200, { status: 'ok' });
      res.statusCode = 503;
      res.end();
      return;
    }
    if (restFastPath?.(req, res)) return;
    hostApp(req, res);
  });
  hostServer.keepAliveTimeout = 65_000;
  deferContinue(hostServer);
  hostServer.on('clientError', answerClientError);

  const calls = await startCallsService(platform, { settings: platform.config.calls, log });
  const readiness = drainableReadiness(createReadiness({
    database: () => platform.pool.query('SELECT 1'),
    queue: () => calls.context.queue.ping(),
  }), () => draining);
  const { speech } = platform.config.calls;
  // Which engines transcribe (the setting's, or the ones found installed): a deployment sees it before sending a call.
  const speechHealth = { engines: speech.engines.map((engine) => engine.kind), chosen_by: speech.chosenBy };
  callsApp.use(healthRoutes(readiness, () => ({ speech: speechHealth })));
  callsApp.use(createCallsApp(calls));
  const callsServer = http.createServer((req, res) => {
    if (draining) closeAfterAnswer(res);
    callsApp(req, res);
  });
  deferContinue(callsServer);

  const port = await listen(hostServer, platform.config.port, platform.config.host);
  const callsPort = await listen(callsServer, platform.config.callsPort, platform.config.host);
  const baseUrl = urlOf(platform.config.host, port);
  // Links in e-mails default to where the host really listens (PORT may be 0).
  const config: GantryConfig = platform.config.publicUrlSet ? platform.config : { ...platform.config, publicUrl: baseUrl };

  // The directory decides which project gives its connections up; it needs the pools, which need each cluster's budget.
  let reclaim = (_forRef: string): void => undefined;
  const pools = new ClusterPools((cluster) => {
    const declared = config.clusters.find((c) => c.name === cluster);
    const budget = new ConnectionBudget(connectionBudgetLimits(declared?.maxConnections ?? config.dbMaxConnections), (forRef) => reclaim(forRef));
    // Behind a pooler (a direct URL given) statements go unnamed, as DB_PREPARED_STATEMENTS defaults for the main cluster.
    return new ProjectPools(budget, declared ? declared.directUrl === null : platform.config.preparedStatements);
  }, DEFAULT_CLUSTER);
  const loaded = new ProjectDirectory(platform, pools, createServerFactory(config.generatedDir, options.runtime, log, config.extensionsDir), log, options.code ?? null, config, { idleMs: options.projectIdleMs });
  reclaim = (forRef) => loaded.reclaim(forRef);
  await loaded.start();
  // Edited extensions of a served project are loaded like regenerated code: a broken edit keeps the served version.
  const extensions = new ExtensionWatcher(config.extensionsDir, (ref) => {
    if (loaded.refs().includes(ref)) void loaded.reload(ref);
  }, log);
  const envelope = new RequestEnvelope(log, inFlight);
  hostApp = createHostApp(loaded, envelope, readiness);
  registerGauges(loaded, pools, calls.context.queue);
  const adminServer = config.adminPort === null ? null : createAdminServer({ directory: loaded, readiness, connectionsOf: (ref) => pools.budgetFor(ref).heldBy(ref) });
  const adminPort = adminServer && (await listen(adminServer, config.adminPort!, config.adminHost));
  trustProxy(hostApp, platform.config.trustProxy);
  restFastPath = createRestFastPath(loaded, envelope);

  let closing: Promise<void> | null = null;
  const close = async (delayMs: number): Promise<void> => {
    draining = true;
    if (delayMs > 0) {
      log.info({ delay_ms: delayMs }, 'draining: readiness answers 503 while requests are still served');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    const drainUntil = Date.now() + (options.drainTimeoutMs ?? 10_000);
    adminServer?.close();
    adminServer?.closeAllConnections();
    const stopped = Promise.all([hostServer, callsServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    hostServer.closeIdleConnections();
    callsServer.closeIdleConnections();
    while (inFlight.count > 0 && Date.now() < drainUntil) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      hostServer.closeIdleConnections();
    }
    hostServer.closeAllConnections();
    callsServer.closeAllConnections();
    await stopped;
    await calls.close();
    await extensions.close();
    for (const budget of pools.budgets()) budget.close();
    await loaded.close();
    // Last: the spans of the requests that drained are exported before the process ends.
    await stopTracing?.().catch((error: unknown) => log.warn({ err: error }, 'trace export failed at shutdown'));
  };

  return {
    baseUrl,
    apiUrl: urlOf(config.host, callsPort),
    adminUrl: adminPort === null ? null : urlOf(config.adminHost, adminPort),
    directory: loaded,
    close: (closeOptions) => (closing ??= close(closeOptions?.delayMs ?? 0)),
  };
}

import path from 'node:path';
import type { Logger } from 'pino';
import * as runtime from '../../runtime/index.js';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { startHost } from '../../runtime/host/start.js';
import { ProjectError } from '../../runtime/platform/bootstrap.js';
import { projectKeys } from '../../runtime/platform/keys.js';
import type { ClusterEvent } from '../../runtime/platform/cluster.js';
import { Platform, type ProjectRecord } from '../../runtime/platform/platform.js';
import { codeSync, generateProject } from '../generate.js';
import { createProjectWithHistory } from '../migrations/create.js';
import { copyMigrations, listLocalMigrations } from '../migrations/local-files.js';

export const DEMO_REF = 'demo';
/** The demo's committed history, copied into GANTRY_MIGRATIONS_DIR when that is elsewhere and has none. */
const builtInMigrations = path.resolve(import.meta.dirname, '../../migrations');

function reportCluster(log: Logger, event: ClusterEvent): void {
  if (event.kind === 'postmaster-died') log.error({ pid: event.pid }, 'embedded PostgreSQL died; restarting it');
  else if (event.kind === 'restarted') log.warn({ pid: event.pid, port: event.port, downMs: event.downMs }, 'embedded PostgreSQL restarted');
  else log.error({ err: event.error }, 'embedded PostgreSQL could not be restarted yet; retrying');
}

/**
 * The demo project of a first run. Two hosts starting at once on one database both find it missing:
 * the one that loses the race waits for the winner to register it and serves that (its code is
 * generated on the first request).
 */
async function createDemo(platform: Platform, log: Logger): Promise<ProjectRecord> {
  log.info('creating the demo project');
  try {
    const { migrationsDir } = platform.config;
    if ((await listLocalMigrations(migrationsDir, DEMO_REF)).length === 0) {
      await copyMigrations(migrationsDir, DEMO_REF, await listLocalMigrations(builtInMigrations, DEMO_REF));
    }
    const { record: demo } = await createProjectWithHistory(platform, { ref: DEMO_REF, schemaFiles: [] });
    await generateProject(platform, demo);
    return demo;
  } catch (error) {
    if (!(error instanceof ProjectError && error.code === 'project_exists')) throw error;
    // The winner registers the demo once its schema is in: wait for that.
    for (let waited = 0; waited < 120_000; waited += 200) {
      const existing = await platform.getProject(DEMO_REF);
      if (existing) return existing;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw error;
  }
}

/** `gantry serve`: both listeners, the demo project on first run, clean shutdown on SIGINT/SIGTERM. */
export async function serveCommand(_args: string[]): Promise<number> {
  const config = loadConfig();
  const log = createLogger();
  const platform = await Platform.open(config, { supervise: (event) => reportCluster(log, event) });
  const demo = (await platform.getProject(DEMO_REF)) ?? (await createDemo(platform, log));
  const host = await startHost(platform, {
    log,
    runtime,
    code: codeSync(platform),
  });
  // The demo's URL on the port bound (PORT=0 picks one).
  const keys = { ...projectKeys(config, demo), url: `${host.baseUrl}/v1/${DEMO_REF}` };
  const { cluster } = platform;
  process.stdout.write(
    [
      `Gantry is up`,
      `  base_url:    ${host.baseUrl}`,
      `  api_url:     ${host.apiUrl}`,
      `  demo url:    ${keys.url}`,
      `  anon_key:    ${keys.anon_key}`,
      `  service_key: ${keys.service_key}`,
      // As root, the postgres user may not reach GANTRY_HOME: say where the data went instead.
      ...(cluster.relocated ? [`  database:    ${cluster.dataDir} (the postgres user cannot reach ${config.gantryHome})`] : []),
      '',
    ].join('\n'),
  );

  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      void host
        .close()
        .then(() => platform.close())
        .then(
          () => resolve(0),
          (error: unknown) => {
            log.error({ err: error }, 'shutdown failed');
            resolve(1);
          },
        );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

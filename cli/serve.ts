import path from 'node:path';
import type { Logger } from 'pino';
import * as runtime from '../runtime/index.js';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { startHost } from '../runtime/host/start.js';
import { ProjectError } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import type { ClusterEvent } from '../runtime/platform/cluster.js';
import { Platform, type ProjectRecord } from '../runtime/platform/platform.js';
import { codeSync, generateProject } from '../generator/generate.js';
import { createProjectWithHistory } from '../generator/migrations/create.js';
import { copyMigrations, listLocalMigrations } from '../generator/migrations/local-files.js';
import { applyDeclaredSettings } from '../generator/settings/apply.js';

function reportCluster(log: Logger, event: ClusterEvent): void {
  if (event.kind === 'postmaster-died') log.error({ pid: event.pid }, 'embedded PostgreSQL died; restarting it');
  else if (event.kind === 'restarted') log.warn({ pid: event.pid, port: event.port, downMs: event.downMs }, 'embedded PostgreSQL restarted');
  else log.error({ err: event.error }, 'embedded PostgreSQL could not be restarted yet; retrying');
}

/**
 * A project gantry.toml declares and the registry does not hold yet (the first `serve` of a clone, as
 * `supabase start` applies the committed migrations): created from its committed history. With the
 * migrations folder moved elsewhere (GANTRY_MIGRATIONS_DIR, or beside GANTRY_GENERATED_DIR) and empty,
 * the root's own `migrations/<ref>/` is copied there first. Two hosts starting at once on one database
 * both find it missing: the one that loses the race waits for the winner to register it.
 */
async function createDeclared(platform: Platform, ref: string, log: Logger): Promise<ProjectRecord> {
  log.info({ ref }, 'creating a project gantry.toml declares');
  try {
    const { migrationsDir, root, configFile } = platform.config;
    const committed = path.join(root, configFile?.paths.migrations ?? 'migrations');
    if (path.resolve(committed) !== path.resolve(migrationsDir) && (await listLocalMigrations(migrationsDir, ref)).length === 0) {
      await copyMigrations(migrationsDir, ref, await listLocalMigrations(committed, ref));
    }
    const { record } = await createProjectWithHistory(platform, { ref, schemaFiles: [] });
    await generateProject(platform, record);
    return record;
  } catch (error) {
    if (!(error instanceof ProjectError && error.code === 'project_exists')) throw error;
    for (let waited = 0; waited < 120_000; waited += 200) {
      const existing = await platform.getProject(ref);
      if (existing) return existing;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw error;
  }
}

/** The projects gantry.toml declares, each created first when missing and given the settings the file declares; none without the file. */
async function declaredProjects(platform: Platform, log: Logger): Promise<ProjectRecord[]> {
  const records: ProjectRecord[] = [];
  for (const { ref } of platform.config.configFile?.projects ?? []) {
    const record = (await platform.getProject(ref)) ?? (await createDeclared(platform, ref, log));
    // The host's code sync then generates for a new api.schemas, and leaves code git tracks as committed.
    const applied = await applyDeclaredSettings(platform, ref, process.env, { regenerate: false });
    if (applied !== null && applied.changed.length > 0) log.info({ ref, settings: applied.changed.map((c) => c.key) }, 'applied settings from gantry.toml');
    records.push(record);
  }
  return records;
}

/**
 * `gantry serve`: both listeners, every project of the registry, the projects gantry.toml declares
 * created on first run (Gantry's own repository declares its demo; nothing else creates one), clean
 * shutdown on SIGINT/SIGTERM.
 */
export async function serveCommand(_args: string[]): Promise<number> {
  const config = loadConfig();
  const log = createLogger();
  const platform = await Platform.open(config, { supervise: (event) => reportCluster(log, event) });
  const declared = await declaredProjects(platform, log);
  const host = await startHost(platform, {
    log,
    runtime,
    code: codeSync(platform, (ref, message) => log.warn({ ref }, message)),
  });
  const { cluster } = platform;
  process.stdout.write(
    [
      `Gantry is up`,
      `  base_url:    ${host.baseUrl}`,
      `  api_url:     ${host.apiUrl}`,
      // Each declared project's URL on the port bound (PORT=0 picks one).
      ...declared.flatMap((record) => {
        const keys = projectKeys(config, record);
        return [`  ${record.ref} url:${' '.repeat(Math.max(1, 8 - record.ref.length))}${host.baseUrl}/v1/${record.ref}`, `  anon_key:    ${keys.anon_key}`, `  service_key: ${keys.service_key}`];
      }),
      ...(config.configFile === null ? [`  no gantry.toml in ${config.root} or above: \`npx gantry init <ref>\` declares a project`] : []),
      // As root, the postgres user may not reach GANTRY_HOME: say where the data went instead.
      ...(cluster.relocated ? [`  database:    ${cluster.dataDir} (the postgres user cannot reach ${config.gantryHome})`] : []),
      '',
    ].join('\n'),
  );

  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      // SIGTERM is the orchestrator's (systemd, Kubernetes, a rolling release): drain first. SIGINT is a developer's Ctrl-C.
      void host
        .close({ delayMs: signal === 'SIGTERM' ? config.shutdownDelayMs : 0 })
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

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { startHost, type RunningHost } from '../runtime/host/start.js';
import * as runtime from '../runtime/index.js';
import { Platform } from '../runtime/platform/platform.js';

export interface InProcessHost {
  readonly platform: Platform;
  readonly host: RunningHost;
  /** Stops the host and the platform and removes the temporary GANTRY_HOME. */
  close(): Promise<void>;
}

/**
 * A platform and a host in this process, on DATABASE_URL or an embedded cluster in a
 * temporary GANTRY_HOME, on ephemeral ports: what a bench that drives the host over HTTP needs.
 */
export async function startInProcessHost(prefix: string): Promise<InProcessHost> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const env: Record<string, string> = {
    GANTRY_HOME: home,
    GANTRY_GENERATED_DIR: path.join(home, 'generated'),
    HOST: '127.0.0.1',
    PORT: '0',
    CALLS_PORT: '0',
    LOG_LEVEL: 'silent',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const platform = await Platform.open(loadConfig(env));
  const host = await startHost(platform, { log: createLogger('silent'), runtime });
  return {
    platform,
    host,
    async close() {
      await host.close();
      await platform.close();
      await fs.rm(home, { recursive: true, force: true });
    },
  };
}

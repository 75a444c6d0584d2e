import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from 'pino';
import type { Platform } from '../platform/platform.js';
import { createHostApp, type InFlight } from './app.js';
import { sendJson } from './json-response.js';
import { ProjectPools } from './pools.js';
import { ProjectDirectory, type Regenerate } from './project-directory.js';
import { createServerFactory } from './server-factory.js';

export interface RunningHost {
  readonly baseUrl: string;
  readonly apiUrl: string;
  readonly directory: ProjectDirectory;
  /** Stops accepting, lets in-flight requests finish, closes pools. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly log: Logger;
  /** The runtime's public entry, handed to generated code. */
  readonly runtime: Readonly<Record<string, unknown>>;
  readonly drainTimeoutMs?: number;
  /** Given: a schema changed behind the host's back (DDL) is regenerated and served. */
  readonly regenerate?: Regenerate;
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

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Starts the project host on HOST:PORT and the call-analysis listener on HOST:CALLS_PORT. */
export async function startHost(platform: Platform, options: StartOptions): Promise<RunningHost> {
  const { config } = platform;
  const { log } = options;
  const pools = new ProjectPools();
  const directory = new ProjectDirectory(platform, pools, createServerFactory(config.generatedDir, options.runtime, log), log, options.regenerate ?? null);
  await directory.start();

  const inFlight: InFlight = { count: 0 };
  const hostServer = http.createServer(createHostApp(directory, log, inFlight));
  hostServer.keepAliveTimeout = 65_000;

  const callsApp = express();
  callsApp.disable('x-powered-by');
  callsApp.get('/health', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  const callsServer = http.createServer(callsApp);

  const port = await listen(hostServer, config.port, config.host);
  const callsPort = await listen(callsServer, config.callsPort, config.host);

  let closing: Promise<void> | null = null;
  const close = async (): Promise<void> => {
    const drainUntil = Date.now() + (options.drainTimeoutMs ?? 10_000);
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
    await directory.close();
  };

  return {
    baseUrl: urlOf(config.host, port),
    apiUrl: urlOf(config.host, callsPort),
    directory,
    close: () => (closing ??= close()),
  };
}

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { inject } from 'vitest';
import { createCallsApp, startCallsService, type CallsService } from '../../../runtime/calls/app.js';
import type { Resolver } from '../../../runtime/outbound/guarded-request.js';
import { createApiKey } from '../../../runtime/calls/keys.js';
import { createLogger } from '../../../runtime/logger.js';
import { Platform, PLATFORM_DATABASE } from '../../../runtime/platform/platform.js';
import { testConfig } from '../platform.js';
import { referenceCall, synthesize } from './synth.js';
import { encodeWav } from './wav-writer.js';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read whatever field they assert on; the shape is what is under test.
  readonly body: any;
}

export interface RequestOptions {
  readonly key?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface CallsHarness {
  readonly platform: Platform;
  readonly service: CallsService;
  readonly apiUrl: string;
  readonly env: Record<string, string>;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  newTenant(): Promise<{ tenant: string; key: string; keyId: string }>;
  waitForCall(key: string, id: string, statuses?: readonly string[], timeoutMs?: number): Promise<ApiResponse>;
  close(options?: { dropQueue?: boolean }): Promise<void>;
}

/** `host` another loopback address (Linux answers on all of 127/8) when a test needs two distinct local hosts. */
export function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, host, () => resolve({ server, url: `http://${host}:${(server.address() as AddressInfo).port}` }));
  });
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Environment of a calls test service: its own pg-boss schema, fast polling and retries, private
 * URLs allowed, the energy VAD (the recordings these tests serve are tones: TONE_ANALYSIS) and no
 * speech engine unless a test names one (a served host would use an installed PocketSphinx).
 */
export function callsEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    CALLS_VAD: 'energy',
    CALLS_SPEECH_ENGINES: 'none',
    CALLS_QUEUE_SCHEMA: `pgboss_t${randomBytes(5).toString('hex')}`,
    CALLS_ALLOW_PRIVATE_URLS: 'true',
    CALLS_POLL_SECONDS: '0.5',
    CALLS_JOB_RETRY_DELAY_SECONDS: '0',
    CALLS_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
    CALLS_RATE_LIMIT_PER_MINUTE: '1000',
    ...overrides,
  };
}

/** Drops a test's pg-boss schema once nothing uses it any more (for hosts the harness did not start). */
export async function dropQueueSchema(schema: string): Promise<void> {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${PLATFORM_DATABASE}`;
  const client = new pg.Client(url.toString());
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

/** The calls service and its API on an ephemeral port, over the suite's PostgreSQL. */
export async function startCallsHarness(env: Record<string, string>, options: { resolve?: Resolver; now?: () => Date } = {}): Promise<CallsHarness> {
  const config = await testConfig(env);
  const platform = await Platform.open(config);
  const service = await startCallsService(platform, { settings: config.calls, log: createLogger('silent'), ...options });
  const { server, url: apiUrl } = await listen(createCallsApp(service));

  const request = async (method: string, path: string, { key, body, headers = {} }: RequestOptions = {}): Promise<ApiResponse> => {
    const init: RequestInit = { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(apiUrl + path, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  return {
    platform,
    service,
    apiUrl,
    env,
    request,
    async newTenant() {
      const tenant = `tenant_${randomBytes(5).toString('hex')}`;
      const created = await createApiKey(platform.pool, tenant);
      return { tenant, key: created.key, keyId: created.id };
    },
    async waitForCall(key, id, statuses = ['completed', 'failed'], timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const response = await request('GET', `/v1/calls/${id}`, { key });
        if (statuses.includes(response.body?.status) || Date.now() > until) return response;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close({ dropQueue = true } = {}) {
      await closeServer(server);
      await service.close();
      if (dropQueue) await platform.pool.query(`DROP SCHEMA IF EXISTS ${env.CALLS_QUEUE_SCHEMA} CASCADE`);
      await platform.close();
    },
  };
}

export const REFERENCE_WAV = Buffer.from(encodeWav(synthesize(referenceCall(8000)), 8000, 's16'));

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface ReceivedHook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A local webhook receiver; `plan(path)` answers each request to a path with the next planned status (default 200). */
export async function startReceiver(): Promise<{ url: string; received: ReceivedHook[]; plan(path: string, statuses: number[]): void; close(): Promise<void> }> {
  const received: ReceivedHook[] = [];
  const plans = new Map<string, number[]>();
  const { server, url } = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = plans.get(path)?.shift() ?? 200;
      res.statusCode = status;
      res.end(status >= 400 ? 'nope' : 'ok');
    });
  });
  return { url, received, plan: (path, statuses) => plans.set(path, statuses), close: () => closeServer(server) };
}

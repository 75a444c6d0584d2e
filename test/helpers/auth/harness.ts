import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { createAuthRouter, type AuthRouterOptions } from '../../../runtime/auth/router.js';
import { buildKeyring } from '../../../runtime/tokens/keyring.js';
import { RlsExecutor } from '../../../runtime/db/rls-transaction.js';
import type { ProjectContext, ProjectSettings } from '../../../runtime/platform/project-context.js';
import type { Platform, ProjectRecord } from '../../../runtime/platform/platform.js';
import { Platform as PlatformClass } from '../../../runtime/platform/platform.js';
import { resolveSettings } from '../../../runtime/platform/settings.js';
import { createTestProject, testConfig } from '../platform.js';
import { SmtpCapture } from './smtp-capture.js';

/** A movable clock: tests jump it forward to expire tokens. */
export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

export interface CallOptions {
  readonly body?: unknown;
  readonly rawBody?: string;
  /** Key sent as `apikey` (default: the anon key); null sends none. */
  readonly apikey?: string | null;
  readonly bearer?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface CallResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly text: string;
}

export interface AuthProject {
  readonly ref: string;
  readonly record: ProjectRecord;
  /** `{base}/v1/<ref>`, what supabase-js is created with. */
  readonly projectUrl: string;
  /** `{base}/v1/<ref>/auth/v1`. */
  readonly authUrl: string;
  readonly anonKey: string;
  readonly serviceKey: string;
  readonly clock: TestClock;
  /** Superuser pool on the project database, for asserting rows. */
  readonly db: pg.Pool;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
}

export interface ProjectOptions {
  readonly autoconfirm?: boolean;
  readonly reuseInterval?: number;
  /** Other settings, e.g. rate limits; defaults as for a new project. */
  readonly settings?: Partial<ProjectSettings>;
  readonly passwords?: AuthRouterOptions['passwords'];
  /** AUTH_ALLOW_PRIVATE_PROVIDER_URLS for this project's host: an OAuth provider on loopback (the test's). */
  readonly allowPrivateProviderUrls?: boolean;
}

const quietLog = { info: () => undefined, error: () => undefined };

/**
 * The auth router of throwaway projects mounted as the host mounts it, on a real
 * HTTP server, with a real SMTP server catching the mail and an injectable clock.
 */
export class AuthSuite {
  private readonly servers: http.Server[] = [];
  private readonly pools: pg.Pool[] = [];
  private readonly executors: RlsExecutor[] = [];

  private constructor(
    readonly platform: Platform,
    readonly smtp: SmtpCapture,
  ) {}

  static async open(): Promise<AuthSuite> {
    const platform = await PlatformClass.open(await testConfig());
    return new AuthSuite(platform, await SmtpCapture.start());
  }

  async project(options: ProjectOptions = {}): Promise<AuthProject> {
    const { record, keys } = await createTestProject(this.platform, { autoconfirm: options.autoconfirm ?? false });
    return this.mount(record, keys, options);
  }

  /** Another server (own pools, own router) for the same project: a second process sharing its database. */
  async mirror(project: AuthProject, options: ProjectOptions = {}): Promise<AuthProject> {
    return this.mount(project.record, { anon_key: project.anonKey, service_key: project.serviceKey }, options);
  }

  private async mount(
    record: ProjectRecord,
    keys: { readonly anon_key: string; readonly service_key: string },
    options: ProjectOptions,
  ): Promise<AuthProject> {
    const admin = new pg.Pool({ connectionString: this.platform.cluster.urlFor(record.databaseName), max: 6 });
    const executor = new RlsExecutor(this.platform.authenticatorUrl(record.databaseName), { shared: 1, pooled: 1 });
    const db = new pg.Pool({ connectionString: this.platform.cluster.urlFor(record.databaseName), max: 2 });
    this.pools.push(admin, db);
    this.executors.push(executor);

    const app = express();
    app.set('query parser', 'simple');
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const settings: ProjectSettings = {
      ...resolveSettings({}),
      'auth.autoconfirm': options.autoconfirm ?? false,
      'auth.refresh_reuse_interval': options.reuseInterval ?? 0,
      ...options.settings,
    };
    const ctx: ProjectContext = {
      ref: record.ref,
      jwtSecret: record.jwtSecret,
      keyring: buildKeyring(record.jwtSecret, record.signingKeys, settings['auth.signing_alg']),
      settings,
      executor,
      adminPool: admin,
      config: { ...this.platform.config, authAllowPrivateProviderUrls: options.allowPrivateProviderUrls ?? false, publicUrl: base, smtpUrl: this.smtp.url, smtpFrom: 'auth@gantry.test' },
    };
    const clock = new TestClock();
    app.use(`/v1/${record.ref}/auth/v1`, createAuthRouter(ctx, { now: clock.now, log: quietLog, passwords: options.passwords }));

    const authUrl = `${base}/v1/${record.ref}/auth/v1`;
    const anonKey = keys.anon_key;
    return {
      ref: record.ref,
      record,
      projectUrl: `${base}/v1/${record.ref}`,
      authUrl,
      anonKey,
      serviceKey: keys.service_key,
      clock,
      db,
      async call(method, path, callOptions = {}) {
        const headers: Record<string, string> = { ...callOptions.headers };
        const apikey = callOptions.apikey === undefined ? anonKey : callOptions.apikey;
        if (apikey !== null) headers.apikey = apikey;
        if (callOptions.bearer !== undefined) headers.authorization = `Bearer ${callOptions.bearer}`;
        let body: string | undefined = callOptions.rawBody;
        if (callOptions.body !== undefined) {
          body = JSON.stringify(callOptions.body);
          headers['content-type'] = 'application/json';
        }
        const response = await fetch(`${authUrl}${path}`, { method, headers, body, redirect: 'manual' });
        const text = await response.text();
        let parsed: unknown = text;
        if ((response.headers.get('content-type') ?? '').includes('application/json')) parsed = JSON.parse(text);
        return { status: response.status, headers: response.headers, body: parsed, text };
      },
    };
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await Promise.all([...this.pools.map((pool) => pool.end()), ...this.executors.map((executor) => executor.close())]);
    await this.smtp.close();
    await this.platform.close();
  }
}

export function decodeJwt(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export interface FollowedRedirect {
  readonly status: number;
  /** The Location without its fragment. */
  readonly target: string;
  readonly fragment: URLSearchParams;
}

/** Opens a mail link without following its redirect: where it points and what its fragment carries. */
export async function followToFragment(link: URL): Promise<FollowedRedirect> {
  const res = await fetch(link, { redirect: 'manual' });
  const location = new URL(res.headers.get('location') ?? 'about:blank');
  return { status: res.status, target: `${location.origin}${location.pathname}`, fragment: new URLSearchParams(location.hash.slice(1)) };
}

let counter = 0;
export function uniqueEmail(label = 'user'): string {
  counter += 1;
  return `${label}.${process.pid}.${counter}.${Date.now()}@example.com`;
}

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import * as runtime from '../../runtime/index.js';
import { loadConfig, type GantryConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { startHost, type RunningHost } from '../../runtime/host/start.js';
import type { CodeSync } from '../../runtime/host/project-directory.js';
import type { AccessTokenAlg } from '../../runtime/tokens/keyring.js';
import { codeSync, generateProject } from '../../generator/generate.js';
import { listLocalMigrations } from '../../generator/migrations/local-files.js';
import { createProject } from '../../runtime/platform/bootstrap.js';
import { projectKeys, type ProjectKeys } from '../../runtime/platform/keys.js';
import { Platform, type ProjectRecord } from '../../runtime/platform/platform.js';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

/**
 * Environment for a Gantry process of the test run: the suite's cluster, its own
 * GANTRY_HOME and generated/ folder (so throwaway projects never touch the repo's),
 * ephemeral ports.
 */
export async function testEnv(overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-test-'));
  return {
    DATABASE_URL: inject('databaseUrl'),
    GANTRY_HOME: home,
    GANTRY_GENERATED_DIR: path.join(home, 'generated'),
    HOST: '127.0.0.1',
    PORT: '0',
    CALLS_PORT: '0',
    LOG_LEVEL: 'silent',
    ...overrides,
  };
}

export async function testConfig(overrides: Record<string, string> = {}): Promise<GantryConfig> {
  return loadConfig(await testEnv(overrides));
}

export function randomRef(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export interface TestProject {
  readonly record: ProjectRecord;
  readonly keys: ProjectKeys;
  /** `{base_url}/v1/<ref>` on the running test host, when one was given. */
  readonly url: string;
}

/** Creates a throwaway project from SQL text; with `generate`, also its generated code. */
export async function createTestProject(
  platform: Platform,
  options: { sql?: string; ref?: string; autoconfirm?: boolean; host?: RunningHost; generate?: boolean; signingAlg?: AccessTokenAlg; cluster?: string } = {},
): Promise<TestProject> {
  const record = await createProject(platform, {
    ref: options.ref ?? randomRef(),
    schemaFiles: options.sql ? [{ name: 'test.sql', sql: options.sql }] : [],
    autoconfirm: options.autoconfirm,
    signingAlg: options.signingAlg,
    cluster: options.cluster,
  });
  if (options.generate) await generateProject(platform, record);
  const keys = projectKeys(platform.config, record);
  const url = options.host ? `${options.host.baseUrl}/v1/${record.ref}` : keys.url;
  if (options.host) await options.host.directory.reload(record.ref);
  return { record, keys, url };
}

/** A file the generator wrote for a project (`generate: true`), as text. */
export function readGenerated(platform: Platform, project: TestProject, file: string): Promise<string> {
  return fs.readFile(path.join(platform.config.generatedDir, project.record.ref, file), 'utf8');
}

/** The demo project's committed migrations (migrations/demo/), in order, as one SQL text. */
export async function demoSchemaSql(): Promise<string> {
  return (await listLocalMigrations(path.join(repoRoot, 'migrations'), 'demo')).map((m) => m.sql).join('\n');
}

/** A schema of test/fixtures/schemas/, as SQL text. */
export function fixtureSchema(name: string): Promise<string> {
  return fs.readFile(path.join(repoRoot, 'test/fixtures/schemas', name), 'utf8');
}

export interface TestHost {
  readonly platform: Platform;
  readonly host: RunningHost;
  /** The environment a CLI run must have to act on this host's projects. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A platform and a running host on ephemeral ports, in-process. Like `gantry serve`,
 * it brings a project's generated code in line with its live schema before serving it.
 */
export async function startTestHost(
  overrides: Record<string, string> = {},
  options: {
    projectIdleMs?: number;
    /** Another host's environment, to start it again on its GANTRY_HOME (overrides are then ignored). */
    env?: Record<string, string>;
    /** In place of the generator's code sync, e.g. one that counts introspections. */
    code?: (platform: Platform) => CodeSync;
    /** The host's logger (default: silent). */
    log?: Logger;
  } = {},
): Promise<TestHost> {
  const env = options.env ?? (await testEnv(overrides));
  const platform = await Platform.open(loadConfig(env));
  const host = await startHost(platform, {
    log: options.log ?? createLogger('silent'),
    runtime,
    projectIdleMs: options.projectIdleMs,
    code: (options.code ?? codeSync)(platform),
  }).catch(async (error: unknown) => {
    await platform.close();
    throw error;
  });
  return {
    platform,
    host,
    env,
    async close() {
      await host.close();
      await platform.close();
    },
  };
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command in its own process with exactly `env`, collecting what it prints. */
export function runProcess(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs `bin/gantry.mjs` as a user would, in its own process. */
export function runCli(args: readonly string[], env: Record<string, string>, cwd = repoRoot): Promise<CliResult> {
  return runProcess(process.execPath, [path.join(repoRoot, 'bin/gantry.mjs'), ...args], cwd, { ...process.env, ...env });
}

import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { generateProject } from '../../generator/generate.js';
import { createTestProject, repoRoot, startTestHost, type TestHost, type TestProject } from './platform.js';

/** The extension fixture of the extension tests (test/e2e/extensions) as a project's `extensions/<ref>/index.ts` would hold it. */
export async function blogExtension(ref: string): Promise<string> {
  const text = await fs.readFile(path.join(repoRoot, 'test/fixtures/extensions/blog.ts.txt'), 'utf8');
  return text.replaceAll('__RUNTIME__', path.join(repoRoot, 'runtime/index.js')).replaceAll('__REF__', ref);
}

export function extensionFile(host: TestHost, ref: string, file = 'index.ts'): string {
  return path.join(host.platform.config.extensionsDir, ref, file);
}

export async function writeExtension(host: TestHost, ref: string, text: string, file = 'index.ts'): Promise<void> {
  await writeExtensionIn(host.platform.config.extensionsDir, ref, text, file);
}

/** Writes `<extensionsDir>/<ref>/<file>`, as a developer saves it (also for a `gantry serve` process's home). */
export async function writeExtensionIn(extensionsDir: string, ref: string, text: string, file = 'index.ts'): Promise<void> {
  const target = path.join(extensionsDir, ref, file);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.writeFile(target, text);
}

/** An in-process host serving the blog fixture project with its extension loaded. */
export async function blogProject(): Promise<{ host: TestHost; project: TestProject }> {
  const host = await startTestHost();
  const sql = await fs.readFile(path.join(repoRoot, 'test/fixtures/schemas/extensions.sql'), 'utf8');
  const project = await createTestProject(host.platform, { host: host.host, sql, generate: true });
  await writeExtension(host, project.record.ref, await blogExtension(project.record.ref));
  // As a developer does after writing an extension: regenerate, so openapi.json and api.d.ts document its routes.
  await generateProject(host.platform, project.record);
  await host.host.directory.reload(project.record.ref);
  return { host, project };
}

/** What the fixture's afterCommit effects delivered in this process. */
export function sentEffects(): string[] {
  return ((globalThis as { __gantrySent?: string[] }).__gantrySent ??= []);
}

/** A query as the superuser, past RLS and hooks. */
export async function superuser<R extends pg.QueryResultRow>(host: TestHost, project: TestProject, sql: string): Promise<R[]> {
  const client = new pg.Client(host.platform.cluster.urlFor(project.record.databaseName));
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

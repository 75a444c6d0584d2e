import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { GantryConfig } from '../runtime/config.js';
import type { Platform, ProjectRecord } from '../runtime/platform/platform.js';
import { emitProject } from './emit/project.js';
import { introspectProject } from './introspect/introspect.js';
import { writeGenerated, type WriteResult } from './write.js';

/**
 * Introspects the schemas the project exposes (its `api.schemas` setting) and writes
 * (or, with check, compares) `generated/<ref>/`.
 */
export async function generateProject(
  platform: Platform,
  record: ProjectRecord,
  options: { check?: boolean } = {},
): Promise<WriteResult> {
  const client = new pg.Client(platform.cluster.urlFor(record.databaseName));
  await client.connect();
  try {
    const model = await introspectProject(client, { schemas: record.settings['api.schemas'] });
    const files = emitProject(model, { ref: record.ref });
    return await writeGenerated(path.join(platform.config.generatedDir, record.ref), files, { check: options.check ?? false });
  } finally {
    await client.end();
  }
}

export async function removeGenerated(config: GantryConfig, ref: string): Promise<void> {
  await fs.rm(path.join(config.generatedDir, ref), { recursive: true, force: true });
}

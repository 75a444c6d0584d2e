import fs from 'node:fs/promises';
import path from 'node:path';
import { evaluateBundle } from '../platform/evaluate-bundle.js';
import type { ProjectDefinition } from '../rest/routes.js';

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(() => true, () => false);
}

/**
 * Loads a project's generated definition (metadata and route descriptors).
 * Returns null when the project has no generated code.
 */
export async function loadGeneratedDefinition(
  generatedDir: string,
  ref: string,
  runtime: Readonly<Record<string, unknown>>,
): Promise<ProjectDefinition | null> {
  const entry = path.join(generatedDir, ref, 'index.ts');
  if (!(await exists(entry))) return null;
  const { definition } = (await evaluateBundle(entry, runtime, `generated code for "${ref}"`)).exports as { definition?: ProjectDefinition };
  if (!definition || definition.ref !== ref) {
    throw new Error(`generated/${ref}/index.ts must export the definition of project "${ref}"`);
  }
  return definition;
}

/** How much of schema.json holds its fingerprint: the header fields come before the model, which may run to megabytes. */
const SNAPSHOT_HEAD_BYTES = 1024;

/**
 * The schema fingerprint of a project's generated code, or null without (readable) generated code. Read from the
 * head of its schema.json only: a host asks on every load, and the model after it grows with the schema.
 */
export async function generatedFingerprint(generatedDir: string, ref: string): Promise<string | null> {
  const handle = await fs.open(path.join(generatedDir, ref, 'schema.json')).catch(() => null);
  if (!handle) return null;
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNAPSHOT_HEAD_BYTES), 0, SNAPSHOT_HEAD_BYTES, 0);
    const head = buffer.subarray(0, bytesRead).toString('utf8');
    return /^\{\n {2}"generatedBy": [^\n]*\n {2}"fingerprint": "sha256:([0-9a-f]{64})",\n/.exec(head)?.[1] ?? null;
  } finally {
    await handle.close();
  }
}

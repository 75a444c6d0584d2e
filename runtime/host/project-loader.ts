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

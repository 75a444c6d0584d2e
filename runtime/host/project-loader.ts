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
  const { definition } = (await evaluateBundle(entry, runtime, `generated code for "${ref}"`)) as { definition?: ProjectDefinition };
  if (!definition || definition.ref !== ref) {
    throw new Error(`generated/${ref}/index.ts must export the definition of project "${ref}"`);
  }
  return definition;
}

/** What a committed `schema.json` tells without a database (generator/emit/schema-snapshot.ts writes it). */
export interface SnapshotFacts {
  /** sha256 (hex) of the normalised model: the one place generated code names its schema fingerprint. */
  readonly fingerprint: string;
  /** The exposed schemas (`api.schemas`), the default first: the one setting that changes what is generated. */
  readonly schemas: readonly string[];
}

/** The facts of a `schema.json` text; null when it is not one (unparsable, or without fingerprint or schemas). */
export function readSchemaSnapshot(text: string): SnapshotFacts | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const snapshot = parsed as { fingerprint?: unknown; model?: { schemas?: unknown } } | null;
  const fingerprint = typeof snapshot?.fingerprint === 'string' ? /^sha256:([0-9a-f]{64})$/.exec(snapshot.fingerprint)?.[1] : undefined;
  const schemas = snapshot?.model?.schemas;
  if (!fingerprint || !Array.isArray(schemas) || schemas.length === 0 || !schemas.every((s) => typeof s === 'string')) return null;
  return { fingerprint, schemas: schemas as string[] };
}

/** The schema fingerprint of a project's generated code (its schema.json), or null without (readable) generated code. */
export async function generatedFingerprint(generatedDir: string, ref: string): Promise<string | null> {
  const snapshot = await fs.readFile(path.join(generatedDir, ref, 'schema.json'), 'utf8').catch(() => null);
  return snapshot === null ? null : (readSchemaSnapshot(snapshot)?.fingerprint ?? null);
}

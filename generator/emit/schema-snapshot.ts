import { canonicalJson } from '../model/fingerprint.js';
import type { EmitContext } from './context.js';
import { schemaSnapshotText } from '../../runtime/generated-files.js';

/**
 * `schema.json`: the normalised model the code was generated from, for reviewers (schema changes show up as diffs)
 * and for checks without the project's registry: the host compares its fingerprint with the live schema's (reading
 * it from the file's head, runtime/generated-files.ts), and `gen --check` on a fresh checkout reads the exposed
 * schemas from it. The header is a pair of fields before the model; the fingerprint is the
 * sha256 of the model's canonical JSON, so this file changes whenever the fingerprint does and no other file needs
 * to carry it.
 */
export function emitSchemaSnapshot(context: EmitContext): string {
  return schemaSnapshotText(context.ref, context.fingerprint, JSON.parse(canonicalJson(context.model)) as unknown);
}

/**
 * The exposed schemas (`api.schemas`, the default first) a `schema.json` text records: the one setting that changes
 * what is generated, read by `gen --check` where no registry holds it. Null when the text is not a snapshot.
 */
export function readExposedSchemas(text: string): readonly string[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const schemas = (parsed as { model?: { schemas?: unknown } } | null)?.model?.schemas;
  if (!Array.isArray(schemas) || schemas.length === 0 || !schemas.every((s) => typeof s === 'string')) return null;
  return schemas as string[];
}

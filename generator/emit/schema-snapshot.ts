import { canonicalJson } from '../model/fingerprint.js';
import type { EmitContext } from './context.js';

/**
 * `schema.json`: the normalised model the code was generated from, for reviewers (schema changes show up as diffs)
 * and for checks without the project's registry: the host compares its fingerprint with the live schema's, and
 * `gen --check` on a fresh checkout reads the exposed schemas from it (runtime/host/project-loader.ts reads it). JSON has no comments, so the header is a
 * pair of fields around the model; the fingerprint is the sha256 of the model's canonical JSON, so this file
 * changes whenever the fingerprint does and no other file needs to carry it.
 */
export function emitSchemaSnapshot(context: EmitContext): string {
  const snapshot = {
    generatedBy: `Gantry, from the database of project "${context.ref}". Do not edit: run \`gantry gen ${context.ref}\`.`,
    fingerprint: `sha256:${context.fingerprint}`,
    model: JSON.parse(canonicalJson(context.model)) as unknown,
  };
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

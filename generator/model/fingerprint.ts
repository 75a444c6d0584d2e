import { createHash } from 'node:crypto';
import { compareCodePoints } from './sort.js';
import type { SchemaModel } from './types.js';

/**
 * JSON with object keys sorted by code point at every level, so the text (and the
 * fingerprint) depends only on the data, not on the order properties were assigned.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareCodePoints(a, b));
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [key, inner] of entries) out[key] = sortKeysDeep(inner);
    return out;
  }
  return value;
}

/** sha256 (hex) of the canonical JSON of the model: the schema fingerprint in every file header. */
export function schemaFingerprint(model: SchemaModel): string {
  return createHash('sha256').update(canonicalJson(model)).digest('hex');
}

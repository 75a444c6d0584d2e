import type { TypeRef } from '../model/types.js';

/**
 * Whether every value of `before` is a value of `after` and reads back as the same JSON, so
 * a client that writes and reads `before` values sees no difference. Only the widenings a
 * migration commonly makes are listed; any other type change counts as narrowing.
 */
export function isWidening(before: TypeRef, after: TypeRef): boolean {
  const from = typeName(before);
  const to = typeName(after);
  if (from.name === to.name && from.schema === to.schema) return lengthWidens(from.modifier, to.modifier);
  if (from.schema !== 'pg_catalog' || to.schema !== 'pg_catalog') return false;
  const targets = widerTypes[from.name];
  if (!targets?.includes(to.name)) return false;
  // numeric(p,s) narrows integers that do not fit p-s digits; only an unconstrained numeric takes them all.
  return to.name !== 'numeric' || to.modifier === null;
}

const integerTargets = ['numeric'];
const widerTypes: Readonly<Record<string, readonly string[]>> = {
  int2: ['int4', 'int8', ...integerTargets],
  int4: ['int8', ...integerTargets],
  int8: integerTargets,
  float4: ['float8'],
  varchar: ['text'],
};

interface TypeName {
  readonly schema: string;
  readonly name: string;
  /** The typmod text of `format_type`, `(10,2)` or `(20)`; null when unconstrained. */
  readonly modifier: string | null;
}

function typeName(type: TypeRef): TypeName {
  const modifier = /\(([^)]*)\)(?:\[\])*$/.exec(type.sql)?.[1] ?? null;
  return { schema: type.schema, name: type.name, modifier };
}

/** Same type: wider when the new modifier is absent, or every bound of the old one is at most the new one's. */
function lengthWidens(before: string | null, after: string | null): boolean {
  if (before === after || after === null) return true;
  if (before === null) return false;
  const a = before.split(',').map(Number);
  const b = after.split(',').map(Number);
  // numeric(p,s): the integer digits (p-s) and the scale must both grow or stay.
  if (a.length === 2 && b.length === 2) return b[0]! - b[1]! >= a[0]! - a[1]! && b[1]! >= a[1]!;
  return a.length === 1 && b.length === 1 && b[0]! >= a[0]!;
}

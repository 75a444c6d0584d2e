/**
 * Deepest nesting of arrays and objects a JSON body may have. Real documents stay far below
 * (Jackson stops at 1,000 levels, System.Text.Json at 64, serde_json at 128), and the bound
 * sits well under the first component that recurses per level, measured on Node 20 and
 * PostgreSQL 18: JSON.stringify overflows the stack near 4,100 levels (JSON.parse itself does
 * not recurse), jsonb input fails with 54001 (stack depth limit exceeded) past ~16,000 levels
 * and json input past ~21,000 at the default max_stack_depth of 2 MB.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `text` opens more than `max` arrays/objects at once: one pass, no recursion, brackets
 * inside strings skipped. Not a validator: JSON.parse still judges the syntax.
 */
export function jsonDepthExceeds(text: string, max: number = MAX_JSON_DEPTH): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

export type JsonTextProblem = 'syntax' | 'depth';

/** A JSON body that does not parse, or nests deeper than MAX_JSON_DEPTH. */
export class JsonTextError extends Error {
  override readonly name = 'JsonTextError';
  constructor(readonly problem: JsonTextProblem, message: string) {
    super(message);
  }
}

/** JSON.parse behind the depth bound; the bound is checked first, so a deep body costs one scan. */
export function parseJsonText(text: string): unknown {
  if (jsonDepthExceeds(text)) throw new JsonTextError('depth', `nesting is deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new JsonTextError('syntax', (error as Error).message);
  }
}

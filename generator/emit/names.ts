import { createHash } from 'node:crypto';

/**
 * How database names become file names and TypeScript syntax. Database names are
 * arbitrary (spaces, quotes, keywords, case variants that fold together), so every
 * name goes through here and nowhere is a name pasted into code unescaped.
 */

const identifierName = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Names a case-insensitive file system or Windows refuses as file names. */
const reservedFileNames = new Set([
  'con', 'prn', 'aux', 'nul',
  'com1', 'com2', 'com3', 'com4', 'com5', 'com6', 'com7', 'com8', 'com9',
  'lpt1', 'lpt2', 'lpt3', 'lpt4', 'lpt5', 'lpt6', 'lpt7', 'lpt8', 'lpt9',
]);

/** A double-quoted TypeScript/JSON string literal. */
export function stringLiteral(value: string): string {
  return JSON.stringify(value);
}

/**
 * A property key for type and object literals: bare when it is an identifier name
 * (keywords are fine as property names), quoted otherwise. `__proto__` is computed,
 * because as a plain key in an object literal it sets the prototype instead.
 */
export function propertyKey(name: string): string {
  if (name === '__proto__') return '["__proto__"]';
  return identifierName.test(name) ? name : stringLiteral(name);
}

/** `Database["public"]["Tables"]["x"]`-style access path. */
export function indexedAccess(root: string, keys: readonly string[]): string {
  return root + keys.map((key) => `[${stringLiteral(key)}]`).join('');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/**
 * The file name (without extension) of a table or function module. A lower-case
 * `[a-z0-9_]` name in the default schema is used as is; anything else (other schemas,
 * upper case, spaces, punctuation, device names) is folded to that alphabet and suffixed
 * with a hash of the exact name, so names that fold together (`Users`/`users`) stay
 * apart on case-insensitive file systems and adding one table never renames another.
 */
export function moduleFileBase(schema: string, name: string, defaultSchema: string): string {
  if (schema === defaultSchema && /^[a-z0-9_]{1,60}$/.test(name) && !reservedFileNames.has(name)) return name;
  return hashedFileBase(schema === defaultSchema ? name : `${schema}_${name}`, `${schema}.${name}`);
}

/**
 * The part of a file name that stands for an exposed schema (`openapi.<base>.json`):
 * a lower-case `[a-z0-9_]` name as is, anything else folded and hashed as module names
 * are. Never a device name on its own, as it always follows a prefix and a dot.
 */
export function schemaFileBase(schema: string): string {
  return /^[a-z0-9_]{1,60}$/.test(schema) ? schema : hashedFileBase(schema, schema);
}

/** `readable` folded to `[a-z0-9_]`, suffixed with a hash of `exact` so folded names stay apart. */
function hashedFileBase(readable: string, exact: string): string {
  const folded =
    readable
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/_+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 48) || 'x';
  return `${folded}-${shortHash(exact)}`;
}

/**
 * Allocates distinct TypeScript identifiers from file bases (which are already
 * distinct but may contain `-`), in the order they are asked for.
 */
export class IdentifierRegistry {
  private readonly used = new Set<string>();

  allocate(prefix: string, base: string): string {
    const stem = `${prefix}${base.replace(/[^A-Za-z0-9_$]/g, '_')}`;
    let candidate = stem;
    for (let n = 2; this.used.has(candidate); n++) candidate = `${stem}_${n}`;
    this.used.add(candidate);
    return candidate;
  }
}

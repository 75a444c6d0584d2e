import { compareCodePoints } from '../model/sort.js';
import { propertyKey, stringLiteral } from './names.js';

/**
 * A value printed as a TypeScript literal in the one house style of generated code:
 * two-space indent, double quotes, trailing commas in multi-line literals, short
 * arrays of primitives on one line.
 */
export type Printable = string | number | boolean | null | readonly Printable[] | { readonly [key: string]: Printable } | RawCode;

/** Code inserted verbatim (a reference to an imported constant, for instance). */
export class RawCode {
  constructor(readonly code: string) {}
}

export function raw(code: string): RawCode {
  return new RawCode(code);
}

/** Literals that fit in this many columns (indent included) stay on one line. */
const inlineWidth = 90;

/** Primitives and arrays of primitives: what an object may hold and still be printed on one line. */
function isFlat(value: Printable): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Array.isArray(value) && (value as readonly Printable[]).every((item) => item === null || typeof item !== 'object');
}

export function printValue(value: Printable, indent = ''): string {
  if (value instanceof RawCode) return value.code;
  if (value === null) return 'null';
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value as readonly Printable[];
    if (items.length === 0) return '[]';
    if (items.every((item) => item === null || typeof item !== 'object')) {
      const line = `[${items.map((item) => printValue(item)).join(', ')}]`;
      if (line.length + indent.length <= inlineWidth) return line;
    }
    return `[\n${items.map((item) => `${inner}${printValue(item, inner)},\n`).join('')}${indent}]`;
  }
  const entries = Object.entries(value as { readonly [key: string]: Printable });
  if (entries.length === 0) return '{}';
  if (entries.every(([, item]) => isFlat(item))) {
    const line = `{ ${entries.map(([key, item]) => `${propertyKey(key)}: ${printValue(item)}`).join(', ')} }`;
    if (line.length + indent.length <= inlineWidth) return line;
  }
  return `{\n${entries.map(([key, item]) => `${inner}${propertyKey(key)}: ${printValue(item, inner)},\n`).join('')}${indent}}`;
}

/**
 * A literal on one line whatever its width: one reviewable line per item of a list (a table's column), so that a
 * change to the item is a change of its line.
 */
export function oneLine(value: Printable): RawCode {
  return raw(printOneLine(value));
}

function printOneLine(value: Printable): string {
  if (value instanceof RawCode || value === null || typeof value !== 'object') return printValue(value);
  if (Array.isArray(value)) return `[${(value as readonly Printable[]).map(printOneLine).join(', ')}]`;
  const entries = Object.entries(value as { readonly [key: string]: Printable });
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([key, item]) => `${propertyKey(key)}: ${printOneLine(item)}`).join(', ')} }`;
}

/** Collects import specifiers per module and prints them sorted, type-only where possible. */
export class Imports {
  private readonly modules = new Map<string, Map<string, boolean>>();

  add(module: string, name: string, typeOnly: boolean): void {
    const names = this.modules.get(module) ?? new Map<string, boolean>();
    names.set(name, (names.get(name) ?? true) && typeOnly);
    this.modules.set(module, names);
  }

  print(): string {
    const lines: string[] = [];
    for (const module of [...this.modules.keys()].sort(compareCodePoints)) {
      const names = this.modules.get(module) as Map<string, boolean>;
      const sorted = [...names.keys()].sort(compareCodePoints);
      const allTypes = sorted.every((name) => names.get(name));
      const specifiers = sorted.map((name) => (!allTypes && names.get(name) ? `type ${name}` : name));
      lines.push(`import ${allTypes ? 'type ' : ''}{ ${specifiers.join(', ')} } from ${stringLiteral(module)};`);
    }
    return lines.length > 0 ? `${lines.join('\n')}\n` : '';
  }
}

/** A JSDoc block from a database comment; `*\/` in the comment cannot end it early. */
export function docComment(text: string | null, indent = ''): string {
  if (text === null || text.trim() === '') return '';
  const lines = text.replace(/\*\//g, '*\\/').split(/\r?\n/).map((line) => line.trimEnd());
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** Joins file sections (each ending in a newline) with one blank line, skipping empty ones. */
export function sections(...parts: readonly string[]): string {
  return parts.filter((part) => part !== '').join('\n');
}

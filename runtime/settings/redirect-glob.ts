import { CodedError } from '../coded-error.js';

/**
 * Redirect allow-list patterns in the glob dialect Supabase Auth uses (gobwas/glob
 * compiled with '.' and '/' as separators): `*` matches within one host label or
 * path segment, `**` across them, `?` one non-separator character, `[a-z]`/`[!a-z]`
 * one character of a class, `{a,b}` either alternative, `\` escapes. A pattern
 * matches the whole URL.
 */

export class GlobSyntaxError extends CodedError {
  readonly code = 'invalid_glob';
}

const NOT_SEPARATOR = '[^./]';

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char;
}

interface Cursor {
  readonly pattern: string;
  at: number;
}

function compileClass(cursor: Cursor): string {
  const { pattern } = cursor;
  const start = cursor.at;
  cursor.at += 1;
  const negated = pattern[cursor.at] === '!';
  if (negated) cursor.at += 1;
  let body = '';
  let members = 0;
  while (cursor.at < pattern.length && pattern[cursor.at] !== ']') {
    const first = pattern[cursor.at] as string;
    if (pattern[cursor.at + 1] === '-' && cursor.at + 2 < pattern.length && pattern[cursor.at + 2] !== ']') {
      const last = pattern[cursor.at + 2] as string;
      if (last < first) throw new GlobSyntaxError(`invalid range ${first}-${last} in "${pattern}"`);
      body += `${escapeRegExp(first)}-${escapeRegExp(last)}`;
      cursor.at += 3;
    } else {
      body += escapeRegExp(first);
      cursor.at += 1;
    }
    members += 1;
  }
  if (cursor.at >= pattern.length) throw new GlobSyntaxError(`unclosed [ at ${start} in "${pattern}"`);
  if (members === 0) throw new GlobSyntaxError(`empty character class at ${start} in "${pattern}"`);
  cursor.at += 1;
  return negated ? `[^${body}]` : `[${body}]`;
}

/** Compiles until the end, or (inside braces) until the `,` or `}` that ends an alternative. */
function compileSequence(cursor: Cursor, depth: number): string {
  const { pattern } = cursor;
  let out = '';
  while (cursor.at < pattern.length) {
    const char = pattern[cursor.at] as string;
    if (depth > 0 && (char === ',' || char === '}')) return out;
    if (char === '\\') {
      const next = pattern[cursor.at + 1];
      if (next === undefined) throw new GlobSyntaxError(`trailing \\ in "${pattern}"`);
      out += escapeRegExp(next);
      cursor.at += 2;
    } else if (char === '*') {
      const star = pattern[cursor.at + 1] === '*';
      out += star ? '.*' : `${NOT_SEPARATOR}*`;
      cursor.at += star ? 2 : 1;
    } else if (char === '?') {
      out += NOT_SEPARATOR;
      cursor.at += 1;
    } else if (char === '[') {
      out += compileClass(cursor);
    } else if (char === '{') {
      const start = cursor.at;
      cursor.at += 1;
      const alternatives: string[] = [compileSequence(cursor, depth + 1)];
      while (pattern[cursor.at] === ',') {
        cursor.at += 1;
        alternatives.push(compileSequence(cursor, depth + 1));
      }
      if (pattern[cursor.at] !== '}') throw new GlobSyntaxError(`unclosed { at ${start} in "${pattern}"`);
      cursor.at += 1;
      out += `(?:${alternatives.join('|')})`;
    } else {
      out += escapeRegExp(char);
      cursor.at += 1;
    }
  }
  return out;
}

/** A matcher for one allow-list pattern; throws GlobSyntaxError where Supabase Auth would refuse to start. */
export function compileRedirectGlob(pattern: string): (url: string) => boolean {
  const regexp = new RegExp(`^${compileSequence({ pattern, at: 0 }, 0)}$`, 's');
  return (url) => regexp.test(url);
}

/**
 * Splits the CLI's comma-separated list at the commas outside `{...}`, so a
 * pattern's alternatives survive; entries are trimmed and empty ones dropped.
 */
export function splitPatternList(raw: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i] as string;
    if (char === '\\' && i + 1 < raw.length) {
      current += char + (raw[i + 1] as string);
      i += 1;
      continue;
    }
    if (char === '{') depth += 1;
    else if (char === '}' && depth > 0) depth -= 1;
    if (char === ',' && depth === 0) {
      entries.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  entries.push(current);
  return entries.map((entry) => entry.trim()).filter((entry) => entry !== '');
}

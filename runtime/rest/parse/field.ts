import type { Field, JsonStep } from './ast.js';
import type { Cursor } from './cursor.js';

const FIELD_EXPECTING = 'field name (* or [a..z0..9_$])';
const IDENTIFIER_CHAR = /[\p{L}\p{N}_ $]/u;
const JSON_KEY_EXCLUDED = new Set(['(', '-', ':', '.', ',', '>', ')']);
const JSON_KEY_EXPECTING = 'any non reserved character different from: .,>()';

/** `"..."` with `\` escaping the next character (PostgREST's quoted value). */
export function parseQuoted(c: Cursor): string {
  c.expect('"', '"\\""');
  let out = '';
  for (;;) {
    if (c.eof) c.fail('"\\"" closing the quoted value');
    const ch = c.peek();
    if (ch === '"') { c.pos += 1; return out; }
    if (ch === '\\') {
      c.pos += 1;
      if (c.eof) c.fail('escaped character');
    }
    out += c.peek();
    c.pos += 1;
  }
}

/** Dash-separated runs of `isChar`, where `->` is never part of the name (it starts a JSON path). */
function parseDashed(c: Cursor, isChar: (ch: string) => boolean, expecting: string): string {
  const parts: string[] = [];
  for (;;) {
    const start = c.pos;
    while (!c.eof && isChar(c.peek())) c.pos += 1;
    if (c.pos === start) c.fail(expecting);
    parts.push(c.input.slice(start, c.pos).trim());
    if (c.peek() === '-' && c.peek(1) !== '>') { c.pos += 1; continue; }
    return parts.join('-');
  }
}

export function parseFieldName(c: Cursor): string {
  if (c.peek() === '"') return parseQuoted(c);
  return parseDashed(c, (ch) => IDENTIFIER_CHAR.test(ch), FIELD_EXPECTING);
}

/** letters, digits, `_`, space and `$` (casts, fts languages). */
export function parseIdentifier(c: Cursor, expecting: string): string {
  const start = c.pos;
  while (!c.eof && IDENTIFIER_CHAR.test(c.peek())) c.pos += 1;
  if (c.pos === start) c.fail(expecting);
  return c.input.slice(start, c.pos).trim();
}

function atJsonIndexEnd(c: Cursor): boolean {
  return c.eof || c.startsWith('->') || c.startsWith('::') || ['.', ',', ')'].includes(c.peek());
}

export function parseJsonPath(c: Cursor): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    let arrow: JsonStep['arrow'];
    if (c.eat('->>')) arrow = '->>';
    else if (c.eat('->')) arrow = '->';
    else return steps;
    const start = c.pos;
    // A key never starts with `-`: it is a negative index (PostgREST: `->>--34` expects a digit).
    if (c.peek() === '-' && !/\d/.test(c.peek(1))) {
      c.pos += 1;
      c.fail('digit');
    }
    const index = /^-?\d+/.exec(c.input.slice(c.pos));
    if (index) {
      c.pos += index[0].length;
      if (atJsonIndexEnd(c)) { steps.push({ arrow, key: index[0], index: true }); continue; }
      c.pos = start;
    }
    // Where neither an index nor a key starts, PostgREST's parser expects either.
    if (c.eof || JSON_KEY_EXCLUDED.has(c.peek())) c.fail(`"-", digit or ${JSON_KEY_EXPECTING}`);
    const key = c.peek() === '"' ? parseQuoted(c) : parseDashed(c, (ch) => !JSON_KEY_EXCLUDED.has(ch), JSON_KEY_EXPECTING);
    steps.push({ arrow, key, index: false });
  }
}

export function parseField(c: Cursor): Field {
  const name = parseFieldName(c);
  return { name, jsonPath: parseJsonPath(c) };
}

/** `a.b.c->x`: the embed path `[a, b]` and the field `c->x`. */
export function parseTreePath(c: Cursor): { path: string[]; field: Field } {
  const names = [parseFieldName(c)];
  while (c.eat('.')) names.push(parseFieldName(c));
  const jsonPath = parseJsonPath(c);
  const name = names.pop() as string;
  return { path: names, field: { name, jsonPath } };
}

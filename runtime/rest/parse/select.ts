import type { AggregateFunction, ColumnSelect, EmbedSelect, JoinType, SelectItem } from './ast.js';
import { Cursor, MAX_NESTING } from './cursor.js';
import { parseField, parseFieldName, parseIdentifier } from './field.js';
import { validateCast, validateOutputName } from './names.js';

const AGGREGATES: readonly AggregateFunction[] = ['sum', 'avg', 'count', 'max', 'min'];
const END_OF_ITEM = '"->", "->>", "::", "," or ")"';

function atItemEnd(c: Cursor): boolean {
  return c.eof || c.peek() === ',' || c.peek() === ')';
}

/** `alias:` before a field or embed (`::` is a cast, not an alias). Restores the position when absent. */
function parseAlias(c: Cursor): string | null {
  const start = c.pos;
  try {
    const alias = parseFieldName(c);
    if (c.peek() === ':' && c.peek(1) !== ':') { c.pos += 1; return alias; }
  } catch {
    // not an alias: the item parser reports the real error from the start
  }
  c.pos = start;
  return null;
}

/** `!inner`, `!left`, `!hint`, at most one of each kind, in any order. */
function parseEmbedParams(c: Cursor): { hint: string | null; joinType: JoinType | null } {
  let hint: string | null = null;
  let joinType: JoinType | null = null;
  for (let i = 0; i < 2 && c.peek() === '!'; i += 1) {
    c.pos += 1;
    const value = parseFieldName(c);
    if ((value === 'inner' || value === 'left') && joinType === null) joinType = value;
    else if (hint === null) hint = value;
    else c.fail('"(" after the embed hint');
  }
  return { hint, joinType };
}

function parseCast(c: Cursor): string | null {
  if (!c.eat('::')) return null;
  const start = c.pos;
  const cast = parseIdentifier(c, 'letter or digit');
  validateCast(cast, c, start);
  return cast;
}

function parseItem(c: Cursor, depth: number): SelectItem {
  c.skipSpaces();
  if (c.peek() === '*') {
    c.pos += 1;
    c.skipSpaces();
    if (!atItemEnd(c)) c.fail('"," or ")" after "*"');
    return { type: 'star' };
  }
  if (c.eat('...')) {
    const name = parseFieldName(c);
    const { hint, joinType } = parseEmbedParams(c);
    if (c.peek() !== '(') c.fail('"(" after a spread relation');
    return embed(c, depth, { name, alias: null, hint, joinType, spread: true });
  }
  const alias = parseAlias(c);
  if (alias !== null) validateOutputName(alias, c.what, c.input);
  if (c.eat('count()')) return endOfColumn(c, { type: 'column', field: { name: '*', jsonPath: [] }, alias, cast: null, aggregate: { fn: 'count', cast: parseCast(c) } });
  const afterAlias = c.pos;
  const name = parseFieldName(c);
  if (name !== 'count' && (c.peek() === '!' || c.peek() === '(')) {
    const { hint, joinType } = parseEmbedParams(c);
    if (c.peek() === '(') return embed(c, depth, { name, alias, hint, joinType, spread: false });
    c.fail('"(" after the embed name');
  }
  c.pos = afterAlias;
  const field = parseField(c);
  const cast = parseCast(c);
  const fn = c.peek() === '.' ? AGGREGATES.find((agg) => c.startsWith(`.${agg}()`)) : undefined;
  if (fn === undefined) return endOfColumn(c, { type: 'column', field, alias, cast });
  c.pos += fn.length + 3;
  return endOfColumn(c, { type: 'column', field, alias, cast, aggregate: { fn, cast: parseCast(c) } });
}

function endOfColumn(c: Cursor, item: ColumnSelect): ColumnSelect {
  c.skipSpaces();
  if (!atItemEnd(c)) c.fail(END_OF_ITEM);
  return item;
}

function embed(c: Cursor, depth: number, head: Omit<EmbedSelect, 'type' | 'select'>): EmbedSelect {
  if (depth >= MAX_NESTING) c.fail(`at most ${MAX_NESTING} levels of embedding`);
  c.expect('(', '"("');
  const select = parseItems(c, depth + 1, true);
  c.expect(')', '")"');
  c.skipSpaces();
  return { type: 'embed', ...head, select };
}

function parseItems(c: Cursor, depth: number, nested: boolean): SelectItem[] {
  const items: SelectItem[] = [];
  c.skipSpaces();
  if (nested && c.peek() === ')') return items;
  if (!nested && c.eof) return items;
  for (;;) {
    items.push(parseItem(c, depth));
    c.skipSpaces();
    if (!c.eat(',')) return items;
  }
}

/** The `select` parameter; empty means `*`. */
export function parseSelect(input: string): SelectItem[] {
  const c = new Cursor(input, 'select parameter');
  const items = parseItems(c, 0, false);
  if (!c.eof) c.fail('"," or end of input');
  return items.length === 0 ? [{ type: 'star' }] : items;
}

/** `columns=` and `on_conflict=`: a comma-separated list of field names. */
export function parseColumnList(input: string, what: string): string[] {
  const c = new Cursor(input, what);
  const names: string[] = [];
  for (;;) {
    c.skipSpaces();
    names.push(parseFieldName(c));
    c.skipSpaces();
    if (c.eof) return names;
    c.expect(',', '"," or end of input');
  }
}

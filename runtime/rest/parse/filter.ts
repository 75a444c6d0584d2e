import type { Condition, FtsOperator, IsValue, LogicCondition, OpExpr, Operation, QuantOperator, SimpleOperator } from './ast.js';
import { Cursor, MAX_NESTING } from './cursor.js';
import { parseField, parseIdentifier, parseQuoted, parseTreePath } from './field.js';

const OPERATOR_EXPECTING = 'operator (eq, gt, ...)';
// Longest first so that `gte` is not read as `gt` followed by garbage.
const SIMPLE: readonly SimpleOperator[] = ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'];
const QUANT: readonly QuantOperator[] = ['eq', 'gte', 'gt', 'lte', 'lt', 'like', 'ilike', 'match', 'imatch'];
const FTS: readonly FtsOperator[] = ['fts', 'plfts', 'phfts', 'wfts'];
const IS_VALUES: readonly IsValue[] = ['null', 'not_null', 'true', 'false', 'unknown'];

/** How a single value ends: at the end of the input (top-level filter) or at `,`/`)` (logic tree). */
type ValueParser = (c: Cursor) => string;

const restOfInput: ValueParser = (c) => {
  const value = c.input.slice(c.pos);
  c.pos = c.input.length;
  return value;
};

function untilDelimiter(c: Cursor): string {
  const start = c.pos;
  while (!c.eof && c.peek() !== ',' && c.peek() !== ')') c.pos += 1;
  return c.input.slice(start, c.pos);
}

function atListDelimiter(c: Cursor): boolean {
  return c.eof || c.peek() === ',' || c.peek() === ')';
}

/** A quoted value only counts as quoted when `,` or `)` follows it; otherwise the quotes are data. */
function quotedOrRaw(c: Cursor, raw: (c: Cursor) => string): string {
  if (c.peek() === '"') {
    const start = c.pos;
    try {
      const value = parseQuoted(c);
      if (atListDelimiter(c)) return value;
    } catch {
      // an unterminated quote is plain data
    }
    c.pos = start;
  }
  return raw(c);
}

const logicValue: ValueParser = (c) => quotedOrRaw(c, (cur) => {
  if (cur.peek() === '{') {
    const close = cur.input.indexOf('}', cur.pos);
    const inner = close < 0 ? '' : cur.input.slice(cur.pos + 1, close);
    if (close >= 0 && !inner.includes('{')) {
      const value = cur.input.slice(cur.pos, close + 1);
      cur.pos = close + 1;
      return value;
    }
  }
  return untilDelimiter(cur);
});

function parseList(c: Cursor): string[] {
  c.skipSpaces();
  c.expect('(', '"("');
  c.skipSpaces();
  const values: string[] = [];
  for (;;) {
    values.push(quotedOrRaw(c, untilDelimiter));
    if (!c.eat(',')) break;
  }
  c.expect(')', '"," or ")"');
  c.skipSpaces();
  // `in.()` is the empty list: it matches no row.
  return values.length === 1 && values[0] === '' ? [] : values;
}

function matchWord<T extends string>(c: Cursor, words: readonly T[]): T | null {
  for (const w of words) if (c.startsWith(w)) return w;
  return null;
}

function parseOperation(c: Cursor, value: ValueParser, expecting: string): Operation {
  if (c.eat('in.')) return { kind: 'in', values: parseList(c) };
  if (c.eat('is.')) {
    const word = IS_VALUES.find((v) => c.input.slice(c.pos, c.pos + v.length).toLowerCase() === v);
    if (word === undefined) c.fail('isVal: (null, not_null, true, false, unknown)');
    c.pos += word.length;
    return { kind: 'is', value: word };
  }
  if (c.eat('isdistinct.')) return { kind: 'isdistinct', value: value(c) };
  const fts = [...FTS].sort((a, b) => b.length - a.length).find((op) => c.startsWith(op) && ['.', '('].includes(c.peek(op.length)));
  if (fts !== undefined) {
    c.pos += fts.length;
    let language: string | null = null;
    if (c.eat('(')) {
      language = parseIdentifier(c, 'a text search configuration name');
      c.expect(')', '")"');
    }
    c.expect('.', 'delimiter (.)');
    return { kind: 'fts', op: fts, language, value: value(c) };
  }
  const simple = matchWord(c, SIMPLE);
  if (simple !== null && c.peek(simple.length) === '.') {
    c.pos += simple.length + 1;
    return { kind: 'simple', op: simple, value: value(c) };
  }
  const quant = QUANT.filter((op) => c.startsWith(op)).sort((a, b) => b.length - a.length)
    .find((op) => c.peek(op.length) === '.' || c.peek(op.length) === '(');
  if (quant !== undefined) {
    c.pos += quant.length;
    let quantifier: 'any' | 'all' | null = null;
    if (c.eat('(any)')) quantifier = 'any';
    else if (c.eat('(all)')) quantifier = 'all';
    c.expect('.', 'delimiter (.)');
    return { kind: 'quant', op: quant, quantifier, value: value(c) };
  }
  return c.fail(expecting);
}

function parseOpExpr(c: Cursor, value: ValueParser): OpExpr {
  const negated = c.eat('not.');
  // Where `not.` could still come, PostgREST names it among what was expected.
  return { negated, operation: parseOperation(c, value, negated ? OPERATOR_EXPECTING : `"not" or ${OPERATOR_EXPECTING}`) };
}

/** The value of a filter parameter: `[not.]op[(modifier)].value`. */
export function parseFilterValue(input: string): OpExpr {
  const c = new Cursor(input, 'filter');
  const expr = parseOpExpr(c, restOfInput);
  if (!c.eof) c.fail('end of input');
  return expr;
}

/** Whether a value reads as an operator expression (RPC GET: otherwise it is an argument). */
export function isOpExpr(input: string): boolean {
  try {
    parseFilterValue(input);
    return true;
  } catch {
    return false;
  }
}

function startsLogicExpr(c: Cursor): boolean {
  return /^(not\.)?(and|or)\s*\(/.test(c.input.slice(c.pos, c.pos + 12));
}

function parseLogicNode(c: Cursor, depth: number): Condition {
  c.skipSpaces();
  if (startsLogicExpr(c)) return parseLogicExpr(c, depth);
  const field = parseField(c);
  c.expect('.', 'delimiter (.)');
  const expr = parseOpExpr(c, logicValue);
  c.skipSpaces();
  return { type: 'filter', field, expr };
}

function parseLogicExpr(c: Cursor, depth: number): LogicCondition {
  if (depth >= MAX_NESTING) c.fail(`at most ${MAX_NESTING} levels of nested logic`);
  const negated = c.eat('not.');
  const op = c.eat('and') ? 'and' : c.eat('or') ? 'or' : c.fail('logic operator (and, or)');
  c.skipSpaces();
  c.expect('(', '"("');
  const children: Condition[] = [];
  for (;;) {
    c.skipSpaces();
    if (c.peek() === ')' && children.length === 0) c.fail('field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)');
    children.push(parseLogicNode(c, depth + 1));
    c.skipSpaces();
    if (!c.eat(',')) break;
  }
  c.expect(')', '"," or ")"');
  c.skipSpaces();
  return { type: 'logic', op, negated, children };
}

/**
 * A logic-tree parameter: key `[path.][not.]and|or`, value `(cond,cond,…)`. The key's operator
 * is prefixed to the value so the tree parser sees `or(…)` as PostgREST does.
 */
export function parseLogicParam(key: string, value: string): { path: string[]; condition: LogicCondition } {
  const segments = key.split('.');
  const op = segments.pop() as string;
  const negated = segments.includes('not');
  const path = segments.filter((s) => s !== 'not');
  const text = `${negated ? 'not.' : ''}${op}${value}`;
  // Columns count from the prefixed operator, the message names the value sent (PostgREST: `or=()` → `(())`, column 4).
  const c = new Cursor(text, 'logic tree', value);
  const condition = parseLogicExpr(c, 0);
  if (!c.eof) c.fail('end of input');
  return { path, condition };
}

/** A filter parameter key: `[embed.path.]field[->json]`. */
export function parseFilterKey(key: string): ReturnType<typeof parseTreePath> {
  const c = new Cursor(key, 'tree path');
  const result = parseTreePath(c);
  if (!c.eof) c.fail('"." , "->" or end of input');
  return result;
}

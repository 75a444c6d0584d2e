import type { OrderTerm } from './ast.js';
import { Cursor } from './cursor.js';
import { parseField, parseFieldName } from './field.js';

function parseModifiers(c: Cursor): Pick<OrderTerm, 'direction' | 'nulls'> {
  let direction: OrderTerm['direction'] = null;
  let nulls: OrderTerm['nulls'] = null;
  if (c.eat('.asc')) direction = 'asc';
  else if (c.eat('.desc')) direction = 'desc';
  if (c.eat('.nullsfirst')) nulls = 'first';
  else if (c.eat('.nullslast')) nulls = 'last';
  c.skipSpaces();
  if (!c.eof && c.peek() !== ',') {
    if (direction === null && nulls === null) c.fail('"asc", "desc", "nullsfirst" or "nullslast"');
    c.failAtEnd('"," or end of input');
  }
  return { direction, nulls };
}

function parseTerm(c: Cursor): OrderTerm {
  c.skipSpaces();
  const start = c.pos;
  const name = parseFieldName(c);
  if (c.eat('(')) {
    const field = parseField(c);
    c.expect(')', '")"');
    return { relation: name, field, ...parseModifiers(c) };
  }
  c.pos = start;
  const field = parseField(c);
  return { relation: null, field, ...parseModifiers(c) };
}

/** `order=a.asc,b->>c.desc.nullslast,rel(col).desc`. */
export function parseOrder(input: string): OrderTerm[] {
  const c = new Cursor(input, 'order');
  const terms: OrderTerm[] = [];
  for (;;) {
    terms.push(parseTerm(c));
    if (!c.eat(',')) break;
  }
  if (!c.eof) c.failAtEnd('"," or end of input');
  return terms;
}

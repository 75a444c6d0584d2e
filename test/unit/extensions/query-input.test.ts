import { describe, expect, it } from 'vitest';
import { queryInput, queryInputProblem } from '../../../runtime/extensions/query-input.js';
import { t } from '../../../runtime/extensions/schema.js';

const input = t.object({
  name: t.string(),
  limit: t.optional(t.integer()),
  ratio: t.optional(t.number()),
  done: t.optional(t.boolean()),
  parent: t.optional(t.nullable(t.integer())),
  tag: t.optional(t.array(t.string())),
  ids: t.optional(t.array(t.integer())),
});

const read = (query: string) => queryInput(input, new URLSearchParams(query), ['apikey']);

describe('queryInput', () => {
  it('converts each parameter as its property says, arrays from repeated parameters', () => {
    expect(read('name=kettle&limit=5&ratio=-0.5e1&done=true&parent=null&tag=a&tag=b&ids=1&ids=20&apikey=k')).toEqual({
      value: { name: 'kettle', limit: 5, ratio: -5, done: true, parent: null, tag: ['a', 'b'], ids: [1, 20] },
      problems: [],
    });
    // A string property keeps digits and "null" as text.
    expect(read('name=007').value).toEqual({ name: '007' });
    expect(read('name=null').value).toEqual({ name: 'null' });
  });

  it('leaves what does not convert as text for validation to name, and reports a repeated scalar', () => {
    expect(read('limit=five&done=yes&ids=1&ids=x&other=1')).toEqual({
      value: { limit: 'five', done: 'yes', ids: [1, 'x'], other: '1' },
      problems: [],
    });
    expect(read('name=a&name=b').problems).toEqual(['$.name: given more than once']);
    expect(read('__proto__=x')).toEqual({ value: {}, problems: ['$.__proto__: unknown property'] });
  });
});

describe('queryInputProblem', () => {
  it('accepts an object of scalars, enums, nullable scalars and arrays of scalars', () => {
    expect(queryInputProblem(input)).toBeNull();
    expect(queryInputProblem(t.object({ status: t.enum(['a', 'b']) }))).toBeNull();
    expect(queryInputProblem(t.object({}))).toBeNull();
  });

  it('refuses what a query string cannot carry', () => {
    expect(queryInputProblem(t.integer())).toMatch(/must be t\.object/);
    expect(queryInputProblem(t.object({ nested: t.object({ a: t.string() }) }))).toMatch(/"nested" must be/);
    expect(queryInputProblem(t.object({ grid: t.array(t.array(t.integer())) }))).toMatch(/"grid" must be/);
  });
});

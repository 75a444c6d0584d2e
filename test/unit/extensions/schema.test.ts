import { describe, expect, it } from 'vitest';
import { t, validate, withNumbers, type Infer } from '../../../runtime/extensions/schema.js';
import { sqlQuery } from '../../../runtime/extensions/sql.js';

describe('route schemas', () => {
  const input = t.object({
    post_id: t.integer({ minimum: 1 }),
    tags: t.optional(t.array(t.string({ maxLength: 3 }))),
    status: t.nullable(t.enum(['draft', 'published'])),
  });

  it('are JSON Schema, required unless optional, integers within the range a JSON number carries exactly', () => {
    expect(JSON.parse(JSON.stringify(input))).toEqual({
      type: 'object',
      properties: {
        post_id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        tags: { type: 'array', items: { type: 'string', maxLength: 3 } },
        status: { anyOf: [{ type: 'string', enum: ['draft', 'published'] }, { type: 'null' }] },
      },
      required: ['post_id', 'status'],
      additionalProperties: false,
    });
    expect(JSON.parse(JSON.stringify(t.integer({ minimum: -1e300, maximum: 1e300 })))).toEqual({
      type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER,
    });
    const value: Infer<typeof input> = { post_id: 1, status: null };
    expect(validate(input, value)).toEqual([]);
  });

  it('report every problem with its path', () => {
    expect(validate(input, { post_id: 1.5, tags: ['ok', 'long', 3], status: 'gone', extra: 1 })).toEqual([
      '$.extra: unknown property',
      '$.post_id: expected integer, got number',
      '$.tags[1]: longer than 3',
      '$.tags[2]: expected string, got integer',
      '$.status: expected one of "draft", "published", null',
    ]);
    expect(validate(input, {})).toEqual(['$.post_id: required', '$.status: required']);
    expect(validate(input, [])).toEqual(['$: expected object, got array']);
    expect(validate(t.nullable(t.integer()), 'x')).toEqual(['$: expected integer or null, got string']);
    expect(validate(t.object({ 'a/b~c': t.boolean() }), { 'a/b~c': 1 })).toEqual(['$.a/b~c: expected boolean, got integer']);
  });

  it('refuse an integer beyond 2^53 (JSON.parse has already rounded it) and a __proto__ key', () => {
    expect(validate(input, JSON.parse('{"post_id":9007199254740993,"status":null}'))).toEqual(['$.post_id: more than 9007199254740991']);
    expect(validate(input, JSON.parse('{"post_id":1,"status":null,"__proto__":{"x":1}}'))).toEqual(['$.__proto__: unknown property']);
    expect(validate(t.array(input), JSON.parse('[{"post_id":1,"status":null,"__proto__":1}]'))).toEqual(['$[0].__proto__: unknown property']);
  });
});

describe('withNumbers', () => {
  const output = t.object({ id: t.integer(), total: t.number(), parent: t.nullable(t.integer()), ids: t.array(t.integer()), label: t.string() });

  it('makes whole numbers that came as strings (bigint, numeric) numbers where the schema says so', () => {
    const converted = withNumbers(output, { id: '4', total: '-12', parent: '7', ids: ['1', 2], label: '5' });
    expect(converted).toEqual({ id: 4, total: -12, parent: 7, ids: [1, 2], label: '5' });
    expect(validate(output, converted)).toEqual([]);
  });

  it('leaves for validation what would not convert exactly', () => {
    const kept = { id: '9007199254740993', total: '12.50', parent: null, ids: ['01', 'x'], label: 'a' };
    expect(withNumbers(output, kept)).toEqual(kept);
    expect(validate(output, kept)).toEqual([
      '$.id: expected integer, got string',
      '$.total: expected number, got string',
      '$.ids[0]: expected integer, got string',
      '$.ids[1]: expected integer, got string',
    ]);
  });
});

describe('ctx.sql', () => {
  it('makes every interpolated value a bind parameter', () => {
    const strings = Object.assign(['SELECT * FROM posts WHERE slug = ', ' AND id > ', ''], { raw: [] }) as unknown as TemplateStringsArray;
    expect(sqlQuery(strings, ["x'; DROP TABLE posts; --", 3])).toEqual({
      text: 'SELECT * FROM posts WHERE slug = $1 AND id > $2',
      values: ["x'; DROP TABLE posts; --", 3],
    });
  });
});

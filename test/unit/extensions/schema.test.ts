import { describe, expect, it } from 'vitest';
import { t, validate, type Infer } from '../../../runtime/extensions/schema.js';
import { sqlQuery } from '../../../runtime/extensions/sql.js';

describe('route schemas', () => {
  const input = t.object({
    post_id: t.integer({ minimum: 1 }),
    tags: t.optional(t.array(t.string({ maxLength: 3 }))),
    status: t.nullable(t.enum(['draft', 'published'])),
  });

  it('are JSON Schema, required unless optional', () => {
    expect(input.json).toEqual({
      type: 'object',
      properties: {
        post_id: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { type: 'string', maxLength: 3 } },
        status: { type: ['string', 'null'], enum: ['draft', 'published', null] },
      },
      required: ['post_id', 'status'],
      additionalProperties: false,
    });
    const value: Infer<typeof input> = { post_id: 1, status: null };
    expect(validate(input.json, value)).toEqual([]);
  });

  it('report every problem with its path', () => {
    expect(validate(input.json, { post_id: 1.5, tags: ['ok', 'long', 3], status: 'gone', extra: 1 })).toEqual([
      '$.post_id: expected integer, got number',
      '$.tags[1]: longer than 3',
      '$.tags[2]: expected string, got integer',
      '$.status: expected one of "draft", "published", null',
      '$.extra: unknown property',
    ]);
    expect(validate(input.json, {})).toEqual(['$.post_id: required', '$.status: required']);
    expect(validate(input.json, [])).toEqual(['$: expected object, got array']);
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

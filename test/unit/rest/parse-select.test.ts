import { describe, expect, it } from 'vitest';
import { parseColumnList, parseSelect } from '../../../runtime/rest/parse/select.js';
import { errorOf } from './request-helper.js';

const col = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'column', field: { name, jsonPath: [] }, alias: null, cast: null, ...extra,
});

describe('select grammar', () => {
  it('reads an empty select as *', () => {
    expect(parseSelect('')).toEqual([{ type: 'star' }]);
    expect(parseSelect('*')).toEqual([{ type: 'star' }]);
  });

  it('reads columns, aliases and casts', () => {
    expect(parseSelect('id, name ,alias:title,year::text,n:num::double precision')).toEqual([
      col('id'), col('name'), col('title', { alias: 'alias' }), col('year', { cast: 'text' }),
      col('num', { alias: 'n', cast: 'double precision' }),
    ]);
  });

  it('reads JSON paths with keys, indexes and negative indexes', () => {
    expect(parseSelect('meta->author->>name,arr->0,arr->-1,a:meta->"k.ey"::int')).toEqual([
      { type: 'column', field: { name: 'meta', jsonPath: [{ arrow: '->', key: 'author', index: false }, { arrow: '->>', key: 'name', index: false }] }, alias: null, cast: null },
      { type: 'column', field: { name: 'arr', jsonPath: [{ arrow: '->', key: '0', index: true }] }, alias: null, cast: null },
      { type: 'column', field: { name: 'arr', jsonPath: [{ arrow: '->', key: '-1', index: true }] }, alias: null, cast: null },
      { type: 'column', field: { name: 'meta', jsonPath: [{ arrow: '->', key: 'k.ey', index: false }] }, alias: 'a', cast: 'int' },
    ]);
  });

  it('reads quoted names with commas, dots, quotes and backslashes', () => {
    expect(parseSelect('"a,b","c.d","e\\"f","g\\\\h",x-y')).toEqual([
      col('a,b'), col('c.d'), col('e"f'), col('g\\h'), col('x-y'),
    ]);
  });

  it('reads embeds with alias, hints, join types, spreads and nesting', () => {
    expect(parseSelect('title,directors(id,last_name),c:clients!inner(*),addresses!billing!left(name),...rel!fk(a:x),actors(roles(films(title)))')).toEqual([
      col('title'),
      { type: 'embed', name: 'directors', alias: null, hint: null, joinType: null, spread: false, select: [col('id'), col('last_name')] },
      { type: 'embed', name: 'clients', alias: 'c', hint: null, joinType: 'inner', spread: false, select: [{ type: 'star' }] },
      { type: 'embed', name: 'addresses', alias: null, hint: 'billing', joinType: 'left', spread: false, select: [col('name')] },
      { type: 'embed', name: 'rel', alias: null, hint: 'fk', joinType: null, spread: true, select: [col('x', { alias: 'a' })] },
      {
        type: 'embed', name: 'actors', alias: null, hint: null, joinType: null, spread: false, select: [
          { type: 'embed', name: 'roles', alias: null, hint: null, joinType: null, spread: false, select: [
            { type: 'embed', name: 'films', alias: null, hint: null, joinType: null, spread: false, select: [col('title')] },
          ] },
        ],
      },
    ]);
  });

  it('reads an empty embed (join only)', () => {
    expect(parseSelect('id,roles()')).toEqual([
      col('id'), { type: 'embed', name: 'roles', alias: null, hint: null, joinType: null, spread: false, select: [] },
    ]);
  });

  it('parses aggregates: count() without a column, col.fn(), input and output casts, aliases before the field', () => {
    expect(parseSelect('count(),total:count()::text')).toEqual([
      { ...col('*'), aggregate: { fn: 'count', cast: null } },
      { ...col('*'), alias: 'total', aggregate: { fn: 'count', cast: 'text' } },
    ]);
    expect(parseSelect('amount.sum(),amount.avg()::int,total:amount::numeric.max()::text,x.min(),x.count()')).toEqual([
      { ...col('amount'), aggregate: { fn: 'sum', cast: null } },
      { ...col('amount'), aggregate: { fn: 'avg', cast: 'int' } },
      { ...col('amount'), alias: 'total', cast: 'numeric', aggregate: { fn: 'max', cast: 'text' } },
      { ...col('x'), aggregate: { fn: 'min', cast: null } },
      { ...col('x'), aggregate: { fn: 'count', cast: null } },
    ]);
    expect(parseSelect('meta->tax::numeric.sum()')).toEqual([{
      type: 'column', field: { name: 'meta', jsonPath: [{ arrow: '->', key: 'tax', index: false }] }, alias: null, cast: 'numeric',
      aggregate: { fn: 'sum', cast: null },
    }]);
  });

  it('parses aggregates inside embeds and spreads, and keeps bare `count` a column', () => {
    expect(parseSelect('name,orders(amount.sum(),count()),...customers(since.max())')).toEqual([
      col('name'),
      { type: 'embed', name: 'orders', alias: null, hint: null, joinType: null, spread: false, select: [
        { ...col('amount'), aggregate: { fn: 'sum', cast: null } }, { ...col('*'), aggregate: { fn: 'count', cast: null } },
      ] },
      { type: 'embed', name: 'customers', alias: null, hint: null, joinType: null, spread: true, select: [
        { ...col('since'), aggregate: { fn: 'max', cast: null } },
      ] },
    ]);
    expect(parseSelect('orders(count)')).toEqual([
      { type: 'embed', name: 'orders', alias: null, hint: null, joinType: null, spread: false, select: [col('count')] },
    ]);
  });

  it('refuses unknown functions, an alias after the aggregate and anything after it as PGRST100', () => {
    expect(errorOf(() => parseSelect('amount.median()'))).toEqual({ status: 400, body: {
      code: 'PGRST100',
      message: '"failed to parse select parameter (amount.median())" (line 1, column 7)',
      details: 'unexpected "." expecting "->", "->>", "::", "," or ")"',
      hint: null,
    } });
    expect(errorOf(() => parseSelect('amount.sum():total')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseSelect('amount.sum()x')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseSelect('count()->a')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseSelect('amount.sum()::')).body.code).toBe('PGRST100');
  });

  it('reports grammar errors as PGRST100 with the column', () => {
    expect(errorOf(() => parseSelect('id,'))).toEqual({ status: 400, body: {
      code: 'PGRST100',
      message: '"failed to parse select parameter (id,)" (line 1, column 4)',
      details: 'unexpected end of input expecting field name (* or [a..z0..9_$])',
      hint: null,
    } });
    // PostgREST's JsonOperatorSpec: a JSON key never starts with `-`, which begins a negative index.
    expect(errorOf(() => parseSelect('data->>--34'))).toEqual({ status: 400, body: {
      code: 'PGRST100', message: '"failed to parse select parameter (data->>--34)" (line 1, column 9)',
      details: 'unexpected "-" expecting digit', hint: null,
    } });
    // Where neither an index nor a key can start, both are expected (a reserved character, or nothing).
    expect(errorOf(() => parseSelect('data->(x')).body.details).toBe('unexpected "(" expecting "-", digit or any non reserved character different from: .,>()');
    expect(errorOf(() => parseSelect('data->')).body.details)
      .toBe('unexpected end of input expecting "-", digit or any non reserved character different from: .,>()');
    expect(errorOf(() => parseSelect('rel(id')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseSelect('a)b')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseSelect('"open')).body.code).toBe('PGRST100');
  });

  it('refuses casts that are not plain type names (no SQL reaches the database)', () => {
    for (const bad of ['id::text;drop', 'id::from', 'id::int4 x', 'id::"x"', 'id::$1']) {
      expect(errorOf(() => parseSelect(bad)).body.code).toBe('PGRST100');
    }
  });

  it('refuses aliases PostgreSQL would truncate', () => {
    expect(errorOf(() => parseSelect(`${'a'.repeat(64)}:id`)).body.code).toBe('PGRST100');
    expect(parseSelect(`${'a'.repeat(63)}:id`)).toEqual([col('id', { alias: 'a'.repeat(63) })]);
  });

  it('bounds nesting depth with a 400 instead of a stack overflow', () => {
    const deep = `${'a('.repeat(200)}id${')'.repeat(200)}`;
    expect(errorOf(() => parseSelect(deep)).body.code).toBe('PGRST100');
  });

  it('accepts unicode names', () => {
    expect(parseSelect('名前,ñandú:año')).toEqual([col('名前'), col('año', { alias: 'ñandú' })]);
  });
});

describe('columns and on_conflict lists', () => {
  it('reads plain and quoted names', () => {
    expect(parseColumnList('a, "b c","d,e"', 'columns parameter')).toEqual(['a', 'b c', 'd,e']);
  });

  it('refuses an empty item', () => {
    expect(errorOf(() => parseColumnList('a,,b', 'columns parameter')).body.code).toBe('PGRST100');
  });
});

import { describe, expect, it } from 'vitest';
import { parseFilterKey, parseFilterValue, parseLogicParam } from '../../../runtime/rest/parse/filter.js';
import { parseOrder } from '../../../runtime/rest/parse/order.js';
import { errorOf } from './request-helper.js';

const f = (name: string) => ({ name, jsonPath: [] });

describe('filter operators', () => {
  it('reads every comparison operator', () => {
    for (const op of ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'] as const) {
      expect(parseFilterValue(`${op}.v`)).toEqual({ negated: false, operation: { kind: 'quant', op, quantifier: null, value: 'v' } });
    }
    for (const op of ['neq', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'] as const) {
      expect(parseFilterValue(`${op}.v`)).toEqual({ negated: false, operation: { kind: 'simple', op, value: 'v' } });
    }
  });

  it('takes the top-level value literally, commas, dots, parentheses and quotes included', () => {
    expect(parseFilterValue('eq.Hebdon, John.(x) "q"')).toEqual({
      negated: false, operation: { kind: 'quant', op: 'eq', quantifier: null, value: 'Hebdon, John.(x) "q"' },
    });
    expect(parseFilterValue('eq.')).toEqual({ negated: false, operation: { kind: 'quant', op: 'eq', quantifier: null, value: '' } });
  });

  it('reads not., (any)/(all), is, isdistinct and fts with a language', () => {
    expect(parseFilterValue('not.eq.2')).toEqual({ negated: true, operation: { kind: 'quant', op: 'eq', quantifier: null, value: '2' } });
    expect(parseFilterValue('like(any).{O*,P*}')).toEqual({ negated: false, operation: { kind: 'quant', op: 'like', quantifier: 'any', value: '{O*,P*}' } });
    expect(parseFilterValue('gte(all).{1,2}').operation).toEqual({ kind: 'quant', op: 'gte', quantifier: 'all', value: '{1,2}' });
    for (const v of ['null', 'not_null', 'true', 'false', 'unknown'] as const) {
      expect(parseFilterValue(`is.${v.toUpperCase()}`).operation).toEqual({ kind: 'is', value: v });
    }
    expect(parseFilterValue('isdistinct.foo').operation).toEqual({ kind: 'isdistinct', value: 'foo' });
    expect(parseFilterValue('fts(english).cat & dog').operation).toEqual({ kind: 'fts', op: 'fts', language: 'english', value: 'cat & dog' });
    for (const op of ['plfts', 'phfts', 'wfts'] as const) {
      expect(parseFilterValue(`${op}.a b`).operation).toEqual({ kind: 'fts', op, language: null, value: 'a b' });
    }
  });

  it('reads in lists with quoted items, escapes and the empty list', () => {
    expect(parseFilterValue('in.(1,"a,b","c\\"d","e\\\\f", g )').operation).toEqual({ kind: 'in', values: ['1', 'a,b', 'c"d', 'e\\f', ' g '] });
    expect(parseFilterValue('in.()').operation).toEqual({ kind: 'in', values: [] });
    expect(parseFilterValue('not.in.(1,2)')).toEqual({ negated: true, operation: { kind: 'in', values: ['1', '2'] } });
  });

  it('reports unknown operators as PostgREST does', () => {
    expect(errorOf(() => parseFilterValue('noop.0'))).toEqual({ status: 400, body: {
      code: 'PGRST100', message: '"failed to parse filter (noop.0)" (line 1, column 1)',
      details: 'unexpected "n" expecting "not" or operator (eq, gt, ...)', hint: null,
    } });
    // PostgREST's QuerySpec: `?id=0`; after `not.` only an operator can come.
    expect(errorOf(() => parseFilterValue('0')).body.details).toBe('unexpected "0" expecting "not" or operator (eq, gt, ...)');
    expect(errorOf(() => parseFilterValue('not.0')).body.details).toBe('unexpected "0" expecting operator (eq, gt, ...)');
    expect(errorOf(() => parseFilterValue('')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseFilterValue('is.maybe')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseFilterValue('in.(1,2')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseFilterValue('in.(1)x')).body.code).toBe('PGRST100');
  });

  it('keeps hostile values as data: SQL text never sees them', () => {
    const value = "'; drop table films; -- \u00e9\u{1F600} ".repeat(2000);
    expect(parseFilterValue(`eq.${value}`).operation).toEqual({ kind: 'quant', op: 'eq', quantifier: null, value });
  });
});

describe('filter keys', () => {
  it('reads embed paths, JSON paths and quoted names', () => {
    expect(parseFilterKey('actors.roles.character')).toEqual({ path: ['actors', 'roles'], field: f('character') });
    expect(parseFilterKey('meta->>author')).toEqual({ path: [], field: { name: 'meta', jsonPath: [{ arrow: '->>', key: 'author', index: false }] } });
    expect(parseFilterKey('"information.cpe"')).toEqual({ path: [], field: f('information.cpe') });
  });

  it('refuses garbage after the field', () => {
    expect(errorOf(() => parseFilterKey('a(b)')).body.code).toBe('PGRST100');
  });
});

describe('logic trees', () => {
  it('reads nested and negated trees with quoted values, arrays and lists', () => {
    const { path, condition } = parseLogicParam('or', '(age.lt.18,not.and(a.gte.11,a.lte.17),name.eq."a,b",arr.cs.{1,2},id.in.(1,"x)"),r.adj."[1,2)")');
    expect(path).toEqual([]);
    expect(condition).toEqual({
      type: 'logic', op: 'or', negated: false, children: [
        { type: 'filter', field: f('age'), expr: { negated: false, operation: { kind: 'quant', op: 'lt', quantifier: null, value: '18' } } },
        { type: 'logic', op: 'and', negated: true, children: [
          { type: 'filter', field: f('a'), expr: { negated: false, operation: { kind: 'quant', op: 'gte', quantifier: null, value: '11' } } },
          { type: 'filter', field: f('a'), expr: { negated: false, operation: { kind: 'quant', op: 'lte', quantifier: null, value: '17' } } },
        ] },
        { type: 'filter', field: f('name'), expr: { negated: false, operation: { kind: 'quant', op: 'eq', quantifier: null, value: 'a,b' } } },
        { type: 'filter', field: f('arr'), expr: { negated: false, operation: { kind: 'simple', op: 'cs', value: '{1,2}' } } },
        { type: 'filter', field: f('id'), expr: { negated: false, operation: { kind: 'in', values: ['1', 'x)'] } } },
        { type: 'filter', field: f('r'), expr: { negated: false, operation: { kind: 'simple', op: 'adj', value: '[1,2)' } } },
      ],
    });
  });

  it('reads negation and embed scope from the key', () => {
    const { path, condition } = parseLogicParam('actors.roles.not.and', '( x.eq.1 , y.not.is.null )');
    expect(path).toEqual(['actors', 'roles']);
    expect(condition).toMatchObject({ type: 'logic', op: 'and', negated: true });
    expect(condition.children[1]).toEqual({ type: 'filter', field: f('y'), expr: { negated: true, operation: { kind: 'is', value: 'null' } } });
  });

  it('refuses an empty tree with PostgREST wording', () => {
    expect(errorOf(() => parseLogicParam('or', '()'))).toEqual({ status: 400, body: {
      code: 'PGRST100', message: '"failed to parse logic tree (())" (line 1, column 4)',
      details: 'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
      hint: null,
    } });
  });

  it('bounds nesting depth', () => {
    const deep = `(${'or('.repeat(100)}a.eq.1${')'.repeat(100)})`;
    expect(errorOf(() => parseLogicParam('or', deep)).body.code).toBe('PGRST100');
  });

  it('refuses unbalanced input', () => {
    for (const bad of ['(a.eq.1', 'a.eq.1', '(a.eq.1))', '(a.zz.1)']) {
      expect(errorOf(() => parseLogicParam('or', bad)).body.code).toBe('PGRST100');
    }
  });
});

describe('order', () => {
  it('reads directions, nulls, JSON paths and related orders', () => {
    expect(parseOrder('a, b.desc,c.asc.nullslast,d.nullsfirst,j->>k.desc,clients(name).desc')).toEqual([
      { relation: null, field: f('a'), direction: null, nulls: null },
      { relation: null, field: f('b'), direction: 'desc', nulls: null },
      { relation: null, field: f('c'), direction: 'asc', nulls: 'last' },
      { relation: null, field: f('d'), direction: null, nulls: 'first' },
      { relation: null, field: { name: 'j', jsonPath: [{ arrow: '->>', key: 'k', index: false }] }, direction: 'desc', nulls: null },
      { relation: 'clients', field: f('name'), direction: 'desc', nulls: null },
    ]);
  });

  it('refuses unknown modifiers', () => {
    expect(errorOf(() => parseOrder('id.ac'))).toEqual({ status: 400, body: {
      code: 'PGRST100', message: '"failed to parse order (id.ac)" (line 1, column 3)',
      details: 'unexpected "." expecting "asc", "desc", "nullsfirst" or "nullslast"', hint: null,
    } });
    // PostgREST's QuerySpec: where the input should end, the character is shown in single quotes.
    expect(errorOf(() => parseOrder('id.asc.nullslasttt'))).toEqual({ status: 400, body: {
      code: 'PGRST100', message: '"failed to parse order (id.asc.nullslasttt)" (line 1, column 17)',
      details: 'unexpected \'t\' expecting "," or end of input', hint: null,
    } });
    expect(errorOf(() => parseOrder('id.desc.x')).body.code).toBe('PGRST100');
    expect(errorOf(() => parseOrder('')).body.code).toBe('PGRST100');
  });
});

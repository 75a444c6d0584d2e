import { describe, expect, it } from 'vitest';
import type { RowsPayload } from '../../../runtime/rest/parse/ast.js';
import { PlanCache, type Plan } from '../../../runtime/rest/plan-cache.js';
import { buildStatement } from '../../../runtime/rest/sql/build.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { request } from './request-helper.js';

const plan = (n: number): Plan => ({ request: { target: `t${n}` }, built: { name: `s${n}` } }) as unknown as Plan;

describe('PlanCache', () => {
  it('keys bodiless requests by method, path, query and the headers that shape the statement', () => {
    const cache = new PlanCache();
    const base = cache.keyOf('GET', '/todos', 'select=id', { apikey: 'a', authorization: 'Bearer x', 'x-client-info': 'js' });
    expect(base).toBe(cache.keyOf('GET', '/todos', 'select=id', { apikey: 'b', authorization: 'Bearer y' }));
    expect(base).not.toBe(cache.keyOf('HEAD', '/todos', 'select=id', {}));
    expect(base).not.toBe(cache.keyOf('GET', '/todos', 'select=id', { prefer: 'count=exact' }));
    expect(base).not.toBe(cache.keyOf('GET', '/todos', 'select=id', { accept: 'text/csv' }));
    expect(base).not.toBe(cache.keyOf('GET', '/todos', 'select=id', { range: '0-1' }));
    expect(base).not.toBe(cache.keyOf('GET', '/todos', 'select=id', { 'accept-profile': 'public' }));
    expect(cache.keyOf('POST', '/todos', '', {})).toBeNull();
    expect(cache.keyOf('PATCH', '/todos', 'id=eq.1', {})).toBeNull();
    expect(cache.keyOf('GET', '/todos', `name=eq.${'x'.repeat(5000)}`, {})).toBeNull();
  });

  it('evicts the oldest plan when full', () => {
    const cache = new PlanCache(2);
    cache.set('a', plan(1));
    cache.set('b', plan(2));
    cache.set('c', plan(3));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(plan(2));
    expect(cache.get('c')).toEqual(plan(3));
  });

  it('keys a write by its shape and its body\'s keys, not by the body\'s values', () => {
    const cache = new PlanCache();
    const rows = (keys: string[], rowCount = 1, absent?: string[]): RowsPayload => ({ kind: 'rows', json: '[]', keys, rowCount, ...(absent ? { absent } : {}) });
    const base = cache.writeKeyOf('POST', '/films', '', { prefer: 'return=representation' }, rows(['id', 'title']));
    expect(base).toBe(cache.writeKeyOf('POST', '/films', '', { prefer: 'return=representation', authorization: 'Bearer x' }, { ...rows(['id', 'title'], 5), json: '[{"id":9}]' }));
    expect(base).not.toBe(cache.writeKeyOf('POST', '/films', '', { prefer: 'return=representation' }, rows(['title', 'id'])));
    expect(base).not.toBe(cache.writeKeyOf('POST', '/films', '', { prefer: 'return=representation' }, rows(['id', 'title'], 0)));
    expect(base).not.toBe(cache.writeKeyOf('POST', '/films', '', { prefer: 'return=representation' }, rows(['id', 'title'], 1, ['year'])));
    expect(base).not.toBe(cache.writeKeyOf('POST', '/films', 'columns=id,title', { prefer: 'return=representation' }, rows(['id', 'title'])));
    expect(base).not.toBe(cache.writeKeyOf('PATCH', '/films', '', { prefer: 'return=representation' }, rows(['id', 'title'])));
    expect(base).not.toBe(cache.writeKeyOf('POST', '/films', '', { prefer: 'return=minimal' }, rows(['id', 'title'])));
    expect(cache.writeKeyOf('POST', '/films', '', {}, rows(Array.from({ length: 600 }, (_, i) => `column_${i}`)))).toBeNull();
  });

  it('a kept write statement given another body with the same keys is the statement built for that body', () => {
    const cases: [method: string, query: string, headers: Record<string, string>, first: string, next: string][] = [
      ['POST', 'select=id,title', { prefer: 'return=representation' }, '{"id":1,"title":"a"}', '[{"id":2,"title":"b"},{"id":3,"title":"c"}]'],
      ['POST', '', { prefer: 'resolution=merge-duplicates,return=minimal' }, '{"id":1,"title":"a"}', '{"id":4,"title":"d"}'],
      ['POST', 'columns=id,title', { prefer: 'missing=default' }, '{"id":1}', '{"id":5}'],
      ['PATCH', 'id=eq.7', { prefer: 'return=representation' }, '{"title":"a"}', '{"title":"e"}'],
      ['PUT', 'id=eq.8', {}, '{"id":8,"title":"a"}', '{"id":8,"title":"f"}'],
    ];
    for (const [method, query, headers, first, next] of cases) {
      const cache = new PlanCache();
      const firstRequest = request(method, 'films', query, { headers, body: first });
      const nextRequest = request(method, 'films', query, { headers, body: next });
      const key = cache.writeKeyOf(method, '/films', query, headers, firstRequest.payload as RowsPayload)!;
      expect(cache.writeKeyOf(method, '/films', query, headers, nextRequest.payload as RowsPayload)).toBe(key);
      expect(cache.statementFor(key, (nextRequest.payload as RowsPayload).json)).toBeUndefined();
      cache.keepStatement(key, buildStatement(firstRequest, META));
      expect(cache.statementFor(key, (nextRequest.payload as RowsPayload).json)).toEqual(buildStatement(nextRequest, META));
    }
  });

  it('keeps no body: a kept statement holds an empty string where the body went', () => {
    const cache = new PlanCache();
    const big = `[${Array.from({ length: 1000 }, (_, i) => `{"id":${i},"title":"${'x'.repeat(100)}"}`).join(',')}]`;
    const built = buildStatement(request('POST', 'films', '', { body: big }), META);
    cache.keepStatement('k', built);
    expect(JSON.stringify(cache.statementFor('k', '[]'))).not.toContain('xxxx');
    expect(cache.statementFor('k', '[]')!.values).toEqual(['[]']);
  });
});

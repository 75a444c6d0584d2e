import { describe, expect, it } from 'vitest';
import { PlanCache, type Plan } from '../../../runtime/rest/plan-cache.js';

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
});

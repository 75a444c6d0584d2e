import { describe, expect, it } from 'vitest';
import { ConnectionBudget } from '../../../runtime/db/connection-budget.js';
import { sizeAfterHandBack, sizeAfterSweep, sizeForCheckout } from '../../../runtime/db/pool-growth.js';

const bounds = { base: 3, ceiling: 6 };

describe('pool growth decisions', () => {
  it('grows by one only when every connection is busy, below the ceiling, and the budget has room', () => {
    expect(sizeForCheckout({ size: 3, busy: 2 }, bounds, true)).toBe(3);
    expect(sizeForCheckout({ size: 3, busy: 3 }, bounds, true)).toBe(4);
    expect(sizeForCheckout({ size: 3, busy: 3 }, bounds, false)).toBe(3);
    expect(sizeForCheckout({ size: 6, busy: 6 }, bounds, true)).toBe(6);
  });

  it('gives one back per hand-back while the host asks it to yield, never below the base', () => {
    expect(sizeAfterHandBack(5, bounds, true)).toBe(4);
    expect(sizeAfterHandBack(5, bounds, false)).toBe(5);
    expect(sizeAfterHandBack(3, bounds, true)).toBe(3);
  });

  it('shrinks at a sweep to the busiest moment since the last one, never below the base', () => {
    expect(sizeAfterSweep(6, bounds, 6)).toBe(6);
    expect(sizeAfterSweep(6, bounds, 4)).toBe(4);
    expect(sizeAfterSweep(6, bounds, 0)).toBe(3);
    expect(sizeAfterSweep(3, bounds, 5)).toBe(3);
  });
});

describe('ConnectionBudget past an owner share', () => {
  const limits = { max: 10, perOwner: 3, headroom: 2, maxWaiting: 10, maxWaitMs: 60_000 };

  it('lets an owner grow past its share while nobody else waits, keeping the headroom free', async () => {
    const budget = new ConnectionBudget(limits);
    for (let n = 0; n < 8; n++) {
      expect(budget.mayGrow('a')).toBe(true);
      await budget.acquire('a');
    }
    expect(budget.mayGrow('a')).toBe(false);
    expect(budget.stats()).toEqual({ inUse: 8, waiting: 0, owners: 1 });
    // The headroom serves a project arriving now, at once.
    await budget.acquire('b');
    await budget.acquire('b');
    expect(budget.stats()).toEqual({ inUse: 10, waiting: 0, owners: 2 });
  });

  it('without headroom an owner never holds more than its share', async () => {
    const budget = new ConnectionBudget({ ...limits, headroom: undefined });
    for (let n = 0; n < 3; n++) await budget.acquire('a');
    expect(budget.mayGrow('a')).toBe(false);
    expect(budget.mayGrow('b')).toBe(true);
  });

  it('a grown owner is asked to give back once another waits, and the waiter gets what it gives', async () => {
    const budget = new ConnectionBudget(limits);
    const a = [];
    for (let n = 0; n < 8; n++) a.push(await budget.acquire('a'));
    await budget.acquire('b');
    await budget.acquire('b');
    expect(budget.contended('a')).toBe(false);
    let granted = 0;
    void budget.acquire('b').then(() => granted++);
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.stats()).toEqual({ inUse: 10, waiting: 1, owners: 2 });
    // Nobody may grow while someone waits, and 'a' holds more than an even split.
    expect(budget.mayGrow('a')).toBe(false);
    expect(budget.contended('a')).toBe(true);
    expect(budget.contended('b')).toBe(false);
    a.pop()!.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toBe(1);
    expect(budget.stats()).toEqual({ inUse: 10, waiting: 0, owners: 2 });
  });

  it('a waiting owner within its share is served before a grown owner waiting for more', async () => {
    const budget = new ConnectionBudget({ max: 4, perOwner: 2, headroom: 0, maxWaiting: 10, maxWaitMs: 60_000 });
    const held = [await budget.acquire('a'), await budget.acquire('a'), await budget.acquire('a'), await budget.acquire('b')];
    const order: string[] = [];
    void budget.acquire('a').then(() => order.push('a'));
    void budget.acquire('b').then(() => order.push('b'));
    await new Promise((resolve) => setImmediate(resolve));
    held[0]!.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['b']);
  });
});

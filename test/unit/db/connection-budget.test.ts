import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../runtime/config-error.js';
import { loadConfig } from '../../../runtime/config.js';
import { checkoutGate, ConnectionBudget, ConnectionBudgetError, perProjectShare, UNBOUNDED_WAIT, type Permit } from '../../../runtime/db/connection-budget.js';
import { projectPoolSizes } from '../../../runtime/host/pool-sizes.js';
import { toApiError } from '../../../runtime/rest/errors.js';

const limits = { max: 3, perOwner: 2, maxWaiting: 4, maxWaitMs: 60_000 };

/** Settles pending promise callbacks. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionBudget', () => {
  it('grants at once within the budget and the owner share, and counts what is held', async () => {
    const budget = new ConnectionBudget(limits);
    await budget.acquire('a');
    await budget.acquire('b');
    expect(budget.stats()).toEqual({ inUse: 2, waiting: 0, owners: 2 });
  });

  it('makes an owner at its share wait even when permits are free', async () => {
    const budget = new ConnectionBudget(limits);
    const a1 = await budget.acquire('a');
    await budget.acquire('a');
    let third: Permit | null = null;
    void budget.acquire('a').then((p) => (third = p));
    await tick();
    expect(third).toBeNull();
    expect(budget.stats()).toEqual({ inUse: 2, waiting: 1, owners: 1 });
    a1.release();
    await tick();
    expect(third).not.toBeNull();
    expect(budget.stats()).toEqual({ inUse: 2, waiting: 0, owners: 1 });
  });

  it('hands released permits round-robin between waiting owners, not to the first in line', async () => {
    const budget = new ConnectionBudget({ max: 2, perOwner: 2, maxWaiting: 10, maxWaitMs: 60_000 });
    const held = [await budget.acquire('x'), await budget.acquire('x')];
    const order: string[] = [];
    for (const owner of ['a', 'a', 'a', 'b', 'b']) void budget.acquire(owner).then((p) => { order.push(owner); held.push(p); });
    await tick();
    held.shift()!.release();
    held.shift()!.release();
    await tick();
    expect(order).toEqual(['a', 'b']);
    held.shift()!.release();
    held.shift()!.release();
    await tick();
    expect(order).toEqual(['a', 'b', 'a', 'b']);
  });

  it('releasing twice frees one permit', async () => {
    const budget = new ConnectionBudget(limits);
    const permit = await budget.acquire('a');
    await budget.acquire('b');
    permit.release();
    permit.release();
    expect(budget.stats().inUse).toBe(1);
  });

  it('fails at once with PGRST003 when the wait queue is full', async () => {
    const budget = new ConnectionBudget({ max: 1, perOwner: 1, maxWaiting: 1, maxWaitMs: 60_000 });
    await budget.acquire('a');
    void budget.acquire('b').catch(() => undefined);
    const error = await budget.acquire('c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionBudgetError);
    expect(error).toMatchObject({ code: 'PGRST003', reason: 'queue_full', retryAfterSeconds: 60, message: 'Timed out acquiring connection from connection pool.' });
    budget.close();
  });

  it('fails a wait that outlasts maxWaitMs, and forgets it', async () => {
    const budget = new ConnectionBudget({ max: 1, perOwner: 1, maxWaiting: 5, maxWaitMs: 20 });
    await budget.acquire('a');
    const error = await budget.acquire('b').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PGRST003', reason: 'timed_out', retryAfterSeconds: 1 });
    expect(budget.stats()).toEqual({ inUse: 1, waiting: 0, owners: 1 });
  });

  it('asks to reclaim for the waiting owner, and what is reclaimed goes to it', async () => {
    const asked: string[] = [];
    let idle: Permit | null = null;
    const budget = new ConnectionBudget({ max: 1, perOwner: 1, maxWaiting: 5, maxWaitMs: 60_000 }, (owner) => {
      asked.push(owner);
      idle?.release();
    });
    idle = await budget.acquire('old');
    const permit = await budget.acquire('new');
    expect(asked).toEqual(['new']);
    expect(permit).toBeDefined();
    expect(budget.stats()).toEqual({ inUse: 1, waiting: 0, owners: 1 });
  });

  it('calls an owner contended only while another waits and it holds more than an even split', async () => {
    const budget = new ConnectionBudget({ max: 4, perOwner: 4, maxWaiting: 5, maxWaitMs: 60_000 });
    for (let i = 0; i < 4; i++) await budget.acquire('busy');
    expect(budget.contended('busy')).toBe(false);
    void budget.acquire('other').catch(() => undefined);
    expect(budget.contended('busy')).toBe(true);
    expect(budget.contended('other')).toBe(false);
    budget.close();
  });

  it('fails the waiting acquisitions on close', async () => {
    const budget = new ConnectionBudget({ max: 1, perOwner: 1, maxWaiting: 5, maxWaitMs: 60_000 });
    await budget.acquire('a');
    const waiting = budget.acquire('b').catch((e: unknown) => e);
    budget.close();
    expect(await waiting).toBeInstanceOf(ConnectionBudgetError);
  });
});

describe('checkoutGate', () => {
  it('hands free slots out synchronously (tryAcquire), counts them, and passes nobody who waits', async () => {
    const gate = checkoutGate(2, UNBOUNDED_WAIT);
    const first = gate.tryAcquire('slot')!;
    const second = gate.tryAcquire('slot')!;
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(gate.stats()).toEqual({ inUse: 2, waiting: 0, owners: 1 });
    expect(gate.tryAcquire('slot')).toBeNull();

    let granted: Permit | undefined;
    void gate.acquire('slot').then((permit) => (granted = permit));
    expect(gate.stats()).toEqual({ inUse: 2, waiting: 1, owners: 1 });
    first.release();
    // The freed slot went to the waiter, not to the next tryAcquire.
    expect(gate.tryAcquire('slot')).toBeNull();
    await tick();
    expect(granted).toBeDefined();
    expect(gate.stats()).toEqual({ inUse: 2, waiting: 0, owners: 1 });

    second.release();
    granted!.release();
    granted!.release();
    expect(gate.stats()).toEqual({ inUse: 0, waiting: 0, owners: 0 });
    const again = gate.tryAcquire('slot');
    expect(again).not.toBeNull();
    expect(gate.stats()).toEqual({ inUse: 1, waiting: 0, owners: 1 });
  });
});

describe('per-project shares', () => {
  it('gives a project a third of the budget, at least 4, at most all', () => {
    expect([4, 10, 30, 100].map(perProjectShare)).toEqual([4, 4, 10, 33]);
  });

  it('splits a share so that the pools plus the schema watch never exceed it', () => {
    expect(projectPoolSizes(4, 2)).toEqual({ shared: 1, pooled: 1, admin: 1 });
    expect(projectPoolSizes(10, 2)).toEqual({ shared: 2, pooled: 5, admin: 2 });
    expect(projectPoolSizes(33, 8)).toEqual({ shared: 8, pooled: 10, admin: 4 });
    for (let share = 4; share <= 60; share++) {
      const { shared, pooled, admin } = projectPoolSizes(share, 4);
      expect(shared + pooled + admin + 1).toBeLessThanOrEqual(share);
      expect(Math.min(shared, pooled, admin)).toBeGreaterThanOrEqual(1);
    }
    expect(() => projectPoolSizes(3, 2)).toThrow(RangeError);
  });
});

describe('answers for a spent budget', () => {
  it('data API: 503 PGRST003 with PostgREST message and Retry-After', () => {
    const answer = toApiError(new ConnectionBudgetError('queue_full', 10));
    expect([answer.status, answer.headers, answer.toJSON()]).toEqual([
      503,
      { 'Retry-After': '10' },
      { code: 'PGRST003', message: 'Timed out acquiring connection from connection pool.', details: null, hint: null },
    ]);
  });

  it('DB_MAX_CONNECTIONS: default 30, at least 4', () => {
    expect(loadConfig({}).dbMaxConnections).toBe(30);
    expect(loadConfig({ DB_MAX_CONNECTIONS: '12' }).dbMaxConnections).toBe(12);
    expect(() => loadConfig({ DB_MAX_CONNECTIONS: '3' })).toThrow('DB_MAX_CONNECTIONS must be an integer of at least 4, got "3"');
    expect(() => loadConfig({ DB_MAX_CONNECTIONS: 'many' })).toThrow(ConfigError);
  });
});

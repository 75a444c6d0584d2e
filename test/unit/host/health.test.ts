import { describe, expect, it } from 'vitest';
import { createReadiness, drainableReadiness, readinessStatus } from '../../../runtime/host/health.js';

describe('readiness', () => {
  it('is ready only when every probe answers, naming each', async () => {
    const readiness = createReadiness({ database: async () => 1, queue: () => Promise.reject(new Error('ECONNREFUSED')) });
    expect(await readiness()).toEqual({ ready: false, checks: { database: 'ok', queue: 'unavailable' } });
    expect(await createReadiness({ database: async () => 1 })()).toEqual({ ready: true, checks: { database: 'ok' } });
  });

  it('counts a probe that does not answer in time as unavailable', async () => {
    const readiness = createReadiness({ database: () => new Promise(() => undefined) }, 20);
    expect(await readiness()).toEqual({ ready: false, checks: { database: 'unavailable' } });
  });

  it('shares one check among the requests that arrive while it runs, and runs a new one after', async () => {
    let runs = 0;
    const readiness = createReadiness({ database: async () => runs++ });
    const [a, b] = await Promise.all([readiness(), readiness()]);
    expect(a).toBe(b);
    expect(runs).toBe(1);
    await readiness();
    expect(runs).toBe(2);
  });

  it('answers draining without asking the probes once the host drains, and says so in its status', async () => {
    let runs = 0;
    let draining = false;
    const readiness = drainableReadiness(createReadiness({ database: async () => runs++ }), () => draining);
    expect(readinessStatus(await readiness())).toBe('ok');
    draining = true;
    const report = await readiness();
    expect([report, readinessStatus(report), runs]).toEqual([{ ready: false, checks: {}, draining: true }, 'draining', 1]);
    expect(readinessStatus({ ready: false, checks: { database: 'unavailable' } })).toBe('unavailable');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RlsExecutor, type RequestIdentity } from '../../../runtime/db/rls-transaction.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, testConfig } from '../../helpers/platform.js';

/**
 * Clients choose the shape of data API statements, so a connection must not collect
 * prepared statements without bound: past its budget it is replaced, on the shared
 * pipelined connections as on the pooled ones, and no transaction fails for it.
 */

let platform: Platform;
let url: string;

const anon: RequestIdentity = { role: 'anon', claims: '{"role":"anon"}', method: 'GET', path: '/x', headers: '{}', cookies: '{}', searchPath: '"public"', timezone: null, preRequest: null, appSettings: [] };

function probe(i: number) {
  return {
    name: `budget_probe_${i}`,
    text: `SELECT pg_backend_pid() AS pid, (SELECT count(*) FROM pg_prepared_statements)::int AS prepared, ${i} AS i`,
    values: [],
  };
}

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
  const { record } = await createTestProject(platform, {});
  url = platform.authenticatorUrl(record.databaseName);
});
afterAll(() => platform?.close());

describe('RlsExecutor prepared-statement budget', () => {
  it.each([
    ['shared pipelined connections (reads)', { readOnly: true }],
    ['pooled connections (writes)', { readOnly: false }],
    ['pooled connections awaiting a commit decision', { readOnly: false, commitIf: () => true }],
  ])('replaces %s once they hold more than the budget', async (_name, options) => {
    const executor = new RlsExecutor(url, { shared: 1, pooled: 1, maxPrepared: 4 });
    try {
      const seen: { pid: number; prepared: number; i: number }[] = [];
      for (let i = 0; i < 10; i += 1) {
        const [result] = await executor.run(anon, [probe(i)], options);
        seen.push(result!.rows[0] as { pid: number; prepared: number; i: number });
      }
      expect(seen.map((r) => r.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(Math.max(...seen.map((r) => r.prepared))).toBeLessThanOrEqual(4);
      expect(new Set(seen.map((r) => r.pid)).size).toBeGreaterThanOrEqual(3);
    } finally {
      await executor.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { pgbenchScript, withSpreadKey } from '../../../bench/pgbench.js';
import type { RequestIdentity } from '../../../runtime/db/rls-transaction.js';
import type { BuiltStatement } from '../../../runtime/rest/sql/statement.js';

const identity: RequestIdentity = {
  role: 'authenticated', claims: '{}', method: 'PATCH', path: '/notes', headers: '{}', cookies: '{}', searchPath: '"public"', timezone: null, preRequest: null, appSettings: [],
};
const built = { text: 'UPDATE notes SET body = $1 WHERE id = $2', values: ['patched', '7'], readOnly: false } as unknown as BuiltStatement;

describe('pgbench scripts', () => {
  it('a spread key is drawn by pgbench in each transaction instead of passed as a fixed variable', () => {
    const spread = withSpreadKey(pgbenchScript(identity, built), '7', { first: 7, step: 100, count: 1000 });
    expect(spread.script.split('\n').slice(0, 2)).toEqual(['\\set p2 7 + 100 * random(0, 999)', 'BEGIN ISOLATION LEVEL READ COMMITTED;']);
    expect(spread.script).toContain('UPDATE notes SET body = :p1 WHERE id = :p2;');
    expect(spread.variables.p1).toBe('patched');
    expect(spread.variables).not.toHaveProperty('p2');
  });

  it('refuses a key that no parameter holds', () => {
    expect(() => withSpreadKey(pgbenchScript(identity, built), '8', { first: 8, step: 1, count: 2 })).toThrow(/no statement parameter has the value 8/);
  });
});

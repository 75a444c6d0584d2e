import { describe, expect, it } from 'vitest';
import { pgbenchScript, withSpread } from '../../../bench/pgbench.js';
import type { RequestIdentity } from '../../../runtime/db/rls-transaction.js';
import type { BuiltStatement } from '../../../runtime/rest/sql/statement.js';

const identity: RequestIdentity = {
  role: 'authenticated', claims: '{}', method: 'PATCH', path: '/notes', headers: '{}', cookies: '{}', searchPath: '"public"', timezone: null, preRequest: null, appSettings: [],
};
const built = { text: 'UPDATE notes SET body = $1 WHERE id = $2', values: ['patched', '7'], readOnly: false } as unknown as BuiltStatement;

describe('pgbench scripts', () => {
  it('a spread key is drawn by pgbench in each transaction instead of passed as a fixed variable', () => {
    const spread = withSpread(pgbenchScript(identity, built), { value: '7', first: 7, step: 100, count: 1000 });
    expect(spread.script.split('\n').slice(0, 2)).toEqual(['\\set p2 7 + 100 * random(0, 999)', 'BEGIN ISOLATION LEVEL READ COMMITTED;']);
    expect(spread.script).toContain('UPDATE notes SET body = :p1 WHERE id = :p2;');
    expect(spread.variables.p1).toBe('patched');
    expect(spread.variables).not.toHaveProperty('p2');
  });

  it('refuses a key that no parameter holds', () => {
    expect(() => withSpread(pgbenchScript(identity, built), { value: '8', first: 8, step: 1, count: 2 })).toThrow(/no statement parameter has the value 8/);
  });

  it('a key inside the JSON body is drawn in each transaction and joined into the body where its parameter was', () => {
    const upsert = {
      text: 'INSERT INTO notes SELECT * FROM json_populate_recordset(NULL::notes, $1::json) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body',
      values: ['[{"id":7,"body":"upserted"}]'], readOnly: false,
    } as unknown as BuiltStatement;
    const spread = withSpread(pgbenchScript(identity, upsert), { member: 'id', value: '7', first: 7, step: 100, count: 1000 });
    expect(spread.script.split('\n')[0]).toBe('\\set p1 7 + 100 * random(0, 999)');
    expect(spread.script).toContain('json_populate_recordset(NULL::notes, (:p1a::text || :p1 || :p1b::text)::json)');
    expect(spread.variables).toMatchObject({ p1a: '[{"id":', p1b: ',"body":"upserted"}]' });
    expect(spread.variables).not.toHaveProperty('p1');
  });

  it('refuses a body that does not hold the key exactly once', () => {
    const twice = { text: 'SELECT $1::json', values: ['[{"id":7},{"id":7}]'], readOnly: false } as unknown as BuiltStatement;
    expect(() => withSpread(pgbenchScript(identity, twice), { member: 'id', value: '7', first: 7, step: 1, count: 2 })).toThrow(/no statement parameter holds "id":7 once/);
  });
});

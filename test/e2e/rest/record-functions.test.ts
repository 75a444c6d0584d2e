import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, readGenerated, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';

/**
 * Functions returning an anonymous `record` or `SETOF record` (test/fixtures/schemas/rest-records.sql).
 * As PostgREST (RpcSpec "returns a record type" / "returns a setof record type"): called without
 * a column definition list, each record answered as a JSON object named by the query's columns;
 * `record` gives one object (null without a row), `SETOF record` an array.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-records.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

const windows7 = { id: 1, name: 'Windows 7', client_id: 1 };
const windows10 = { id: 2, name: 'Windows 10', client_id: 1 };

describe('RETURNS record', () => {
  it('answers the record as one object, with and without arguments', async () => {
    const bare = await call('/rpc/returns_record', { method: 'POST', body: '' });
    expect([bare.status, bare.json]).toEqual([200, windows7]);
    const params = await call('/rpc/returns_record_params', { method: 'POST', body: { id: 1, name: 'Windows%' } });
    expect([params.status, params.json]).toEqual([200, windows7]);
    const read = await call('/rpc/returns_record_params?id=1&name=Windows%25');
    expect([read.status, read.json]).toEqual([200, windows7]);
  });

  it('names the fields of a row constructor f1, f2 and answers null without a row', async () => {
    const row = await call('/rpc/returns_row_constructor', { method: 'POST', body: {} });
    expect([row.status, row.json]).toEqual([200, { f1: 1, f2: 'one' }]);
    const none = await call('/rpc/returns_no_record', { method: 'POST', body: {} });
    expect([none.status, none.text]).toEqual([200, 'null']);
  });
});

describe('RETURNS SETOF record', () => {
  it('answers the records as an array of objects, with and without arguments', async () => {
    const bare = await call('/rpc/returns_setof_record', { method: 'POST', body: '' });
    expect([bare.status, bare.json]).toEqual([200, [windows7, windows10]]);
    const params = await call('/rpc/returns_setof_record_params', { method: 'POST', body: { id: 1, name: 'Windows%' } });
    expect([params.status, params.json]).toEqual([200, [windows7, windows10]]);
    const read = await call('/rpc/returns_setof_record_params?id=2&name=Windows%25');
    expect([read.status, read.json]).toEqual([200, [windows10]]);
  });

  it('pages and counts the records', async () => {
    const res = await call('/rpc/returns_setof_record_params?id=1&name=%25&limit=2&offset=1', { headers: { Prefer: 'count=exact' } });
    expect([res.status, res.headers.get('content-range'), res.json]).toEqual([
      206,
      '1-2/5',
      [windows10, { id: 3, name: 'IOS', client_id: 2 }],
    ]);
  });
});

describe('database.types.ts', () => {
  it('types the results as supabase gen types: Record<string, unknown>', async () => {
    const types = await readGenerated(host.platform, project, 'database.types.ts');
    expect(types).toContain(`      returns_record: {
        Args: never;
        Returns: Record<string, unknown>;
      };`);
    expect(types).toContain(`      returns_setof_record_params: {
        Args: {
          id: number;
          name: string;
        };
        Returns: Record<string, unknown>[];
      };`);
  });
});

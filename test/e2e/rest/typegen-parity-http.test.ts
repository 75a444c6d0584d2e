import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, fixtureSchema, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { restCaller } from './http.js';

/**
 * The data API on postgres-meta's typegen cases (test/fixtures/schemas/typegen-parity.sql),
 * as PostgREST answers them: functions and a table owned by extensions in `public` are
 * served, intervals travel as strings, and rows a function returns carry no computed fields.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('typegen-parity.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

describe('objects owned by extensions, over HTTP', () => {
  it('calls pg_trgm and postgres_fdw functions through /rpc', async () => {
    const limit = await call('/rpc/show_limit');
    expect({ status: limit.status, json: limit.json }).toEqual({ status: 200, json: 0.3 });
    const disconnected = await call('/rpc/postgres_fdw_disconnect_all', { method: 'POST', body: {} });
    expect({ status: disconnected.status, json: disconnected.json }).toEqual({ status: 200, json: false });
  });

  it('reads a table pg_trgm owns', async () => {
    const words = await call('/trigram_words?order=id');
    expect({ status: words.status, json: words.json }).toEqual({ status: 200, json: [{ id: 1, word: 'gantry' }, { id: 2, word: 'granary' }] });
  });
});

describe("postgres-meta's other typegen cases, over HTTP", () => {
  it('sends intervals as strings', async () => {
    const rows = await call('/interval_test?select=duration_required,duration_optional&order=id');
    expect({ status: rows.status, json: rows.json }).toEqual({
      status: 200,
      json: [
        { duration_required: '1 day 02:30:00', duration_optional: '3 days 05:00:00' },
        { duration_required: '7 days', duration_optional: null },
      ],
    });
    const added = await call('/rpc/add_interval_to_duration', { method: 'POST', body: { base_duration: '1 day', additional_interval: '02:00:00' } });
    expect({ status: added.status, json: added.json }).toEqual({ status: 200, json: '1 day 02:00:00' });
  });

  it('returns the columns of a row, without its computed fields', async () => {
    const row = await call('/rpc/function_returning_row');
    expect({ status: row.status, keys: Object.keys(row.json as object).sort() }).toEqual({ status: 200, keys: ['decimal', 'id', 'name', 'status', 'user_uuid'] });
  });

  it('refuses a call of overloads it cannot choose between', async () => {
    const ambiguous = await call('/rpc/postgrest_unresolvable_function?a=1');
    expect({ status: ambiguous.status, code: (ambiguous.json as { code: string }).code }).toEqual({ status: 300, code: 'PGRST203' });
  });

  it('finds two relationships to a view exposing the same key twice, so embedding it by name is ambiguous', async () => {
    const embedded = await call('/todos?select=id,users_view_with_multiple_refs_to_users(initial_id)');
    const view = 'users_view_with_multiple_refs_to_users';
    expect({ status: embedded.status, json: embedded.json }).toEqual({
      status: 300,
      json: {
        code: 'PGRST201',
        details: ['initial_id', 'second_id'].map((column) => ({
          cardinality: 'many-to-one',
          embedding: `todos with ${view}`,
          relationship: `todos_user-id_fkey using todos(user-id) and ${view}(${column})`,
        })),
        // PostgREST names each candidate by its constraint, which both share.
        hint: `Try changing '${view}' to one of the following: '${view}!todos_user-id_fkey', '${view}!todos_user-id_fkey'. Find the desired relationship in the 'details' key.`,
        message: `Could not embed because more than one relationship was found for 'todos' and '${view}'`,
      },
    });
  });
});

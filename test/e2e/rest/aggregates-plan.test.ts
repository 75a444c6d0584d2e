import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestProject, runCli, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, userToken, type ApiResponse } from './http.js';

/**
 * Aggregates (`api.aggregates`, PostgREST's db-aggregates-enabled) and execution plans
 * (`api.plan`, db-plan-enabled) over raw HTTP and supabase-js: off by default, switched on
 * with `project config --set`, RLS applying inside the aggregates.
 */

// CLI runs spawn a process each, slow on a loaded machine.
const SLOW = 180_000;
const ANN = '00000000-0000-0000-0000-0000000000a1';
const BEN = '00000000-0000-0000-0000-0000000000b1';

const SCHEMA = `
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE orders (
  id int PRIMARY KEY,
  customer_id int NOT NULL REFERENCES customers (id),
  owner uuid NOT NULL,
  amount numeric NOT NULL,
  placed date NOT NULL
);
INSERT INTO customers VALUES (1, 'Ann'), (2, 'Ben');
INSERT INTO orders VALUES
  (1, 1, '${ANN}', 10, '2024-01-01'), (2, 1, '${ANN}', 20, '2024-01-02'),
  (3, 2, '${BEN}', 5, '2024-01-01'), (4, 2, '${BEN}', 7.5, '2024-01-02');
ALTER TABLE orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY "users see their orders" ON orders FOR SELECT TO authenticated USING (owner = auth.uid());
CREATE POLICY "anon sees every order" ON orders FOR SELECT TO anon USING (true);
CREATE FUNCTION orders_from(minimum numeric) RETURNS SETOF orders LANGUAGE sql STABLE AS $$
  SELECT * FROM orders WHERE amount >= minimum
$$;
`;

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
let anon: SupabaseClient;

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: SCHEMA, generate: true });
  call = restCaller(project);
  anon = createClient(project.url, project.keys.anon_key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
});
afterAll(() => host?.close());

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the host did not pick up the setting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function ok(res: ApiResponse): unknown {
  expect(res.status, res.text).toBe(200);
  return res.json;
}

const PLAN_JSON = { Accept: 'application/vnd.pgrst.plan+json' };

describe('with the settings off (the default)', () => {
  it('refuses aggregates with 400 PGRST123 and plans with 406 PGRST107; the legacy bare count still works', async () => {
    const refused = await call('/orders?select=amount.sum()');
    expect([refused.status, refused.json]).toEqual([400, errorBody('PGRST123', 'Use of aggregate functions is not allowed')]);
    expect((await call('/customers?select=name,orders(count())')).json).toEqual(errorBody('PGRST123', 'Use of aggregate functions is not allowed'));
    const plan = await call('/orders', { headers: PLAN_JSON });
    expect([plan.status, plan.json]).toEqual([406, errorBody('PGRST107', 'None of these media types are available: application/vnd.pgrst.plan+json')]);
    expect(await call('/orders?select=count').then(ok)).toEqual([{ count: 4 }]);
    expect(await call('/customers?select=name,orders(count)&order=id').then(ok)).toEqual([
      { name: 'Ann', orders: [{ count: 2 }] }, { name: 'Ben', orders: [{ count: 2 }] },
    ]);
    const js = await anon.from('orders').select('amount.sum()');
    expect([js.status, js.error?.code]).toEqual([400, 'PGRST123']);
  });
});

describe('project config --set api.aggregates / api.plan', () => {
  it('refuses a value other than true or false with exit code 1, then switches both on', async () => {
    const bad = await runCli(['project', 'config', project.record.ref, '--set', 'api.aggregates=yes'], host.env);
    expect([bad.code, bad.stderr]).toEqual([1, 'gantry: api.aggregates: expected true or false, got "yes"\n']);
    const badPlan = await runCli(['project', 'config', project.record.ref, '--set', 'api.plan=1'], host.env);
    expect([badPlan.code, badPlan.stderr]).toEqual([1, 'gantry: api.plan: expected true or false, got "1"\n']);
    const set = await runCli(['project', 'config', project.record.ref, '--set', 'api.aggregates=true', '--set', 'api.plan=true'], host.env);
    expect([set.code, set.stderr]).toEqual([0, '']);
    await waitFor(() => {
      const settings = host.host.directory.get(project.record.ref)?.ctx.settings;
      return settings?.['api.aggregates'] === true && settings['api.plan'] === true;
    });
  }, SLOW);
});

describe('aggregates (api.aggregates=true)', () => {
  it('sums, averages, counts with and without a column, with casts and aliases', async () => {
    expect(await call('/orders?select=amount.sum()').then(ok)).toEqual([{ sum: 42.5 }]);
    expect(await call('/orders?select=amount.avg()::int,amount::int.sum(),amount.min(),amount.max(),total:count(),n:amount.count()').then(ok))
      .toEqual([{ avg: 11, sum: 43, min: 5, max: 20, total: 4, n: 4 }]);
  });

  it('groups by the other selected columns, embeds and to-one spreads', async () => {
    expect(await call('/orders?select=placed,total:amount.sum(),count()&order=placed').then(ok)).toEqual([
      { placed: '2024-01-01', total: 15, count: 2 }, { placed: '2024-01-02', total: 27.5, count: 2 },
    ]);
    const byCustomer = await call('/orders?select=amount.sum(),customers(name)').then(ok) as { sum: number; customers: { name: string } }[];
    expect(byCustomer.sort((a, b) => a.sum - b.sum)).toEqual([{ sum: 12.5, customers: { name: 'Ben' } }, { sum: 30, customers: { name: 'Ann' } }]);
    expect(await call('/orders?select=placed,...customers(name.min(),name.max())&order=placed').then(ok)).toEqual([
      { placed: '2024-01-01', min: 'Ann', max: 'Ben' }, { placed: '2024-01-02', min: 'Ann', max: 'Ben' },
    ]);
  });

  it('aggregates inside an embed per parent row; refuses them in a to-many spread (PGRST127)', async () => {
    expect(await call('/customers?select=name,orders(amount.sum(),count())&order=id').then(ok)).toEqual([
      { name: 'Ann', orders: [{ sum: 30, count: 2 }] }, { name: 'Ben', orders: [{ sum: 12.5, count: 2 }] },
    ]);
    const spread = await call('/customers?select=name,...orders(amount.sum())');
    expect([spread.status, spread.json]).toEqual([400, errorBody('PGRST127', 'Feature not implemented',
      'Aggregates are not implemented for one-to-many or many-to-many spreads.')]);
  });

  it('runs as the caller: RLS limits what a user token aggregates', async () => {
    const ann = userToken(project, ANN);
    expect(await call('/orders?select=amount.sum(),count()', { token: ann }).then(ok)).toEqual([{ sum: 30, count: 2 }]);
    expect(await call('/customers?select=name,orders(amount.sum())&order=id', { token: userToken(project, BEN) }).then(ok)).toEqual([
      { name: 'Ann', orders: [{ sum: null }] }, { name: 'Ben', orders: [{ sum: 12.5 }] },
    ]);
  });

  it('aggregates the rows of a set-returning function', async () => {
    expect(await call('/rpc/orders_from?minimum=7&select=amount.sum(),count()').then(ok)).toEqual([{ sum: 37.5, count: 3 }]);
    const posted = await call('/rpc/orders_from?select=placed,amount.max()&order=placed', { method: 'POST', body: { minimum: 7 } });
    expect(ok(posted)).toEqual([{ placed: '2024-01-01', max: 10 }, { placed: '2024-01-02', max: 20 }]);
  });

  it('through supabase-js: select with aggregates, aliases and grouping', async () => {
    const sum = await anon.from('orders').select('amount.sum()');
    expect([sum.status, sum.error, sum.data]).toEqual([200, null, [{ sum: 42.5 }]]);
    const grouped = await anon.from('orders').select('placed, total:amount.sum(), count()').order('placed');
    expect(grouped.data).toEqual([{ placed: '2024-01-01', total: 15, count: 2 }, { placed: '2024-01-02', total: 27.5, count: 2 }]);
  });
});

describe('execution plans (api.plan=true)', () => {
  it('answers EXPLAIN as JSON or text with PostgREST\'s Content-Type', async () => {
    const json = await call('/orders?select=amount.sum()', { headers: PLAN_JSON });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8');
    const plan = json.json as [{ Plan: Record<string, unknown> }];
    expect(typeof plan[0].Plan['Total Cost']).toBe('number');
    expect(plan[0].Plan['Actual Rows']).toBeUndefined();

    const text = await call('/orders?id=eq.1', { headers: { Accept: 'application/vnd.pgrst.plan' } });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8');
    expect(text.text).toMatch(/cost=\d/);
    expect(text.text.endsWith('\n')).toBe(true);
  });

  it('passes analyze, verbose, settings, buffers and wal to EXPLAIN and names them in the Content-Type', async () => {
    const res = await call('/orders?select=id', {
      headers: { Accept: 'application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=wal|analyze|verbose|buffers|settings' },
    });
    expect(res.headers.get('content-type'))
      .toBe('application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=analyze|verbose|settings|buffers|wal; charset=utf-8');
    const plan = (res.json as [{ Plan: Record<string, unknown> }])[0].Plan;
    expect(plan['Actual Rows']).toBe(1);
    expect(plan.Output).toBeDefined();
  });

  it('refuses a plan for a representation the resource does not offer (406)', async () => {
    const res = await call('/orders', { headers: { Accept: 'application/vnd.pgrst.plan+json; for="text/xml"' } });
    expect([res.status, (res.json as { code: string }).code]).toEqual([406, 'PGRST107']);
  });

  it('analyzes a write in its transaction: committed as PostgREST does, undone with Prefer: tx=rollback', async () => {
    const service = project.keys.service_key;
    const analyze = { Accept: 'application/vnd.pgrst.plan+json; options=analyze' };
    const row = { id: 9, customer_id: 1, owner: ANN, amount: 1, placed: '2024-02-01' };
    const undone = await call('/orders', { method: 'POST', token: service, headers: { ...analyze, Prefer: 'tx=rollback' }, body: row });
    expect(undone.status).toBe(200);
    expect((undone.json as [{ Plan: Record<string, unknown> }])[0].Plan['Actual Rows']).toBe(1);
    expect(await call('/orders?select=id&id=eq.9', { token: service }).then(ok)).toEqual([]);
    expect((await call('/orders', { method: 'POST', token: service, headers: analyze, body: row })).status).toBe(200);
    expect(await call('/orders?select=id&id=eq.9', { token: service }).then(ok)).toEqual([{ id: 9 }]);
    expect(await call('/orders?id=eq.9&select=id', { method: 'DELETE', token: service }).then(ok)).toEqual([{ id: 9 }]);
  });

  it('through supabase-js: .explain() as text and as JSON', async () => {
    const text = await anon.from('orders').select('id').eq('id', 1).explain();
    expect([text.status, text.error]).toEqual([200, null]);
    expect(text.data as unknown as string).toMatch(/cost=\d/);
    const json = await anon.from('orders').select('amount.sum()').explain({ format: 'json', analyze: true });
    expect(json.error).toBeNull();
    const plan = (json.data as unknown as [{ Plan: Record<string, unknown> }])[0].Plan;
    expect(plan['Node Type']).toBe('Aggregate');
    expect(plan['Actual Rows']).toBe(1);
  });
});

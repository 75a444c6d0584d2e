import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../helpers/platform.js';
import { fuzzSchemaSql, SHOP_TARGET } from './fuzz-schema.js';
import http from 'node:http';
import { describeFailure, runFuzz, send, type FuzzAnswer } from './fuzz-runner.js';

/** FUZZ_SEED / FUZZ_CASES replay another run; bench/fuzz-query.ts runs many more cases. */
const SEED = Number(process.env.FUZZ_SEED ?? 7_000_001);
const CASES = Number(process.env.FUZZ_CASES ?? 2_000);

let test: TestHost;
let project: TestProject;

beforeAll(async () => {
  test = await startTestHost();
  project = await createTestProject(test.platform, { sql: await fuzzSchemaSql(), host: test.host, generate: true });
}, 180_000);

afterAll(async () => {
  await test?.close();
});

describe('the data API under a seeded query-string fuzzer', () => {
  it(`answers ${CASES} generated requests (seed ${SEED}) without a 5xx, each 4xx a JSON error with a code`, async () => {
    const baseUrl = `${project.url}/rest/v1`;
    const report = await runFuzz({
      baseUrl,
      target: SHOP_TARGET,
      keys: { anon: project.keys.anon_key, service: project.keys.service_key },
      seed: SEED,
      cases: CASES,
    });
    const counted = [...report.statuses.values()].reduce((a, b) => a + b, 0);
    expect(report.failures.map((failure) => describeFailure(baseUrl, failure))).toEqual([]);
    expect(counted).toBe(CASES);
    // The grammar must reach past the parser: some requests succeed, most kinds of refusal occur.
    expect(report.statuses.get(200)).toBeGreaterThan(CASES / 20);
    expect([...report.statuses.keys()]).toEqual(expect.arrayContaining([200, 400, 404, 406]));
  }, 180_000);
});

/** One request sent byte for byte on its own connection. */
function raw(method: string, pathAndQuery: string, headers: Record<string, string> = { apikey: project.keys.anon_key }): Promise<FuzzAnswer> {
  const agent = new http.Agent({ keepAlive: false });
  return send(`${project.url}/rest/v1`, { method, path: pathAndQuery, headers, body: null }, agent)
    .finally(() => agent.destroy());
}

function json(answer: FuzzAnswer): unknown {
  return JSON.parse(answer.body);
}

describe('the root causes the fuzzer found', () => {
  it('a malformed ?apikey= escape is a 400 PGRST100, not a URIError 500 (the issue\'s OPTIONS with Range-Unit: rows)', async () => {
    const options = await raw('OPTIONS', '/rpc/echo_text?%6F%72%64%65%72=t.desc&apikey=%E0%A4%A', { apikey: project.keys.anon_key, 'range-unit': 'rows' });
    expect(options.status).toBe(400);
    expect(json(options)).toMatchObject({ code: 'PGRST100', message: 'Invalid UTF-8 in the query string' });
    const get = await raw('GET', '/customers?select=id&apikey=%zz%C3%28');
    expect(get.status).toBe(400);
    expect(json(get)).toMatchObject({ code: 'PGRST100' });
  });

  it('reads ?apikey= like every other parameter: a percent-encoded name is still the key', async () => {
    const answer = await raw('GET', `/customers?select=id&order=id&%61%70%69%6B%65%79=${project.keys.anon_key}`, {});
    expect(answer.status).toBe(200);
    expect(json(answer)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
  });

  it('a write a view cannot take is a 405 PGRST117, not PostgreSQL\'s 55000 answered 500', async () => {
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      const answer = await send(`${project.url}/rest/v1`, {
        method,
        path: '/order_totals',
        headers: { apikey: project.keys.service_key, 'content-type': 'application/json' },
        body: method === 'DELETE' ? null : '{"total":1}',
      }, new http.Agent());
      expect({ method, status: answer.status, body: json(answer) }).toEqual({
        method,
        status: 405,
        body: { code: 'PGRST117', message: `Cannot use the ${method} method on public.order_totals`, details: 'The relation is a view PostgreSQL cannot write through for this method.', hint: null },
      });
    }
  });

  it('a request Node\'s HTTP parser refuses (raw bytes in the target) is a JSON 400 with a code; a HEAD one has no body', async () => {
    const get = await raw('GET', '/customers?name=eq.\u00e9');
    expect(get.status).toBe(400);
    expect(json(get)).toEqual({ code: 'PGRST100', message: 'Malformed HTTP request', details: 'HPE_INVALID_URL', hint: null });
    const head = await raw('HEAD', '/customers?name=eq.\u0080');
    expect(head).toEqual({ status: 400, body: '' });
  });
});

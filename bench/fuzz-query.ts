/**
 * The data API's query-string fuzzer at scale (the suite runs 2,000 cases of it in
 * test/hardening/query-fuzz.test.ts):
 *   node --import tsx bench/fuzz-query.ts --cases 20000 --seed 7
 * A throwaway project (test/hardening/fuzz-schema.ts) on DATABASE_URL or an embedded cluster in
 * a temporary GANTRY_HOME, served in-process; every 5xx, and every 4xx without a JSON error
 * code, is printed with its seed, case number and a curl command. `--case N` replays one case
 * (`--cases` then counts from it). Exits 1 when any case failed.
 */
import { parseArgs } from 'node:util';
import { generateProject } from '../generator/generate.js';
import { createProject } from '../runtime/platform/bootstrap.js';
import { projectKeys } from '../runtime/platform/keys.js';
import { fuzzSchemaSql, SHOP_TARGET } from '../test/hardening/fuzz-schema.js';
import { describeFailure, runFuzz } from '../test/hardening/fuzz-runner.js';
import { startInProcessHost } from './in-process-host.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '20000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000_007) },
    case: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
  },
});
const seed = Number(values.seed);
const first = values.case === undefined ? 0 : Number(values.case);
const cases = values.case === undefined ? Number(values.cases) : Math.min(Number(values.cases), 1);

const { platform, host, close } = await startInProcessHost('gantry-fuzz-');
let failed = 0;
try {
  const record = await createProject(platform, {
    ref: `fuzz_${Date.now().toString(36)}`,
    schemaFiles: [{ name: 'fuzz.sql', sql: await fuzzSchemaSql() }],
  });
  await generateProject(platform, record);
  await host.directory.reload(record.ref);
  const keys = projectKeys(platform.config, record);
  const baseUrl = `${host.baseUrl}/v1/${record.ref}/rest/v1`;
  console.log(`fuzzing ${baseUrl}: seed ${seed}, cases ${first}..${first + cases - 1}`);
  const started = performance.now();
  const report = await runFuzz({
    baseUrl,
    target: SHOP_TARGET,
    keys: { anon: keys.anon_key, service: keys.service_key },
    seed,
    cases,
    first,
    concurrency: Number(values.concurrency),
  });
  const seconds = (performance.now() - started) / 1000;
  for (const failure of report.failures) console.log(describeFailure(baseUrl, failure));
  const statuses = [...report.statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
  console.log(`${cases} cases in ${seconds.toFixed(1)} s (${(cases / seconds).toFixed(0)}/s); statuses ${statuses}; ${report.failures.length} failed`);
  failed = report.failures.length;
} finally {
  await close();
}
process.exitCode = failed > 0 ? 1 : 0;

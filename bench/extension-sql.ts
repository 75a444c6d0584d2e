/**
 * What checking an extension's SQL adds to `migrate` and the gate: for a project whose extension sends 50 distinct
 * `ctx.sql` queries, the extension check as it was (build the program, typecheck) against the check with SQL (build,
 * find the sites, Describe each query on the database, emit extension-queries.ts, typecheck with the query types).
 * Both run in process on one connection, Describe in a transaction as at `migrate` (and, timed apart, in one of its
 * own as at `gen` and the gate, which do the same work on the live or scratch database). Embedded cluster in a temporary GANTRY_HOME unless DATABASE_URL is set.
 *
 *   npx tsx bench/extension-sql.ts [--queries 50] [--runs 3]
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../runtime/config.js';
import { taskClient } from '../runtime/db/pool-errors.js';
import { findSqlSites } from '../runtime/extensions/sql-sites.js';
import { extensionProgram, QUERY_TYPES_FILE, typecheckExtensions } from '../runtime/extensions/typecheck.js';
import { createProject, deleteProject } from '../runtime/platform/bootstrap.js';
import { Platform } from '../runtime/platform/platform.js';
import { emitExtensionQueries } from '../generator/emit/extension-queries.js';
import { emitProject } from '../generator/emit/project.js';
import { checkQueries, type SqlCheck } from '../generator/extension-sql/check-queries.js';
import { introspectProject } from '../generator/introspect/introspect.js';

const { values } = parseArgs({ options: { queries: { type: 'string', default: '50' }, runs: { type: 'string', default: '3' } } });
const queries = Number(values.queries);
const runs = Number(values.runs);
const root = path.resolve(import.meta.dirname, '..');

const SCHEMA = `CREATE TABLE orgs (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name text NOT NULL);
CREATE TABLE tickets (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, org_id uuid NOT NULL REFERENCES orgs, subject text NOT NULL,
  status text NOT NULL DEFAULT 'open', points int NOT NULL DEFAULT 0, closed_at timestamptz, meta jsonb);`;

/** Query i of the extension: selects, joins, updates and inserts, each with parameters, each text distinct. */
function query(i: number): string {
  switch (i % 4) {
    case 0:
      return `SELECT id, subject, status, points + ${i} AS score FROM tickets WHERE org_id = \${input.org} AND points > \${input.n}`;
    case 1:
      return `SELECT t.id, o.name, t.closed_at FROM tickets t JOIN orgs o ON o.id = t.org_id WHERE t.status = \${input.s} LIMIT ${i}`;
    case 2:
      return `UPDATE tickets SET points = points + ${i} WHERE id = \${input.n} RETURNING id, subject, status, meta`;
    default:
      return `INSERT INTO tickets (org_id, subject, points) VALUES (\${input.org}, \${input.s}, ${i}) RETURNING id`;
  }
}

function extension(ref: string): string {
  const routes = Array.from({ length: queries }, (_, i) => `    q${i}: route({
      input: t.object({ org: t.string(), n: t.integer(), s: t.string() }),
      output: t.integer(),
      async handler(input, ctx) {
        return (await ctx.sql\`${query(i)}\`).length;
      },
    }),`);
  return `import { defineExtension, route, t } from '${path.join(root, 'runtime/index.js')}';
import type { Database } from '../../generated/${ref}/database.types.js';

export default defineExtension<Database>()({
  routes: {
${routes.join('\n')}
  },
});
`;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-sql-bench-'));
const config = loadConfig({ ...process.env, GANTRY_HOME: home, GANTRY_GENERATED_DIR: path.join(home, 'generated'), LOG_LEVEL: 'warn' } as Record<string, string>);
const platform = await Platform.open(config);
const ref = `sql_bench_${Date.now().toString(36)}`;
try {
  const record = await createProject(platform, { ref, schemaFiles: [{ name: 'schema.sql', sql: SCHEMA }] });
  const extensionsDir = config.extensionsDir;
  await fs.mkdir(path.join(extensionsDir, ref), { recursive: true });
  await fs.writeFile(path.join(extensionsDir, ref, 'index.ts'), extension(ref));
  const client = taskClient(platform.cluster.urlFor(record.databaseName));
  await client.connect();
  try {
    const model = await introspectProject(client, { schemas: record.settings['api.schemas'] });
    const dir = path.join(config.generatedDir, ref);
    const files = emitProject(model, { ref });
    const overrides = new Map([...files].map(([file, text]) => [path.join(dir, file), text]));
    const before: number[] = [];
    const after: number[] = [];
    const describing: number[] = [];
    const describingAlone: number[] = [];
    let found: SqlCheck | null = null;
    for (let run = 0; run < runs; run++) {
      let started = performance.now();
      const old = extensionProgram({ extensionsDir, ref, overrides })!;
      const oldProblems = typecheckExtensions({ extensionsDir, ref, overrides, program: old.program });
      before.push(performance.now() - started);

      started = performance.now();
      const built = extensionProgram({ extensionsDir, ref, overrides })!;
      const sites = findSqlSites(built.program, built.files);
      await client.query('BEGIN');
      const describeStart = performance.now();
      found = await checkQueries(client, sites, extensionsDir, { role: 'authenticated', searchPath: 'public', inTransaction: true });
      describing.push(performance.now() - describeStart);
      await client.query('ROLLBACK');
      // The gate's and gen's way: no transaction of the caller's, so the check opens and rolls back its own.
      const aloneStart = performance.now();
      await checkQueries(client, sites, extensionsDir, { role: 'authenticated', searchPath: 'public', inTransaction: false });
      describingAlone.push(performance.now() - aloneStart);
      started += performance.now() - aloneStart;
      const withTypes = new Map(overrides).set(path.join(dir, QUERY_TYPES_FILE), emitExtensionQueries(ref, model, found.queries));
      const problems = typecheckExtensions({ extensionsDir, ref, overrides: withTypes, program: built.program, queryTypes: path.join(dir, QUERY_TYPES_FILE) });
      after.push(performance.now() - started);
      if (oldProblems.length + problems.length + found.problems.length > 0) throw new Error([...oldProblems, ...problems, ...found.problems].join('\n'));
    }
    console.log(`${found!.queries.length} queries described, ${runs} runs, medians (shared 2-core machine, load average ${os.loadavg()[0]!.toFixed(1)}):`);
    console.log(`  extension check without SQL: ${seconds(median(before))}`);
    console.log(`  with SQL (sites, Describe, types, typecheck with them): ${seconds(median(after))}  (Describe of all queries: ${seconds(median(describing))} in migrate's transaction, ${seconds(median(describingAlone))} in a transaction of its own as at gen and the gate)`);
    console.log(`  added: ${seconds(median(after) - median(before))}`);
  } finally {
    await client.end();
  }
} finally {
  await deleteProject(platform, ref).catch(() => undefined);
  await platform.close();
  await fs.rm(home, { recursive: true, force: true });
}

import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { typecheckAgainst } from '../../../generator/check/gate.js';
import { generateProject } from '../../../generator/generate.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, repoRoot, testConfig, type TestProject } from '../../helpers/platform.js';

/**
 * Typed results without annotations, at compile time: `gantry gen` describes each `ctx.sql` template on the database
 * and writes generated/<ref>/extension-queries.ts; Gantry's typecheck gives each template its row and parameter
 * types from it. A row is what the table says, a wrong parameter type and a column the schema lost are compile errors.
 */

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const SCHEMA = `CREATE TABLE tickets (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, org_id uuid NOT NULL, subject text, status text NOT NULL DEFAULT 'open', points int NOT NULL DEFAULT 0
);`;

const extension = (ref: string): string => `import { defineExtension, route, t } from '${path.join(repoRoot, 'runtime/index.js')}';
import type { Database } from '../../generated/${ref}/database.types.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export default defineExtension<Database>()({
  routes: {
    open: route({
      input: t.object({ org: t.string() }),
      output: t.integer(),
      async handler({ org }, ctx) {
        const rows = await ctx.sql\`SELECT * FROM tickets WHERE org_id = \${org}\`;
        const exact: Equal<(typeof rows)[number], { id: string; org_id: string; subject: string | null; status: string; points: number }> = true;
        const subject = rows[0]?.subject;
        const [total] = await ctx.sql\`SELECT count(*) AS n, max(points) AS top FROM tickets WHERE status = \${'open'}\`;
        const counted: Equal<typeof total, { n: string | null; top: number | null } | undefined> = true;
        await ctx.sql\`UPDATE tickets SET points = \${org} WHERE id = 1\`;
        return exact && counted && subject !== undefined ? rows.length : 0;
      },
    }),
  },
});
`;

let platform: Platform;
let project: TestProject;
let ref: string;

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
  project = await createTestProject(platform, { sql: SCHEMA });
  ref = project.record.ref;
  const file = path.join(platform.config.extensionsDir, ref, 'index.ts');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, extension(ref));
});
afterAll(() => platform?.close());

/** `gantry gen`'s steps in process: generate (describing the queries), then the extension typecheck it runs. */
async function genProblems(): Promise<string[]> {
  const result = await generateProject(platform, project.record);
  return [...(result.sql?.problems ?? []), ...typecheckAgainst(platform.config, ref, result.files!, result.program)].map((line) => line.replace(/ on type .*$/, ''));
}

describe('typed ctx.sql results', () => {
  it('types rows as the table says and refuses a parameter of the wrong type; after a column is dropped, its use fails to compile', async () => {
    const file = `extensions/${ref}/index.ts`;
    const wrongParameter = `${file}:17:53 Argument of type 'string' is not assignable to parameter of type 'number'.`;
    expect(await genProblems()).toEqual([wrongParameter]);
    const types = await fs.readFile(path.join(platform.config.generatedDir, ref, 'extension-queries.ts'), 'utf8');
    expect(types).toContain(`  "SELECT * FROM tickets WHERE org_id = $1": {
    params: [string | null];
    row: {
      id: string;
      org_id: string;
      subject: string | null;
      status: string;
      points: number;
    };
  };`);

    const client = new pg.Client(platform.cluster.urlFor(project.record.databaseName));
    await client.connect();
    await client.query('ALTER TABLE tickets DROP COLUMN subject').finally(() => client.end());
    expect(await genProblems()).toEqual([
      `${file}:13:15 Type 'true' is not assignable to type 'false'.`,
      `${file}:14:34 Property 'subject' does not exist`,
      wrongParameter,
    ]);
  });
});

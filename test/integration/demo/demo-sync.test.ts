import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitProject } from '../../../generator/emit/project.js';
import { withQueryTypes } from '../../../generator/extension-sql/query-types.js';
import { extensionFunctionPaths } from '../../../generator/generate.js';
import { introspectProject } from '../../../generator/introspect/introspect.js';
import { writeGenerated } from '../../../generator/write.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { createTestProject, demoSchemaSql, repoRoot, testConfig } from '../../helpers/platform.js';

const execFileAsync = promisify(execFile);
let platform: Platform;

beforeAll(async () => {
  platform = await Platform.open(await testConfig());
});
afterAll(async () => {
  await platform.close();
});

describe('generated/demo', () => {
  it('is exactly what the generator emits for the committed demo schema and extensions/demo', async () => {
    const sql = await demoSchemaSql();
    const { record } = await createTestProject(platform, { sql });
    const client = new pg.Client(platform.cluster.urlFor(record.databaseName));
    await client.connect();
    try {
      const functionPaths = await extensionFunctionPaths(path.join(repoRoot, 'extensions'), 'demo');
      const model = await introspectProject(client, { schemas: ['public'] });
      const extensionsDir = path.join(repoRoot, 'extensions');
      const { files } = await withQueryTypes(client, emitProject(model, { ref: 'demo', functionPaths }), {
        ref: 'demo', extensionsDir, generatedDir: path.join(repoRoot, 'generated'), model, extraSearchPath: [], inTransaction: false,
      });
      const result = await writeGenerated(path.join(repoRoot, 'generated/demo'), files, { check: true });
      expect(result.diff, 'generated/demo is stale: run `npx gantry gen demo` against the demo schema').toBe('');
    } finally {
      await client.end();
    }
  });

  it('and the whole repository, generated code included, typechecks under the strict tsconfig', async () => {
    const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
    const run = await execFileAsync(process.execPath, [tsc, '--noEmit', '-p', path.join(repoRoot, 'tsconfig.json')], { cwd: repoRoot }).catch(
      (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }),
    );
    expect(run.stdout).toBe('');
  }, 180_000);
});

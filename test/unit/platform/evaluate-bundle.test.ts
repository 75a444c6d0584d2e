import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleEvaluationError, evaluateBundle } from '../../../runtime/platform/evaluate-bundle.js';

let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-bundle-'));
  await fs.writeFile(path.join(dir, 'config.ts'), [
    'interface Config { readonly key: string }',
    'export function readConfig(): Config {',
    "  throw new Error('no configuration');",
    '}',
    '',
  ].join('\n'));
  await fs.writeFile(path.join(dir, 'index.ts'), "import { readConfig } from './config.js';\nexport const config = readConfig();\n");
  await fs.writeFile(path.join(dir, 'later.ts'), "import { readConfig } from './config.js';\nexport const later = () => readConfig();\n");
  await fs.writeFile(path.join(dir, 'thrown.ts'), "const x: number = 1;\nthrow 'a string';\n");
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('evaluateBundle', () => {
  it('says where in the TypeScript source evaluation threw, through the bundle\'s source map', async () => {
    const error = await evaluateBundle(path.join(dir, 'index.ts'), {}, 'test code').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleEvaluationError);
    expect([(error as BundleEvaluationError).message, (error as BundleEvaluationError).location]).toEqual([
      'no configuration',
      { file: path.join(dir, 'config.ts'), line: 3, column: 9 },
    ]);
  });

  it('has no location for a thrown value without a stack', async () => {
    const error = await evaluateBundle(path.join(dir, 'thrown.ts'), {}, 'test code').catch((e: unknown) => e);
    expect([(error as BundleEvaluationError).message, (error as BundleEvaluationError).location]).toEqual(['a string', null]);
  });

  it('locates an error the evaluated code throws later, as a hook does while serving', async () => {
    const bundle = await evaluateBundle(path.join(dir, 'later.ts'), {}, 'test code');
    const error = (() => {
      try {
        return (bundle.exports.later as () => never)();
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(bundle.locate(error)).toEqual({ file: path.join(dir, 'config.ts'), line: 3, column: 9 });
    expect(bundle.locate(new Error('thrown by the host'))).toBeNull();
  });
});

import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typecheckExtensions } from '../../../runtime/extensions/typecheck.js';
import { repoRoot } from '../../helpers/platform.js';

/** What the extension typecheck reports (no database): the project's files, not the bodies of Gantry's own runtime. */

const source = `import { defineExtension, ExtensionError, route, t } from 'gantry';

export default defineExtension<Record<string, never>>()({
  routes: {
    count: route({
      input: t.object({}),
      output: t.integer(),
      async handler() {
        const total: number = 'none';
        if (total < 0) throw new ExtensionError(400, 'negative', 'a negative count');
        return total;
      },
    }),
  },
});
`;

let dir: string;

beforeAll(async () => {
  await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
  dir = await fs.mkdtemp(path.join(repoRoot, 'test-output', 'typecheck-'));
  const file = path.join(dir, 'extensions', 'tickets', 'index.ts');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, source);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('typecheckExtensions', () => {
  it("reports the extension's errors, and none from inside the runtime it imports (Gantry's own build checks that code)", async () => {
    // The runtime module the extension imports ExtensionError from, with an error inside a function body that no
    // type the extension uses depends on.
    const runtimeFile = path.join(repoRoot, 'runtime/extensions/error.ts');
    const broken = `${await fs.readFile(runtimeFile, 'utf8')}\nexport function brokenInside(): number {\n  return 'not a number';\n}\n`;
    const problems = typecheckExtensions({ extensionsDir: path.join(dir, 'extensions'), ref: 'tickets', overrides: new Map([[runtimeFile, broken]]) });
    expect(problems).toEqual(["extensions/tickets/index.ts:9:15 Type 'string' is not assignable to type 'number'."]);
  });
});

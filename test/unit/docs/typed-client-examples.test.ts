import fs from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsExample } from '../../helpers/docs-examples.js';
import { repoRoot } from '../../helpers/platform.js';
import { compileStrict } from '../../helpers/typescript.js';

/**
 * docs/openapi-and-clients.md's two client programs, as the page has them, compile against the demo project's
 * committed type files copied where the page copies them (`src/api/`), in a frontend's setting (bundler module
 * resolution, as Vite's tsconfig has it); the supabase-js one gives `data` the type its `^?` comment shows.
 */

const page = 'docs/openapi-and-clients.md';
// What the examples leave to the app around them.
const context = 'declare const PROJECT_URL: string;\ndeclare const ANON_KEY: string;\ndeclare const accessToken: string;\n';
const shownType = 'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;\n'
  + 'export const shown: Equal<typeof data, { id: number; title: string; authors: { name: string } }[] | null> = true;\n';

let dir: string;

beforeAll(async () => {
  await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
  dir = await fs.mkdtemp(path.join(repoRoot, 'test-output', 'docs-clients-'));
  await fs.mkdir(path.join(dir, 'api'));
  for (const file of ['database.types.ts', 'api.d.ts']) {
    await fs.copyFile(path.join(repoRoot, 'generated/demo', file), path.join(dir, 'api', file));
  }
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe(`${page} client examples`, () => {
  it('compile under the strict tsconfig against the demo types, with the type the page shows', async () => {
    await fs.writeFile(path.join(dir, 'supabase.ts'), `${context}${docsExample(page, 'createClient<Database>')}${shownType}`);
    await fs.writeFile(path.join(dir, 'openapi-fetch.ts'), `${context}${docsExample(page, "from 'openapi-fetch'")}`);
    const diagnostics = compileStrict([path.join(dir, 'supabase.ts'), path.join(dir, 'openapi-fetch.ts')], {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    });
    expect(diagnostics).toEqual([]);
  });
});

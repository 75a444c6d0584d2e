import fs from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './platform.js';

/**
 * Type-checks files under the repository's strict tsconfig (with the DOM library, as
 * client programs use `fetch`), with `overrides` on top (a frontend's module resolution, say);
 * one line per diagnostic, `file:line: message`.
 */
export function compileStrict(files: readonly string[], overrides: ts.CompilerOptions = {}): string[] {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(files, { ...options, noEmit: true, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], ...overrides });
  return ts.getPreEmitDiagnostics(program).map((d) => `${path.basename(d.file?.fileName ?? '')}:${d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/**
 * Compiles a client program against a project's generated `database.types.ts` (written beside it in a
 * scratch folder under test-output/, removed afterwards): the diagnostics, empty when it typechecks.
 */
export async function compileWithTypes(name: string, databaseTypes: string, client: string): Promise<string[]> {
  await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
  const dir = await fs.mkdtemp(path.join(repoRoot, 'test-output', `${name}-`));
  try {
    await fs.writeFile(path.join(dir, 'database.types.ts'), databaseTypes);
    await fs.writeFile(path.join(dir, 'client.ts'), client);
    return compileStrict([path.join(dir, 'client.ts')]);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './platform.js';

/**
 * Type-checks files under the repository's strict tsconfig (with the DOM library, as
 * client programs use `fetch`); one line per diagnostic, `file:line: message`.
 */
export function compileStrict(files: readonly string[]): string[] {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(files, { ...options, noEmit: true, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] });
  return ts.getPreEmitDiagnostics(program).map((d) => `${path.basename(d.file?.fileName ?? '')}:${d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

import fs from 'node:fs/promises';
import path from 'node:path';
import type { SourceFile } from './code-references.js';

/** `extensions/<ref>/*.ts` as they are on disk, named as the report names them (`extensions/<ref>/index.ts`). */
export async function readExtensionSources(extensionsDir: string, ref: string): Promise<SourceFile[]> {
  const folder = path.join(extensionsDir, ref);
  if (!(await fs.stat(folder).then((s) => s.isDirectory(), () => false))) return [];
  // typecheck.ts reads the compiler options (loading TypeScript) when it loads: only for a project that has the folder.
  const { extensionFiles } = await import('../../runtime/extensions/typecheck.js');
  return Promise.all(
    extensionFiles(extensionsDir, ref).map(async (file) => ({
      name: path.relative(path.dirname(extensionsDir), file).split(path.sep).join('/'),
      text: await fs.readFile(file, 'utf8'),
    })),
  );
}

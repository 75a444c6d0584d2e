import fs from 'node:fs/promises';
import path from 'node:path';
import type { SourceFile } from './code-references.js';

/**
 * `extensions/<ref>/*.ts` as they are on disk, named as the report names them (`extensions/<ref>/index.ts`), with
 * the `ctx.sql` sites the type checker finds in them (i36-sql's sql-sites.ts, the sites the SQL check prepares).
 */
export async function readExtensionSources(extensionsDir: string, ref: string): Promise<SourceFile[]> {
  const folder = path.join(extensionsDir, ref);
  if (!(await fs.stat(folder).then((s) => s.isDirectory(), () => false))) return [];
  // typecheck.ts reads the compiler options (loading TypeScript) when it loads: only for a project that has the folder.
  const { extensionProgram } = await import('../../runtime/extensions/typecheck.js');
  const { findSqlSites } = await import('../../runtime/extensions/sql-sites.js');
  const built = extensionProgram({ extensionsDir, ref });
  if (built === null) return [];
  const sites = findSqlSites(built.program, built.files).filter((site) => site.kind === 'query');
  return Promise.all(
    built.files.map(async (file) => ({
      name: path.relative(path.dirname(extensionsDir), file).split(path.sep).join('/'),
      text: await fs.readFile(file, 'utf8'),
      sqlSites: sites.filter((site) => path.resolve(site.file) === path.resolve(file)).map((site) => ({ line: site.line, column: site.col })),
    })),
  );
}

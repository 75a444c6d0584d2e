import { Project, ts } from 'ts-morph';

/**
 * Generated TypeScript must already be formatted: this runs TypeScript's formatter (as
 * bundled with ts-morph, two-space indent, semicolons) over each `.ts` file and returns,
 * per file it would change, the first line it changes. Empty means a fixed point.
 */
export function formatterChanges(files: ReadonlyMap<string, string>): string[] {
  const project = new Project({ useInMemoryFileSystem: true });
  const changes: string[] = [];
  for (const [file, text] of files) {
    if (!file.endsWith('.ts')) continue;
    const source = project.createSourceFile(`/${file}`, text, { overwrite: true });
    source.formatText({ indentSize: 2, tabSize: 2, convertTabsToSpaces: true, semicolons: ts.SemicolonPreference.Insert });
    const formatted = source.getFullText();
    if (formatted === text) continue;
    const before = text.split('\n');
    const after = formatted.split('\n');
    const line = before.findIndex((value, index) => value !== after[index]);
    changes.push(`${file}:${line + 1}: ${JSON.stringify(before[line])} -> ${JSON.stringify(after[line])}`);
  }
  return changes;
}

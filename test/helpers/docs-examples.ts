import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './platform.js';

/**
 * The fenced code block of a documentation page (`docs/auth.md`, `README.md`) that contains `marker`, without
 * its fences: tests run the examples as the page shows them, so a page cannot drift from what is tested.
 */
export function docsExample(page: string, marker: string): string {
  const text = readFileSync(path.join(repoRoot, page), 'utf8');
  const blocks = [...text.matchAll(/^[ \t]*```[^\n]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map((match) => match[1] as string);
  const found = blocks.filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`${page}: ${found.length} code blocks contain ${JSON.stringify(marker)}, expected 1`);
  return found[0] as string;
}

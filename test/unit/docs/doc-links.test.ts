import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README is a map of docs/: every page is on it, and every relative link of the README and the pages
 * leads to a file that exists and, with a `#fragment`, to a heading of it (GitHub's anchors).
 */

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const pages = ['README.md', ...fs.readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (page: string): string => fs.readFileSync(path.join(repoRoot, page), 'utf8');

/** Text outside fenced code blocks, where links and headings are markdown. */
function prose(text: string): string {
  return text.replace(/^[ \t]*```[^\n]*\n[\s\S]*?^[ \t]*```[ \t]*$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm)) {
    const base = (heading as string).replace(/`/g, '').toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

describe('README and docs/ links', () => {
  it('the README links every page of docs/', () => {
    const linked = new Set([...prose(read('README.md')).matchAll(/\]\((docs\/[^)#\s]+\.md)(?:#[^)\s]*)?\)/g)].map((m) => m[1]));
    expect(pages.filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });

  it('every relative link leads to an existing file and heading', () => {
    const broken = pages.flatMap((page) =>
      [...prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1] as string)
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
        .filter((target) => {
          const [file, fragment] = target.split('#') as [string, string | undefined];
          const resolved = file === '' ? page : path.posix.join(path.posix.dirname(page), file);
          if (!fs.existsSync(path.join(repoRoot, resolved))) return true;
          return fragment !== undefined && resolved.endsWith('.md') && !anchors(read(resolved)).has(fragment);
        })
        .map((target) => `${page}: ${target}`),
    );
    expect(broken).toEqual([]);
  });
});

import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GantryConfig } from '../runtime/config.js';
import { compareCodePoints } from './model/sort.js';
import { headerMarker } from '../runtime/generated-files.js';
import { lineDiff } from './line-diff.js';

export interface WriteResult {
  /** Relative paths that were (or, with check, would be) created or rewritten. */
  readonly changed: string[];
  /** Relative paths of stale generated files that were (or would be) deleted. */
  readonly removed: string[];
  /** Human-readable summary: `A`/`M`/`D` per file, and the changed lines of each modified file. */
  readonly diff: string;
}

/**
 * Files the generator owns and may delete: the header on TypeScript, fixed names for JSON (`openapi.<schema>.json`
 * per further schema) and for `.gitattributes`.
 */
function isGenerated(relativePath: string, content: string): boolean {
  if (relativePath.endsWith('.ts')) return content.startsWith(headerMarker);
  return /^openapi(?:\.[a-z0-9_-]+)?\.json$/.test(relativePath) || relativePath === 'schema.json' || relativePath === '.gitattributes';
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await fs.readdir(path.join(dir, prefix), { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await listFiles(dir, relative)));
    else if (entry.isFile()) found.push(relative);
  }
  return found;
}

async function readOrNull(file: string): Promise<string | null> {
  return fs.readFile(file, 'utf8').catch(() => null);
}

/** One file where a generated folder and the generator's output differ. */
export interface FileDrift {
  /** Relative to the project's folder. */
  readonly path: string;
  /** `added`: the generator writes a file the folder lacks; `modified`: the texts differ; `removed`: the folder holds a generated file the generator no longer writes. */
  readonly change: 'added' | 'modified' | 'removed';
  /** The folder's text (null when added) and the generator's (null when removed). */
  readonly current: string | null;
  readonly generated: string | null;
}

/** How `dir` differs from `files` (relative path -> text), in path order, removals last. */
export async function driftFrom(dir: string, files: ReadonlyMap<string, string>): Promise<FileDrift[]> {
  const existing = await readGenerated(dir);
  const drift: FileDrift[] = [];
  for (const [relative, text] of [...files].sort(([a], [b]) => compareCodePoints(a, b))) {
    // A file without the generator's header is not in `existing`, but is still overwritten.
    const current = existing.get(relative) ?? (await readOrNull(path.join(dir, relative)));
    if (current === text) continue;
    drift.push({ path: relative, change: current === null ? 'added' : 'modified', current, generated: text });
  }
  for (const [relative, current] of existing) {
    if (!files.has(relative)) drift.push({ path: relative, change: 'removed', current, generated: null });
  }
  return drift;
}

/**
 * Brings `dir` in line with `files` (relative path -> text): writes new and changed
 * files (each through a temporary file and a rename, so a reader never sees half a
 * file), deletes stale generated files, leaves identical files untouched. With
 * `check`, changes nothing and only reports.
 */
export async function writeGenerated(
  dir: string,
  files: ReadonlyMap<string, string>,
  options: { check: boolean },
): Promise<WriteResult> {
  const drift = await driftFrom(dir, files);
  const changed = drift.filter((d) => d.change !== 'removed').map((d) => d.path);
  const removed = drift.filter((d) => d.change === 'removed').map((d) => d.path);
  const report = drift.map((d) =>
    d.change === 'added' ? `A ${d.path}` : d.change === 'removed' ? `D ${d.path}` : `M ${d.path}\n${lineDiff(d.current ?? '', d.generated ?? '')}`,
  );
  if (!options.check) {
    for (const relative of changed) {
      const target = path.join(dir, relative);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await replaceFile(target, files.get(relative) as string);
    }
    for (const relative of removed) await fs.rm(path.join(dir, relative), { force: true });
    for (const sub of ['tables', 'rpc']) await fs.rmdir(path.join(dir, sub)).catch(() => undefined);
  }
  return { changed, removed, diff: report.join('\n') };
}

/** Replaces the file in one rename, so a reader (a host loading the code, another command) never sees half of it. */
export async function replaceFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temporary, text);
  await fs.rename(temporary, file);
}

/** The generated files under `dir` (relative path -> text). */
export async function readGenerated(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const relative of (await listFiles(dir)).sort(compareCodePoints)) {
    const content = await readOrNull(path.join(dir, relative));
    if (content !== null && isGenerated(relative, content)) files.set(relative, content);
  }
  return files;
}

/** What differs between two snapshots of a generated folder, in the terms of WriteResult. */
export function compareGenerated(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): Pick<WriteResult, 'changed' | 'removed'> {
  return {
    changed: [...after].filter(([relative, text]) => before.get(relative) !== text).map(([relative]) => relative),
    removed: [...before.keys()].filter((relative) => !after.has(relative)),
  };
}

/** Removes a deleted project's generated folder. */
export async function removeGenerated(config: GantryConfig, ref: string): Promise<void> {
  await fs.rm(path.join(config.generatedDir, ref), { recursive: true, force: true });
}

import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ApiDiffError } from './api-diff-error.js';
import type { ApiDescription } from './diff-api.js';

const run = promisify(execFile);

/** The model inside a `schema.json` text; `origin` names where it came from in the error. */
export function parseApiDescription(text: string, origin: string): ApiDescription {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ApiDiffError('description_invalid', `${origin}: not JSON (${(error as Error).message})`);
  }
  const model = (parsed as { model?: { modelVersion?: unknown } } | null)?.model;
  if (model?.modelVersion !== 1) throw new ApiDiffError('description_invalid', `${origin}: not a Gantry schema.json (modelVersion 1)`);
  return model as ApiDescription;
}

/** The API described by `dir/schema.json` on disk (`generated/<ref>/`); null when there is none. */
export async function loadApiDescriptionFromDir(dir: string): Promise<ApiDescription | null> {
  const file = path.join(dir, 'schema.json');
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  return text === null ? null : parseApiDescription(text, file);
}

/** The API described by `dir/schema.json` at git revision `rev`; null when the file is not in that revision. */
export async function loadApiDescriptionFromGit(dir: string, rev: string): Promise<ApiDescription | null> {
  const file = await repositoryPath(path.join(dir, 'schema.json'));
  await resolveRevision(file.root, rev);
  const text = await gitShow(file.root, rev, file.relative);
  return text === null ? null : parseApiDescription(text, `${rev}:${file.relative}`);
}

/** The text of the file `target` at git revision `rev`; null when the file is not in that revision. */
export async function readFileAtRevision(target: string, rev: string): Promise<string | null> {
  const file = await repositoryPath(target);
  await resolveRevision(file.root, rev);
  return gitShow(file.root, rev, file.relative);
}

/** The files directly in `dir` at revision `rev` (paths relative to `dir`); empty when the folder is not there. */
export async function listFilesAtRevision(dir: string, rev: string): Promise<string[]> {
  const folder = await repositoryPath(dir);
  await resolveRevision(folder.root, rev);
  const { stdout } = await run('git', ['-C', folder.root, 'ls-tree', '--name-only', `${rev}:${folder.relative}`], { maxBuffer: 1 << 24 }).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter((name) => name !== '');
}

/** `target`'s path inside its git repository, `/`-separated (`migrations/demo/20261126120000_x.sql`). */
export async function pathInRepository(target: string): Promise<string> {
  return (await repositoryPath(target)).relative;
}

interface RepositoryPath {
  /** The work tree's top level, as git prints it. */
  readonly root: string;
  /** The path inside the repository, with `/` separators, as `git show REV:PATH` takes it. */
  readonly relative: string;
}

/** Where `target` lies in the git work tree that holds it, found from its nearest existing ancestor. */
async function repositoryPath(target: string): Promise<RepositoryPath> {
  let existing = path.resolve(target);
  while (!(await fs.stat(existing).then((s) => s.isDirectory(), () => false))) existing = path.dirname(existing);
  const root = await run('git', ['-C', existing, 'rev-parse', '--show-toplevel']).then(
    ({ stdout }) => stdout.trim(),
    () => {
      throw new ApiDiffError('not_a_git_repository', `${existing} is not in a git work tree: the base revision cannot be read`);
    },
  );
  const relative = path.relative(await fs.realpath(root), path.join(await fs.realpath(existing), path.relative(existing, path.resolve(target))));
  return { root, relative: relative.split(path.sep).join('/') };
}

/** The commit `rev` names. */
async function resolveRevision(root: string, rev: string): Promise<string> {
  // A revision is never an option: `--output=…` must not reach git as one.
  if (rev.startsWith('-')) throw new ApiDiffError('base_not_found', `"${rev}" is not a git revision`);
  const { stdout } = await run('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).catch(() => {
    throw new ApiDiffError('base_not_found', `git knows no revision "${rev}"`);
  });
  return stdout.trim();
}

/** The commit a branch's changes are compared from, and how the report names it. */
export interface ResolvedBase {
  readonly commit: string;
  /** `main` when the merge-base is main's tip, else `main (merge-base 1a2b3c4)`. */
  readonly label: string;
}

/**
 * The branch a repository merges into: origin/HEAD (what a clone names the remote's default branch),
 * else a local `main`, else `master`; null when there is none of them.
 */
export async function defaultBranch(root: string): Promise<string | null> {
  const remote = await run('git', ['-C', root, 'symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']).then(({ stdout }) => stdout.trim(), () => '');
  if (remote !== '') return remote;
  for (const branch of ['main', 'master']) {
    const found = await run('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).then(() => true, () => false);
    if (found) return branch;
  }
  return null;
}

/**
 * Where a change made on HEAD starts from: the merge-base of `rev` and HEAD, so a branch behind `rev`
 * is not charged with the changes `rev` made since it forked. `rev` null: the default branch's
 * merge-base, or HEAD itself in a repository without one.
 */
export async function resolveBase(dir: string, rev: string | null): Promise<ResolvedBase> {
  const { root } = await repositoryPath(dir);
  const name = rev ?? (await defaultBranch(root)) ?? 'HEAD';
  const tip = await resolveRevision(root, name);
  const { stdout } = await run('git', ['-C', root, 'merge-base', tip, 'HEAD']).catch(() => {
    throw new ApiDiffError('base_not_found', `${name} and HEAD have no common ancestor`);
  });
  const commit = stdout.trim();
  return { commit, label: commit === tip ? name : `${name} (merge-base ${commit.slice(0, 7)})` };
}

async function gitShow(root: string, rev: string, relative: string): Promise<string | null> {
  // `cat-file -e` tells a missing path from other failures, so only a real absence reads as "no API yet".
  const exists = await run('git', ['-C', root, 'cat-file', '-e', `${rev}:${relative}`]).then(() => true, () => false);
  if (!exists) return null;
  const { stdout } = await run('git', ['-C', root, 'show', `${rev}:${relative}`], { maxBuffer: 1 << 28 });
  return stdout;
}

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

async function resolveRevision(root: string, rev: string): Promise<void> {
  // A revision is never an option: `--output=…` must not reach git as one.
  if (rev.startsWith('-')) throw new ApiDiffError('base_not_found', `"${rev}" is not a git revision`);
  await run('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).catch(() => {
    throw new ApiDiffError('base_not_found', `git knows no revision "${rev}"`);
  });
}

async function gitShow(root: string, rev: string, relative: string): Promise<string | null> {
  // `cat-file -e` tells a missing path from other failures, so only a real absence reads as "no API yet".
  const exists = await run('git', ['-C', root, 'cat-file', '-e', `${rev}:${relative}`]).then(() => true, () => false);
  if (!exists) return null;
  const { stdout } = await run('git', ['-C', root, 'show', `${rev}:${relative}`], { maxBuffer: 1 << 28 });
  return stdout;
}

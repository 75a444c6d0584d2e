import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_FILE_NAME, findConfigFile, parseConfigFile } from '../runtime/config-file.js';
import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { CONFIG_HEADER, initFiles, projectTable, type InitFile } from '../generator/init/plan.js';
import { type Output } from './output.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry init [<ref>] [--json]';

/** What init did to one file: `kept` is a file of the team's that differs from init's and was left alone. */
type FileStatus = 'created' | 'updated' | 'unchanged' | 'kept' | 'skipped';

interface FileResult {
  readonly path: string;
  readonly status: FileStatus;
  readonly note?: string;
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError('file_unreadable', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function writeText(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

/** The indentation a package.json is written with, so adding scripts changes only their lines. */
function jsonIndent(text: string): string {
  return /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
}

async function applyFile(root: string, file: InitFile, refs: readonly string[], before: readonly string[]): Promise<FileResult> {
  const target = path.join(root, ...file.path.split('/'));
  const current = await readText(target);
  switch (file.kind) {
    case 'whole': {
      const text = file.text(refs);
      if (current === text) return { path: file.path, status: 'unchanged' };
      if (current !== null && current !== file.text(before)) {
        return { path: file.path, status: 'kept', note: `it differs from what init writes; remove it to get init's version` };
      }
      await writeText(target, text);
      return { path: file.path, status: current === null ? 'created' : 'updated' };
    }
    case 'lines': {
      const present = new Set((current ?? '').split(/\r?\n/).map((line) => line.trim()));
      const missing = file.lines.filter((line) => !present.has(line));
      if (missing.length === 0) return { path: file.path, status: 'unchanged' };
      const prefix = current === null || current === '' ? '' : current.endsWith('\n') ? '\n' : '\n\n';
      await writeText(target, `${current ?? ''}${prefix}${file.header}\n${missing.join('\n')}\n`);
      return { path: file.path, status: current === null ? 'created' : 'updated' };
    }
    case 'scripts': {
      if (current === null) return { path: file.path, status: 'skipped', note: 'no package.json here: the npm scripts were not added' };
      let manifest: Record<string, unknown>;
      try {
        manifest = JSON.parse(current) as Record<string, unknown>;
      } catch (error) {
        throw new CliError('invalid_package_json', `${target} is not valid JSON: ${(error as Error).message}`);
      }
      const scripts = (typeof manifest.scripts === 'object' && manifest.scripts !== null ? manifest.scripts : {}) as Record<string, unknown>;
      const added = Object.entries(file.scripts).filter(([name]) => scripts[name] === undefined);
      const differing = Object.entries(file.scripts).filter(([name, command]) => scripts[name] !== undefined && scripts[name] !== command);
      const note = differing.length > 0 ? `kept your ${differing.map(([name]) => `"${name}"`).join(', ')}` : undefined;
      if (added.length === 0) return { path: file.path, status: 'unchanged', ...(note ? { note } : {}) };
      manifest.scripts = { ...scripts, ...Object.fromEntries(added) };
      await writeText(target, `${JSON.stringify(manifest, null, jsonIndent(current))}\n`);
      return { path: file.path, status: 'updated', note: `added ${added.map(([name]) => `"${name}"`).join(', ')}${note ? `; ${note}` : ''}` };
    }
  }
}

/**
 * `gantry init [<ref>]`: the team's folder at its repository root — gantry.toml (declaring `ref`),
 * migrations/<ref>/, extensions/<ref>/tsconfig.json, .gitignore and .gitattributes lines, npm scripts
 * and the CI workflow. Idempotent: a second run changes nothing, a new ref is added, and a file the
 * team changed is never overwritten (reported as kept).
 */
export async function initCommand(args: string[], out: Output): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (positionals.length > 1) throw new CliError('usage', USAGE);
  const [ref] = positionals;
  if (ref !== undefined) assertValidRef(ref);
  const found = findConfigFile(process.cwd());
  const configPath = found ?? path.join(process.cwd(), CONFIG_FILE_NAME);
  const root = path.dirname(configPath);
  const existing = await readText(configPath);
  const declared = existing === null ? [] : parseConfigFile(existing, configPath).projects.map((p) => p.ref);
  let text = existing ?? CONFIG_HEADER;
  if (ref !== undefined && !declared.includes(ref)) text = `${text}${text.endsWith('\n') ? '' : '\n'}\n${projectTable(ref)}`;
  const parsed = parseConfigFile(text, configPath);
  const files: FileResult[] = [];
  if (text !== existing) await writeText(configPath, text);
  files.push({ path: CONFIG_FILE_NAME, status: existing === null ? 'created' : text === existing ? 'unchanged' : 'updated' });

  const refs = parsed.projects.map((p) => p.ref);
  const folders = { generated: parsed.paths.generated ?? 'generated', extensions: parsed.paths.extensions ?? 'extensions', migrations: parsed.paths.migrations ?? 'migrations' };
  for (const each of refs) await fs.mkdir(path.join(root, folders.migrations, each), { recursive: true });
  for (const file of initFiles(refs, folders)) files.push(await applyFile(root, file, refs, declared));

  const next = ref === undefined
    ? 'declare a project: npx gantry init <ref>'
    : `next: npx gantry migration new ${ref} <name>, write its SQL, then npx gantry migrate ${ref}`;
  out.result(
    { root, config: configPath, projects: refs, files },
    [
      `gantry init: ${root}`,
      ...files.map((f) => `  ${f.status.padEnd(9)} ${f.path}${f.note ? ` (${f.note})` : ''}`),
      next,
    ].join('\n'),
  );
}

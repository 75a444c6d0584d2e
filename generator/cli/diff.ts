import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_FILE_NAME } from '../../runtime/config-file.js';
import { loadConfig, type GantryConfig } from '../../runtime/config.js';
import { assertValidRef } from '../../runtime/platform/bootstrap.js';
import { listFilesAtRevision, loadApiDescriptionFromDir, loadApiDescriptionFromGit, pathInRepository, readFileAtRevision, resolveBase } from '../api-diff/load-description.js';
import { emptyApiDescription } from '../api-diff/diff-api.js';
import { ApiDiffError } from '../api-diff/api-diff-error.js';
import { makeApiReport } from '../api-diff/make-report.js';
import { renderMarkdown } from '../api-diff/render-markdown.js';
import { renderText } from '../api-diff/render-text.js';
import { listLocalMigrations, projectMigrationsDir } from '../migrations/local-files.js';
import { declaredIn, diffSettings, settingsMarkdown, settingsText, type SettingDiff } from '../settings/file-diff.js';
import { type Output } from './output.js';
import { CliError } from '../command-error.js';

const USAGE = 'usage: gantry diff <ref> [--base GIT_REF] [--fail-on-breaking] [--fail-on-lint] [--format text|markdown] [--json]';

/**
 * The settings of `ref` changed in gantry.toml between the base and the working tree. The base is found
 * again in the repository that holds gantry.toml (the merge-base of HEAD and `base`, as for the code):
 * a checkout keeps the file beside generated/, but nothing makes it share that repository.
 */
async function changedSettings(config: GantryConfig, ref: string, base: string | null): Promise<SettingDiff[]> {
  const file = config.configFile?.path ?? path.join(config.root, CONFIG_FILE_NAME);
  const head = await fs.readFile(file, 'utf8').catch(() => null);
  const at = await resolveBase(path.dirname(file), base).catch((error: unknown) => {
    if (error instanceof ApiDiffError) return null;
    throw error;
  });
  const before = at === null ? null : await readFileAtRevision(file, at.commit);
  return diffSettings(declaredIn(before, `${at?.label ?? 'base'}:${CONFIG_FILE_NAME}`, ref), declaredIn(head, file, ref));
}

/**
 * `gantry diff <ref>`: the API change between `generated/<ref>/schema.json` at the base and in
 * the working tree, with squawk's findings on the migrations added since the base. The base is the
 * merge-base of HEAD with `--base` (default: the default branch), what a pull request is reviewed
 * against. Needs no database. Exit 1 with --fail-on-breaking when a change is breaking, with --fail-on-lint when
 * squawk found anything not accepted in the file.
 */
export async function diffCommand(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      base: { type: 'string' },
      'fail-on-breaking': { type: 'boolean' },
      'fail-on-lint': { type: 'boolean' },
      format: { type: 'string', default: 'text' },
    },
  });
  const [ref] = positionals;
  if (!ref || positionals.length !== 1) throw new CliError('usage', USAGE);
  assertValidRef(ref);
  if (values.format !== 'text' && values.format !== 'markdown') throw new CliError('usage', `--format is text or markdown, not "${values.format}"`);
  const config = loadConfig();
  const generated = path.join(config.generatedDir, ref);
  const from = await resolveBase(generated, values.base ?? null);
  const base = await loadApiDescriptionFromGit(generated, from.commit);
  const head = await loadApiDescriptionFromDir(generated);
  if (base === null && head === null) {
    throw new CliError('no_generated_code', `no generated code for "${ref}": ${path.join(generated, 'schema.json')} is neither at ${from.label} nor in the working tree`);
  }
  const known = new Set(await listFilesAtRevision(projectMigrationsDir(config.migrationsDir, ref), from.commit));
  const migrations = (await listLocalMigrations(config.migrationsDir, ref)).filter((m) => !known.has(path.basename(m.path)));
  const report = await makeApiReport({
    ref,
    baseLabel: from.label,
    headLabel: 'working tree',
    base: base ?? emptyApiDescription,
    head: head ?? emptyApiDescription,
    migrationFiles: await Promise.all(migrations.map(async (m) => ({ path: m.path, name: await pathInRepository(m.path) }))),
  });
  const settings = await changedSettings(config, ref, values.base ?? null);
  const text = values.format === 'markdown'
    ? [renderMarkdown(report), settingsMarkdown(ref, settings, from.label, 'working tree')]
    : [renderText(report), settingsText(ref, settings)];
  out.result({ ...report, settings }, text.filter((part) => part !== '').join('\n\n'));
  const failBreaking = values['fail-on-breaking'] === true && report.summary.breaking > 0;
  const failLint = values['fail-on-lint'] === true && report.summary.lint > 0;
  return failBreaking || failLint ? 1 : 0;
}

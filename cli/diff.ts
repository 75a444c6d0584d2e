import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_FILE_NAME } from '../runtime/config-file.js';
import { loadConfig, type GantryConfig } from '../runtime/config.js';
import type pg from 'pg';
import { taskClient } from '../runtime/db/pool-errors.js';
import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { Platform } from '../runtime/platform/platform.js';
import { listFilesAtRevision, loadApiDescriptionFromDir, loadApiDescriptionFromGit, pathInRepository, readFileAtRevision, resolveBase } from '../generator/api-diff/load-description.js';
import { emptyApiDescription } from '../generator/api-diff/diff-api.js';
import { ApiDiffError } from '../generator/api-diff/api-diff-error.js';
import { unacceptedBreaking } from '../generator/api-diff/api-report.js';
import { readExtensionSources } from '../generator/api-diff/extension-sources.js';
import { makeApiReport } from '../generator/api-diff/make-report.js';
import { renderMarkdown } from '../generator/api-diff/render-markdown.js';
import { renderText } from '../generator/api-diff/render-text.js';
import { listLocalMigrations, projectMigrationsDir } from '../generator/migrations/local-files.js';
import { declaredIn, diffSettings, settingsMarkdown, settingsText, type SettingDiff } from '../generator/settings/file-diff.js';
import { type Output } from './output.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry diff <ref> [--base GIT_REF] [--fail-on-breaking] [--fail-on-lint] [--data | --data-url URL] [--format text|markdown] [--json]';

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
 * The database the rows are counted in: `--data-url` names one (a copy of production, say), `--data` asks
 * the project's own on the cluster Gantry uses (started if it is the embedded one); null without either.
 */
async function openDataDatabase(config: GantryConfig, ref: string, live: boolean, url: string | null): Promise<{ client: pg.Client; label: string; close: () => Promise<void> } | null> {
  if (live && url !== null) throw new CliError('usage', '--data asks the project database, --data-url another one: give one of them');
  if (!live && url === null) return null;
  const platform = url === null ? await Platform.open(config) : null;
  const record = await platform?.getProject(ref);
  if (platform && !record) {
    await platform.close();
    throw new CliError('project_not_found', `project "${ref}" does not exist here: --data has no database to count rows in`);
  }
  const target = new URL(url ?? platform!.cluster.urlFor(record!.databaseName));
  const client = taskClient(target.toString());
  const label = `${target.host}${target.pathname}`;
  const close = async (): Promise<void> => {
    await client.end().catch(() => undefined);
    await platform?.close();
  };
  try {
    await client.connect();
  } catch (error) {
    await close();
    throw new CliError('database_unreachable', `the rows cannot be counted: ${label} did not answer (${(error as Error).message})`);
  }
  return { client, label, close };
}

/**
 * `gantry diff <ref>`: the API change between `generated/<ref>/schema.json` at the base and in
 * the working tree, with squawk's findings on the migrations added since the base. The base is the
 * merge-base of HEAD with `--base` (default: the default branch), what a pull request is reviewed
 * against; each change with its endpoints, generated types, the extension code that uses it and its
 * expand/contract sequence. Needs no database: `--data`/`--data-url` count the rows a change affects.
 * Exit 1 with --fail-on-breaking when a breaking change is not accepted by a `-- gantry:breaking`
 * marker, with --fail-on-lint when squawk found anything not accepted in the file.
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
      data: { type: 'boolean' },
      'data-url': { type: 'string' },
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
  const database = await openDataDatabase(config, ref, values.data === true, values['data-url'] ?? null);
  const report = await makeApiReport({
    ref,
    baseLabel: from.label,
    headLabel: 'working tree',
    base: base ?? emptyApiDescription,
    head: head ?? emptyApiDescription,
    migrationFiles: await Promise.all(migrations.map(async (m) => ({ path: m.path, name: await pathInRepository(m.path) }))),
    extensionFiles: await readExtensionSources(config.extensionsDir, ref),
    database,
  }).finally(() => database?.close());
  const settings = await changedSettings(config, ref, values.base ?? null);
  const text = values.format === 'markdown'
    ? [renderMarkdown(report), settingsMarkdown(ref, settings, from.label, 'working tree')]
    : [renderText(report), settingsText(ref, settings)];
  out.result({ ...report, settings }, text.filter((part) => part !== '').join('\n\n'));
  const failBreaking = values['fail-on-breaking'] === true && unacceptedBreaking(report) > 0;
  const failLint = values['fail-on-lint'] === true && report.summary.lint > 0;
  return failBreaking || failLint ? 1 : 0;
}

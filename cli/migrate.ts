import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { loadConfig } from '../runtime/config.js';
import { taskClient } from '../runtime/db/pool-errors.js';
import { extensionFiles } from '../runtime/extensions/typecheck.js';
import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { typecheckAgainst } from '../generator/check/gate.js';
import { Platform, type ProjectRecord } from '../runtime/platform/platform.js';
import { generateProject } from '../generator/generate.js';
import { applyMigrations, displayPath } from '../generator/migrations/apply.js';
import { createProjectWithHistory } from '../generator/migrations/create.js';
import { MigrationError } from '../generator/migrations/errors.js';
import { isProduction, markProduction } from '../generator/migrations/production.js';
import { writeSum } from '../generator/migrations/sum-file.js';
import { listLocalMigrations, migrationChecksum, migrationNameFrom, nextVersions, writeMigration, type LocalMigration } from '../generator/migrations/local-files.js';
import { compareGenerated, readGenerated } from '../generator/write.js';
import type { ApiReport } from '../generator/api-diff/api-report.js';
import { emptyApiDescription } from '../generator/api-diff/diff-api.js';
import { parseApiDescription } from '../generator/api-diff/load-description.js';
import { readExtensionSources } from '../generator/api-diff/extension-sources.js';
import { makeApiReport } from '../generator/api-diff/make-report.js';
import { renderText } from '../generator/api-diff/render-text.js';
import { withAppliedSettings } from '../generator/settings/apply.js';
import { type Output } from './output.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry migrate <ref> [FILE.sql] [--force] [--production] | migrate --all [--force] [--production]';

async function readFileArgument(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new CliError('schema_unreadable', `cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Before a migration commits: the project's code generated into memory from the schema as the open
 * transaction sees it (same connection), the extension's queries described by PostgreSQL on that connection,
 * and extensions/<ref>/ typechecked against the code and the queries' types; a problem rolls the migration
 * back, so a running host never meets a schema its extension or its SQL does not fit. A query site whose SQL
 * is built at run time is passed to `warn`.
 */
function extensionGate(
  platform: Platform,
  record: ProjectRecord,
  warn: (lines: readonly string[]) => void,
): (client: pg.ClientBase, migration: LocalMigration, inTransaction: boolean) => Promise<void> {
  return async (client, migration, inTransaction) => {
    if (extensionFiles(platform.config.extensionsDir, record.ref).length === 0) return;
    const { files, sql, program } = await generateProject(platform, record, { check: true, client, inTransaction });
    warn(sql?.notCheckable ?? []);
    const problems = [...(sql?.problems ?? []), ...typecheckAgainst(platform.config, record.ref, files ?? new Map(), program)];
    if (problems.length === 0) return;
    const outcome = inTransaction
      ? 'rolled back, nothing recorded'
      : `it ran outside a transaction, so it stays applied, not recorded; once the extension compiles, record it: npx gantry migration repair ${record.ref} ${migration.version} --status applied`;
    throw new MigrationError(
      'extensions_broken',
      `${displayPath(migration.path)} breaks extensions/${record.ref}/; ${outcome}:\n${problems.join('\n')}\n` +
        `fix the extension in the same change (or apply anyway with --force)`,
    );
  };
}

/** How one project is migrated: `--force` (past a broken extension) and `--production` (mark the database first). */
interface MigrateOptions {
  readonly force: boolean;
  readonly production: boolean;
}

/** The API change report (as `gantry diff` prints it) from the code before the run to the code after it, with the lint of the files applied. */
async function appliedReport(
  ref: string,
  extensionsDir: string,
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  applied: readonly LocalMigration[],
): Promise<ApiReport> {
  const describe = (files: ReadonlyMap<string, string>, origin: string) => {
    const text = files.get('schema.json');
    return text === undefined ? emptyApiDescription : parseApiDescription(text, origin);
  };
  return makeApiReport({
    ref,
    baseLabel: 'before migrate',
    headLabel: 'after migrate',
    base: describe(before, `generated/${ref}/schema.json before migrate`),
    head: describe(after, `generated/${ref}/schema.json`),
    migrationFiles: applied.map((m) => ({ path: m.path, name: displayPath(m.path) })),
    extensionFiles: await readExtensionSources(extensionsDir, ref),
  });
}

interface Migrated {
  readonly value: Record<string, unknown>;
  readonly text: string;
}

/**
 * A project gantry.toml declares and the registry does not hold (a fresh clone, a first deploy): created
 * from its committed history, every migration run and recorded in the transaction that creates it.
 */
async function createDeclared(platform: Platform, ref: string, options: MigrateOptions): Promise<Migrated> {
  const { record, migrations } = await createProjectWithHistory(platform, { ref, schemaFiles: [] });
  if (options.production) await markDatabase(platform, record);
  const { changed, removed } = await generateProject(platform, record);
  const names = migrations.map((m) => `${m.version}_${m.name}`);
  return {
    value: { ref, created: true, applied: migrations.map((m) => ({ version: m.version, name: m.name })), missing_locally: [], production: options.production, changed, removed, report: null },
    text: [`created ${ref} (declared in gantry.toml) from ${names.length} migration(s)${names.length > 0 ? `: ${names.join(', ')}` : ''}`, `regenerated ${changed.length} file(s), removed ${removed.length}`].join('\n'),
  };
}

function missingProject(platform: Platform, ref: string): CliError {
  const file = platform.config.configFile;
  return new CliError(
    'project_not_found',
    `project "${ref}" does not exist and ${file === null ? 'there is no gantry.toml' : `${file.path} does not declare it`}: ` +
      `declare it with \`npx gantry init ${ref}\` (migrate then creates it from migrations/${ref}/), or create it with \`npx gantry project create ${ref}\``,
  );
}

/** Marks the project database as production (production.ts): kept in the database, seen from every host. */
async function markDatabase(platform: Platform, record: ProjectRecord): Promise<void> {
  const client = taskClient(platform.projectUrl(record));
  await client.connect();
  await markProduction(client, record.databaseName).finally(() => client.end());
}

/**
 * One project's migrate: every pending migration of migrations/<ref>/, in version order, each in its
 * own transaction and refused when it breaks extensions/<ref>/ (unless `force`); with `file`, first
 * copied into the folder as the newest version (removed again when it fails). Then regenerates.
 */
async function migrateProject(platform: Platform, ref: string, file: string | undefined, options: MigrateOptions): Promise<Migrated> {
  const sql = file === undefined ? null : await readFileArgument(file);
  const record = await platform.getProject(ref);
  if (!record) {
    if (file === undefined && platform.config.configFile?.projects.some((p) => p.ref === ref)) return createDeclared(platform, ref, options);
    throw missingProject(platform, ref);
  }
  const { migrationsDir } = platform.config;
  const local = await listLocalMigrations(migrationsDir, ref);
  let added: LocalMigration | null = null;
  if (file !== undefined && sql !== null) {
    const [version] = nextVersions(new Date(), local.map((m) => m.version), 1);
    added = await writeMigration(migrationsDir, ref, version!, migrationNameFrom(file), sql);
    // Errors name the file the user gave, not the copy.
    local.push({ ...added, path: file, checksum: migrationChecksum(sql) });
  }
  // A running server regenerates on the same DDL at the same time; comparing with the code as it
  // was before the migration reports the migration's effect whoever wrote each file first.
  const dir = path.join(platform.config.generatedDir, ref);
  const before = await readGenerated(dir);
  const client = taskClient(platform.projectUrl(record));
  await client.connect();
  let applied: readonly LocalMigration[];
  let missing: readonly string[];
  let production: boolean;
  // Said once per run, however many migrations the gate checks.
  const notCheckable = new Set<string>();
  try {
    if (options.production) await markProduction(client, record.databaseName);
    const result = await applyMigrations(client, local, {
      ref,
      folder: path.join(migrationsDir, ref),
      production: (production = await isProduction(client, record.databaseName)),
      ...(options.force ? {} : { beforeRecord: extensionGate(platform, record, (lines) => lines.forEach((line) => notCheckable.add(line))) }),
    });
    applied = result.applied;
    missing = result.missingLocally.map((m) => m.version);
  } catch (error) {
    if (added) await fs.rm(added.path, { force: true });
    throw error;
  } finally {
    await client.end();
  }
  await writeSum(migrationsDir, ref);
  await generateProject(platform, record);
  const after = await readGenerated(dir);
  const generated = compareGenerated(before, after);
  const report = applied.length === 0 ? null : await appliedReport(ref, platform.config.extensionsDir, before, after, applied);
  const names = applied.map((m) => `${m.version}_${m.name}`);
  const lines = [
    applied.length === 0 ? `${ref}: no pending migrations` : `migrated ${ref}: applied ${names.join(', ')}`,
    `regenerated ${generated.changed.length} file(s), removed ${generated.removed.length}`,
    ...(options.production ? [`${ref}: the database is marked production: migrate never offers to reset it, db reset refuses it`] : []),
    ...(missing.length > 0 ? [`recorded but not in ${displayPath(path.join(migrationsDir, ref))}: ${missing.join(', ')}`] : []),
    ...(notCheckable.size > 0 ? [`${ref}: warning: ${notCheckable.size} query site(s) not checkable`, ...[...notCheckable].map((line) => `  ${line}`)] : []),
    ...(report ? ['', renderText(report)] : []),
  ];
  return {
    value: {
      ref,
      ...(file !== undefined ? { migrated: file, version: added!.version, path: added!.path } : {}),
      applied: applied.map((m) => ({ version: m.version, name: m.name })),
      missing_locally: missing,
      not_checkable: [...notCheckable],
      production,
      changed: generated.changed,
      removed: generated.removed,
      report,
    },
    text: lines.join('\n'),
  };
}

/** `--all`: the projects gantry.toml declares (created when missing), else every project of the registry. */
async function allRefs(platform: Platform): Promise<string[]> {
  const declared = platform.config.configFile?.projects.map((p) => p.ref);
  return declared ?? (await platform.listProjects()).map((p) => p.ref);
}

/**
 * `gantry migrate <ref> [FILE.sql] [--force]` and `gantry migrate --all [--force]` (a deploy's step: every
 * project gantry.toml declares, each created from its history when the database has none yet).
 * `--production` first marks each database as production (kept in the database: later runs from any
 * host see it), which migrate never offers to reset and db reset refuses.
 */
export async function migrateCommand(args: string[], out: Output): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, force: { type: 'boolean' }, all: { type: 'boolean' }, production: { type: 'boolean' } } });
  const options = { force: values.force ?? false, production: values.production ?? false };
  if (values.all ? positionals.length !== 0 : !positionals[0] || positionals.length > 2) throw new CliError('usage', USAGE);
  if (!values.all) assertValidRef(positionals[0]!);
  const platform = await Platform.open(loadConfig());
  try {
    if (!values.all) {
      const { value, text } = await withAppliedSettings(platform, positionals[0]!, await migrateProject(platform, positionals[0]!, positionals[1], options));
      out.result(value, text);
      return;
    }
    const results: Migrated[] = [];
    for (const ref of await allRefs(platform)) results.push(await withAppliedSettings(platform, ref, await migrateProject(platform, ref, undefined, options)));
    out.result({ projects: results.map((r) => r.value) }, results.length === 0 ? 'no projects to migrate' : results.map((r) => r.text).join('\n\n'));
  } finally {
    await platform.close();
  }
}

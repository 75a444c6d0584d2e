import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type GantryConfig } from '../../runtime/config.js';
import { typecheckExtensions } from '../../runtime/extensions/typecheck.js';
import { applySchemaFiles, type SchemaFile } from '../../runtime/platform/bootstrap.js';
import { Platform, type ProjectRecord } from '../../runtime/platform/platform.js';
import { generateProject } from '../generate.js';
import { compareGenerated, readGenerated } from '../write.js';
import { CliError, type Output } from './output.js';

async function openProject(platform: Platform, ref: string | undefined): Promise<ProjectRecord> {
  if (!ref) throw new CliError('usage', 'a project ref is required');
  const record = await platform.getProject(ref);
  if (!record) throw new CliError('project_not_found', `project "${ref}" does not exist`);
  return record;
}

/**
 * The project's extensions typechecked against the code just generated (from memory: with --check it is not
 * written), one `extensions/<ref>/file.ts:LINE:COL message` line per problem.
 */
function checkExtensions(config: GantryConfig, ref: string, files: ReadonlyMap<string, string> | undefined): string[] {
  const dir = path.join(config.generatedDir, ref);
  const overrides = new Map([...(files ?? [])].map(([file, text]) => [path.join(dir, file), text]));
  return typecheckExtensions({ extensionsDir: config.extensionsDir, ref, overrides });
}

/**
 * `gantry gen <ref> | --all [--check]`, `gen --check` (every project). Returns the exit code: 1 when --check finds
 * drift, or when a project's extensions do not typecheck against its generated types.
 */
export async function genCommand(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, all: { type: 'boolean' }, check: { type: 'boolean' } },
  });
  const check = values.check ?? false;
  // `gen --check` alone checks every project (the contract lists it so); a bare `gen` must name what it rewrites.
  const all = values.all === true || (check && positionals.length === 0);
  if (positionals.length > 1 || (all ? positionals.length !== 0 : positionals.length !== 1)) {
    throw new CliError('usage', 'usage: gantry gen <ref> | --all | --check [<ref>]');
  }
  const platform = await Platform.open(loadConfig());
  try {
    const records = all ? await platform.listProjects() : [await openProject(platform, positionals[0])];
    const results = [];
    for (const record of records) {
      const result = await generateProject(platform, record, { check });
      const extensions = checkExtensions(platform.config, record.ref, result.files);
      results.push({ ref: record.ref, changed: result.changed, removed: result.removed, diff: result.diff, extensions });
    }
    const drift = results.filter((r) => r.changed.length + r.removed.length > 0);
    const broken = results.filter((r) => r.extensions.length > 0);
    const text = results
      .map((r) =>
        (r.changed.length + r.removed.length === 0
          ? `${r.ref}: up to date`
          : `${r.ref}: ${check ? 'differs' : 'written'}\n${r.diff}`)
        + (r.extensions.length > 0 ? `\n${r.ref}: extensions do not typecheck\n${r.extensions.join('\n')}` : ''),
      )
      .join('\n');
    out.result({ check, projects: results }, text);
    return (check && drift.length > 0) || broken.length > 0 ? 1 : 0;
  } finally {
    await platform.close();
  }
}

/** `gantry migrate <ref> F.sql`: all or nothing, then regenerate. */
export async function migrateCommand(args: string[], out: Output): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [ref, file] = positionals;
  if (!ref || !file || positionals.length !== 2) throw new CliError('usage', 'usage: gantry migrate <ref> FILE.sql');
  let migration: SchemaFile;
  try {
    migration = { name: file, sql: await fs.readFile(file, 'utf8') };
  } catch (error) {
    throw new CliError('schema_unreadable', `cannot read ${file}: ${(error as Error).message}`);
  }
  const platform = await Platform.open(loadConfig());
  try {
    const record = await openProject(platform, ref);
    // A running server regenerates on the same DDL at the same time; comparing with the code as
    // it was before the migration reports the migration's effect whoever wrote each file first.
    const dir = path.join(platform.config.generatedDir, ref);
    const before = await readGenerated(dir);
    await applySchemaFiles(platform, record.databaseName, [migration]);
    await generateProject(platform, record);
    const result = compareGenerated(before, await readGenerated(dir));
    out.result(
      { ref, migrated: file, changed: result.changed, removed: result.removed },
      `migrated ${ref} with ${file}; regenerated ${result.changed.length} file(s), removed ${result.removed.length}`,
    );
  } finally {
    await platform.close();
  }
}

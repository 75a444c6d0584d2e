import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type ts from 'typescript';
import type { GantryConfig } from '../../runtime/config.js';
import { taskClient } from '../../runtime/db/pool-errors.js';
import { QUERY_TYPES_FILE, typecheckExtensions } from '../../runtime/extensions/typecheck.js';
import { createProject, deleteProject, ProjectError, REF_PATTERN } from '../../runtime/platform/bootstrap.js';
import { DEFAULT_EXPOSED_SCHEMAS } from '../../runtime/platform/exposed-schemas.js';
import { Platform } from '../../runtime/platform/platform.js';
import { emitProject } from '../emit/project.js';
import { withQueryTypes, type WithQueryTypes } from '../extension-sql/query-types.js';
import { readExposedSchemas } from '../emit/schema-snapshot.js';
import { extensionFunctionPaths } from '../generate.js';
import { introspectProject } from '../introspect/introspect.js';
import { ApiDiffError } from '../api-diff/api-diff-error.js';
import { readFileAtRevision, resolveBase, type ResolvedBase } from '../api-diff/load-description.js';
import { displayPath } from '../migrations/apply.js';
import { asSchemaFiles } from '../migrations/create.js';
import { MigrationError } from '../migrations/errors.js';
import { checkHistory, type HistoryBase, type HistoryProblem } from '../migrations/history-check.js';
import { listLocalMigrations, projectMigrationsDir, type LocalMigration } from '../migrations/local-files.js';
import { readSum, sumPath, writeSum } from '../migrations/sum-file.js';
import { compareCodePoints } from '../model/sort.js';
import { declaredSchemas } from '../settings/declared.js';
import { driftFrom, readGenerated, writeGenerated, type FileDrift, type WriteResult } from '../write.js';

/**
 * What the gate found for one project:
 * - `up_to_date`: generated/<ref>/ is byte for byte what its migrations generate;
 * - `differs`: some files differ (`drift`);
 * - `no_generated_code`: migrations/<ref>/ has migrations, generated/<ref>/ no generated file (every file is in `drift` as added);
 * - `no_migrations`: generated/<ref>/ exists, migrations/<ref>/ holds no migration: nothing can vouch for the code;
 * - `migrations_fail`: a migration does not run on a fresh database (`error` says where).
 * `extensions` holds the problems of extensions/<ref>/ against the code generated here, whatever the status: its queries
 * PostgreSQL refuses, then its typecheck's; `notCheckable` the uses of the query API whose SQL is built at run time (warnings);
 * `history` what is wrong with migrations/<ref>/ as gantry.sum and the base branch's gantry.sum record it.
 */
export interface ProjectCheck {
  readonly ref: string;
  readonly status: 'up_to_date' | 'differs' | 'no_generated_code' | 'no_migrations' | 'migrations_fail';
  readonly migrations: number;
  readonly drift: readonly FileDrift[];
  readonly extensions: readonly string[];
  readonly notCheckable: readonly string[];
  readonly error: string | null;
  readonly history: readonly HistoryProblem[];
  /** The revision the history was checked against (`main`, `main (merge-base 1a2b3c4)`); null outside git. */
  readonly historyBase: string | null;
}

/** Throwaway cluster settings: nothing built here outlives the check. */
const SCRATCH_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

async function subfolders(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory() && REF_PATTERN.test(entry.name)).map((entry) => entry.name);
}

/** Every project the checkout holds: declared in gantry.toml, a `generated/<ref>/` with generated files, or a `migrations/<ref>/` with migrations. */
export async function committedProjects(config: GantryConfig): Promise<string[]> {
  const refs = new Set<string>(config.configFile?.projects.map((p) => p.ref));
  for (const ref of await subfolders(config.generatedDir)) {
    if ((await readGenerated(path.join(config.generatedDir, ref))).size > 0) refs.add(ref);
  }
  for (const ref of await subfolders(config.migrationsDir)) {
    if ((await listLocalMigrations(config.migrationsDir, ref)).length > 0) refs.add(ref);
  }
  return [...refs].sort(compareCodePoints);
}

/**
 * A cluster nobody else uses for the check: a new embedded one in a temporary GANTRY_HOME (durability off, removed
 * afterwards), or, with DATABASE_URL, the databases of scratch projects in that cluster, deleted afterwards. The
 * check never reads or writes the projects of the registry the user's GANTRY_HOME or DATABASE_URL holds.
 */
class ScratchCluster {
  private constructor(
    readonly platform: Platform,
    private readonly home: string | null,
  ) {}

  static async open(config: GantryConfig): Promise<ScratchCluster> {
    if (config.databaseUrl) return new ScratchCluster(await Platform.open(config), null);
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-check-'));
    try {
      return new ScratchCluster(await Platform.open({ ...config, gantryHome: home }, { settings: SCRATCH_SETTINGS }), home);
    } catch (error) {
      await fs.rm(home, { recursive: true, force: true });
      throw error;
    }
  }

  async close(): Promise<void> {
    const { cluster } = this.platform;
    try {
      await this.platform.close();
    } finally {
      if (this.home) await fs.rm(this.home, { recursive: true, force: true });
      // As root, the data may have gone to the system directory (cluster-placement.ts), in a folder of this home's own.
      if (this.home && cluster.relocated && cluster.dataDir) await fs.rm(path.dirname(cluster.dataDir), { recursive: true, force: true });
    }
  }
}

/** The exposed schemas the committed code was generated for (schema.json records them), else the default; gantry.toml's `api.schemas` comes first. */
async function committedSchemas(config: GantryConfig, ref: string): Promise<readonly string[]> {
  const text = await fs.readFile(path.join(config.generatedDir, ref, 'schema.json'), 'utf8').catch(() => null);
  return (text === null ? null : readExposedSchemas(text)) ?? DEFAULT_EXPOSED_SCHEMAS;
}

/**
 * Builds the project from its migrations on the scratch cluster, as `project create` bootstraps a database (auth
 * schema, grants, event triggers, then the files in version order), under a scratch ref, and generates its code in
 * memory under its own ref. The seed is not run: it adds rows, and generated code depends on the schema alone.
 */
async function generateFromMigrations(
  scratch: ScratchCluster,
  config: GantryConfig,
  ref: string,
  migrations: readonly LocalMigration[],
): Promise<WithQueryTypes> {
  const scratchRef = `check_${randomBytes(6).toString('hex')}`;
  const { platform } = scratch;
  const record = await createProject(platform, { ref: scratchRef, schemaFiles: asSchemaFiles(migrations) });
  try {
    const client = taskClient(platform.cluster.urlFor(record.databaseName));
    await client.connect();
    try {
      const schemas = declaredSchemas(config.configFile, ref, process.env) ?? (await committedSchemas(config, ref));
      const model = await introspectProject(client, { schemas });
      const files = emitProject(model, { ref, functionPaths: await extensionFunctionPaths(config.extensionsDir, ref) });
      return await withQueryTypes(client, files, {
        ref,
        extensionsDir: config.extensionsDir,
        generatedDir: config.generatedDir,
        model,
        extraSearchPath: record.settings['api.extra_search_path'],
        inTransaction: false,
      });
    } finally {
      await client.end();
    }
  } finally {
    await deleteProject(platform, scratchRef);
  }
}

/**
 * The extensions of `ref` typechecked against `files` as if they were generated/<ref>/, each query with its types from
 * their `extension-queries.ts`; `program` is the extension's program built against the same files, when there is one.
 */
export function typecheckAgainst(config: GantryConfig, ref: string, files: ReadonlyMap<string, string>, program?: ts.Program | null): string[] {
  const dir = path.join(config.generatedDir, ref);
  const overrides = new Map([...files].map(([file, text]) => [path.join(dir, file), text]));
  return typecheckExtensions({ extensionsDir: config.extensionsDir, ref, overrides, queryTypes: path.join(dir, QUERY_TYPES_FILE), ...(program ? { program } : {}) });
}

/** The commit the gate checks history against: the merge-base with the default branch; null outside git or before the first commit. */
async function gateBase(config: GantryConfig): Promise<ResolvedBase | null> {
  return resolveBase(config.migrationsDir, null).catch((error: unknown) => {
    if (error instanceof ApiDiffError) return null;
    throw error;
  });
}

async function historyOf(config: GantryConfig, ref: string, migrations: readonly LocalMigration[], base: ResolvedBase | null): Promise<HistoryProblem[]> {
  const atBase: HistoryBase | null = base && { ...base, sum: await readFileAtRevision(sumPath(config.migrationsDir, ref), base.commit) };
  const folder = displayPath(projectMigrationsDir(config.migrationsDir, ref)).split(path.sep).join('/');
  return checkHistory({ ref, folder, local: migrations, sum: await readSum(config.migrationsDir, ref), base: atBase, now: new Date() });
}

async function checkProject(scratch: () => Promise<ScratchCluster>, config: GantryConfig, ref: string, gitBase: ResolvedBase | null): Promise<ProjectCheck> {
  const migrations = await listLocalMigrations(config.migrationsDir, ref);
  const dir = path.join(config.generatedDir, ref);
  const history = migrations.length === 0 ? [] : await historyOf(config, ref, migrations, gitBase);
  const base = { ref, migrations: migrations.length, drift: [], extensions: [], notCheckable: [], error: null, history, historyBase: gitBase?.label ?? null };
  if (migrations.length === 0) return { ...base, status: 'no_migrations' };
  let generated: WithQueryTypes;
  try {
    generated = await generateFromMigrations(await scratch(), config, ref, migrations);
  } catch (error) {
    if ((error instanceof ProjectError && error.code === 'schema_failed') || error instanceof MigrationError) return { ...base, status: 'migrations_fail', error: error.message };
    throw error;
  }
  const { files, sql, program } = generated;
  const drift = await driftFrom(dir, files);
  const committed = (await readGenerated(dir)).size > 0;
  const status = !committed ? 'no_generated_code' : drift.length > 0 ? 'differs' : 'up_to_date';
  return { ...base, status, drift, extensions: [...sql.problems, ...typecheckAgainst(config, ref, files, program)], notCheckable: sql.notCheckable };
}

/**
 * The CI gate: each project (all the checkout holds, or `refs`) built from its migrations on one scratch cluster,
 * started once for all of them and only when some project has migrations, its code generated in memory and compared
 * byte for byte with generated/<ref>/, its extensions typechecked against that code, its history checked against
 * gantry.sum and the base branch's (history-check.ts). Nothing is written.
 */
export async function checkFromMigrations(config: GantryConfig, refs: readonly string[]): Promise<ProjectCheck[]> {
  const gitBase = await gateBase(config);
  return withScratch(config, async (scratch) => {
    const results: ProjectCheck[] = [];
    for (const ref of refs) results.push(await checkProject(scratch, config, ref, gitBase));
    return results;
  });
}

/** Runs `work` with a scratch cluster that is started on first use, once, and closed afterwards. */
async function withScratch<T>(config: GantryConfig, work: (scratch: () => Promise<ScratchCluster>) => Promise<T>): Promise<T> {
  const cluster: { opened: Promise<ScratchCluster> | null } = { opened: null };
  try {
    return await work(() => (cluster.opened ??= ScratchCluster.open(config)));
  } finally {
    if (cluster.opened) await (await cluster.opened).close();
  }
}

/**
 * `gen <ref> --from-migrations`: the gate's build, writing instead of comparing: generated/<ref>/ and gantry.sum
 * made from migrations/<ref>/ alone on a scratch cluster, whatever the generated files hold (conflict markers
 * mid-merge included) and whatever the local database holds. A migration that fails is the ProjectError it throws.
 */
export async function regenerateFromMigrations(config: GantryConfig, refs: readonly string[]): Promise<(WriteResult & { readonly ref: string; readonly sumWritten: boolean })[]> {
  return withScratch(config, async (scratch) => {
    const results = [];
    for (const ref of refs) {
      const migrations = await listLocalMigrations(config.migrationsDir, ref);
      if (migrations.length === 0) throw new ProjectError('project_not_found', `${displayPath(projectMigrationsDir(config.migrationsDir, ref))} holds no migration to build ${ref} from`);
      const { files } = await generateFromMigrations(await scratch(), config, ref, migrations);
      const written = await writeGenerated(path.join(config.generatedDir, ref), files, { check: false });
      results.push({ ref, ...written, sumWritten: await writeSum(config.migrationsDir, ref) });
    }
    return results;
  });
}

import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type GantryConfig } from '../runtime/config.js';
import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { Platform, type ProjectRecord } from '../runtime/platform/platform.js';
import { checkFromMigrations, committedProjects, regenerateFromMigrations, typecheckAgainst } from '../generator/check/gate.js';
import { localStates } from '../generator/check/local-state.js';
import { gatePasses, projectPasses, reportProject, reportText } from '../generator/check/report.js';
import { generateProject } from '../generator/generate.js';
import { planDeclared } from '../generator/settings/apply.js';
import { driftLines } from '../generator/settings/declared.js';
import { type Output } from './output.js';
import { requireProject } from './platform-session.js';
import { CliError } from '../generator/command-error.js';

async function openProject(platform: Platform, ref: string | undefined): Promise<ProjectRecord> {
  if (!ref) throw new CliError('usage', 'a project ref is required');
  assertValidRef(ref);
  return requireProject(platform, ref);
}

/**
 * `gen --check [<ref> ...]`: the CI gate (check/gate.ts), from the committed migrations, on a scratch cluster:
 * needs no GANTRY_HOME, no registry and no server. Exit 1 unless every project passes, and when there is none to
 * check: a gate run in the wrong folder must not pass.
 */
async function checkCommand(config: GantryConfig, refs: readonly string[], out: Output): Promise<number> {
  refs.forEach(assertValidRef);
  const started = performance.now();
  const wanted = refs.length > 0 ? refs : await committedProjects(config);
  if (wanted.length === 0) {
    throw new CliError('no_projects', `no project to check: neither ${config.generatedDir} nor ${config.migrationsDir} holds a project folder`);
  }
  const checks = await checkFromMigrations(config, wanted);
  // Only code that differs needs to know where the local database stands: a passing gate never looks.
  const stale = checks.filter((c) => c.status === 'differs' || c.status === 'no_generated_code').map((c) => c.ref);
  const local = await localStates(config, stale);
  const projects = checks.map((c) => reportProject(c, local.get(c.ref)));
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const passes = gatePasses(projects);
  const failing = projects.filter((p) => !projectPasses(p)).length;
  const verdict = passes ? 'passes' : `fails: ${failing} of ${projects.length} project(s)`;
  out.result(
    { check: true, source: 'migrations', passes, seconds, projects },
    `${reportText(projects)}
gen --check ${verdict} (built from migrations in ${seconds} s)`,
  );
  return passes ? 0 : 1;
}

/**
 * `gen <ref> ... | --all --from-migrations`: generated/<ref>/ and gantry.sum written from migrations/<ref>/ on a scratch
 * cluster, as the gate builds them (`--all`: every project the checkout holds); no registry, no local database.
 */
async function fromMigrationsCommand(config: GantryConfig, refs: readonly string[], all: boolean, out: Output): Promise<number> {
  if (all === (refs.length > 0)) throw new CliError('usage', 'usage: gantry gen <ref> ... | --all --from-migrations');
  const results = await regenerateFromMigrations(config, all ? await committedProjects(config) : refs);
  const text = results.map((r) =>
    r.changed.length + r.removed.length === 0 && !r.sumWritten
      ? `${r.ref}: up to date`
      : `${r.ref}: written from migrations (${r.changed.length} file(s) written, ${r.removed.length} removed${r.sumWritten ? ', gantry.sum written' : ''})${r.diff === '' ? '' : `\n${r.diff}`}`,
  );
  out.result(
    { from_migrations: true, projects: results.map((r) => ({ ref: r.ref, changed: r.changed, removed: r.removed, sum_written: r.sumWritten })) },
    text.join('\n'),
  );
  return 0;
}

/**
 * `gantry gen <ref> | --all`, `gen <ref> | --all --from-migrations`, `gen --check [<ref>]` (from migrations: checkCommand), `gen <ref> | --all --check --live`
 * (against the live databases of the registry). Returns the exit code: 1 when a check finds drift, or when a
 * project's extensions do not typecheck against its generated types.
 */
export async function genCommand(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, all: { type: 'boolean' }, check: { type: 'boolean' }, live: { type: 'boolean' }, 'from-migrations': { type: 'boolean' } },
  });
  const check = values.check ?? false;
  if (values['from-migrations']) {
    if (check || values.live) throw new CliError('usage', '--from-migrations writes; gen --check already builds from migrations');
    return fromMigrationsCommand(loadConfig(), positionals, values.all === true, out);
  }
  if (values.live && !check) throw new CliError('usage', '--live goes with --check: usage: gantry gen <ref> | --all --check --live');
  if (check && !values.live) {
    if (values.all) throw new CliError('usage', 'usage: gantry gen --check [<ref> ...] (every project without a ref)');
    return checkCommand(loadConfig(), positionals, out);
  }
  // `gen --check --live` alone checks every project; a bare `gen` must name what it rewrites.
  const all = values.all === true || (check && positionals.length === 0);
  if (positionals.length > 1 || (all ? positionals.length !== 0 : positionals.length !== 1)) {
    throw new CliError('usage', 'usage: gantry gen <ref> | --all | <ref> ... | --all --from-migrations | --check [<ref> ...] | <ref> | --all --check --live');
  }
  const platform = await Platform.open(loadConfig());
  try {
    const records = all ? await platform.listProjects() : [await openProject(platform, positionals[0])];
    const results = [];
    for (const record of records) {
      const result = await generateProject(platform, record, { check });
      const extensions = [...(result.sql?.problems ?? []), ...typecheckAgainst(platform.config, record.ref, result.files ?? new Map(), result.program)];
      const notCheckable = result.sql?.notCheckable ?? [];
      const plan = check ? await planDeclared(platform, record.ref, process.env, false) : null;
      // The plan's assignments hold resolved secrets: the report carries only what differs, shown safely.
      const settings = plan && { changes: plan.changes, database_only: plan.databaseOnly };
      results.push({
        ref: record.ref,
        changed: result.changed,
        removed: result.removed,
        diff: result.diff,
        extensions,
        ...(notCheckable.length > 0 ? { not_checkable: notCheckable } : {}),
        ...(settings ? { settings } : {}),
      });
    }
    const drift = results.filter((r) => r.changed.length + r.removed.length + (r.settings?.changes.length ?? 0) > 0);
    const broken = results.filter((r) => r.extensions.length > 0);
    const text = results
      .map((r) =>
        (r.changed.length + r.removed.length === 0
          ? `${r.ref}: up to date`
          : `${r.ref}: ${check ? 'differs' : 'written'}\n${r.diff}`)
        + (r.extensions.length > 0 ? `\n${r.ref}: extensions do not typecheck\n${r.extensions.join('\n')}` : '')
        + (r.not_checkable ? `\n${r.ref}: warning: ${r.not_checkable.length} query site(s) not checkable\n${r.not_checkable.join('\n')}` : '')
        + (r.settings ? driftLines(r.ref, r.settings.changes, r.settings.database_only).map((line) => `\n${line}`).join('') : ''),
      )
      .join('\n');
    out.result({ check, projects: results }, text);
    return (check && drift.length > 0) || broken.length > 0 ? 1 : 0;
  } finally {
    await platform.close();
  }
}

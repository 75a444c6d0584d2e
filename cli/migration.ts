import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../runtime/config.js';
import { taskClient } from '../runtime/db/pool-errors.js';
import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { Platform, type ProjectRecord } from '../runtime/platform/platform.js';
import { displayPath } from '../generator/migrations/apply.js';
import { MigrationError } from '../generator/migrations/errors.js';
import { ensureHistoryTable, forgetMigration, readHistory, recordMigration } from '../generator/migrations/history.js';
import { assertMigrationName, copyMigrations, listLocalMigrations, listMigrationsIn, nextVersions, writeMigration } from '../generator/migrations/local-files.js';
import { migrationStatus } from '../generator/migrations/status.js';
import { writeSum } from '../generator/migrations/sum-file.js';
import { type Output } from './output.js';
import { requireProject } from './platform-session.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry migration new <ref> <name> | list <ref> | repair <ref> <version> --status applied|reverted | import <ref> DIR';

/** Runs `work` on a direct connection to the project's database. */
async function withProjectDatabase<T>(ref: string, work: (client: import('pg').Client, record: ProjectRecord, platform: Platform) => Promise<T>): Promise<T> {
  const platform = await Platform.open(loadConfig());
  try {
    const record = await requireProject(platform, ref);
    const client = taskClient(platform.projectUrl(record));
    await client.connect();
    try {
      return await work(client, record, platform);
    } finally {
      await client.end();
    }
  } finally {
    await platform.close();
  }
}

/** `gantry migration new|list|repair|import ...`. */
export async function migrationCommand(args: string[], out: Output): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean' }, status: { type: 'string' } } });
  const [ref, argument] = positionals;
  if (!ref || positionals.length > 2) throw new CliError('usage', USAGE);
  assertValidRef(ref);
  const { migrationsDir } = loadConfig();
  switch (sub) {
    case 'new': {
      if (!argument) throw new CliError('usage', USAGE);
      assertMigrationName(argument);
      const [version] = nextVersions(new Date(), (await listLocalMigrations(migrationsDir, ref)).map((m) => m.version), 1);
      const written = await writeMigration(migrationsDir, ref, version!, argument, '');
      await writeSum(migrationsDir, ref);
      out.result({ path: written.path, version: written.version }, displayPath(written.path));
      return;
    }
    case 'list': {
      if (argument) throw new CliError('usage', USAGE);
      const local = await listLocalMigrations(migrationsDir, ref);
      const status = await withProjectDatabase(ref, async (client) => migrationStatus(local, await readHistory(client)));
      const migrations = status.map((m) => ({
        version: m.version,
        name: m.name,
        state: m.state,
        applied_at: m.appliedAt?.toISOString() ?? null,
        local_checksum: m.localChecksum,
        applied_checksum: m.appliedChecksum,
      }));
      const text = migrations.length === 0
        ? `${ref}: no migrations`
        : ['VERSION         STATE            APPLIED AT                NAME', ...migrations.map((m) => `${m.version}  ${m.state.padEnd(15)}  ${(m.applied_at ?? '-').padEnd(24)}  ${m.name ?? ''}`)].join('\n');
      out.result({ ref, migrations }, text);
      return;
    }
    case 'repair': {
      const status = values.status;
      if (!argument || (status !== 'applied' && status !== 'reverted')) throw new CliError('usage', USAGE);
      const local = (await listLocalMigrations(migrationsDir, ref)).find((m) => m.version === argument);
      if (status === 'applied' && !local) {
        throw new MigrationError('migration_not_found', `no migration ${argument} in ${displayPath(path.join(migrationsDir, ref))}`);
      }
      const changed = await withProjectDatabase(ref, async (client) => {
        if (status === 'reverted') return forgetMigration(client, argument);
        await ensureHistoryTable(client);
        await recordMigration(client, local!);
        return true;
      });
      out.result({ ref, version: argument, status, changed }, `${ref}: ${argument} recorded as ${status}${changed ? '' : ' (it was not recorded)'}`);
      return;
    }
    case 'import': {
      if (!argument) throw new CliError('usage', USAGE);
      const found = await listMigrationsIn(argument);
      if (found.length === 0) throw new MigrationError('migration_not_found', `no <version>_<name>.sql files in ${argument}`);
      const imported = await copyMigrations(migrationsDir, ref, found);
      await writeSum(migrationsDir, ref);
      const text = [
        `${ref}: imported ${imported.length} of ${found.length} migration(s) from ${argument} into ${displayPath(path.join(migrationsDir, ref))}`,
        `run: npx gantry migrate ${ref}   (versions the project database has recorded in supabase_migrations.schema_migrations count as applied)`,
      ].join('\n');
      out.result({ ref, imported: imported.map((m) => ({ version: m.version, name: m.name, path: m.path })), found: found.length }, text);
      return;
    }
    default:
      throw new CliError('usage', USAGE);
  }
}

import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../runtime/config.js';
import { taskClient } from '../runtime/db/pool-errors.js';
import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { Platform } from '../runtime/platform/platform.js';
import { generateProject } from '../generator/generate.js';
import { displayPath } from '../generator/migrations/apply.js';
import { resetProjectDatabase } from '../generator/migrations/create.js';
import { MigrationError } from '../generator/migrations/errors.js';
import { projectMigrationsDir, readSeed, SEED_FILE } from '../generator/migrations/local-files.js';
import { isProduction } from '../generator/migrations/production.js';
import { tablesWithRows } from '../generator/migrations/user-rows.js';
import { withAppliedSettings } from '../generator/settings/apply.js';
import { type Output } from './output.js';
import { requireProject } from './platform-session.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry db reset <ref> [--yes]';

/**
 * `gantry db reset <ref> [--yes]`: the project database rebuilt from migrations/<ref>/ and seed.sql,
 * the registry (keys, settings) untouched, the code regenerated. Without --yes it refuses when any
 * user table or auth.users holds a row: the rule is simple and errs on the safe side (a database
 * holding only what the seed wrote also needs --yes). A database marked production is never reset.
 */
export async function dbCommand(args: string[], out: Output): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean' }, yes: { type: 'boolean' } } });
  const [ref] = positionals;
  if (sub !== 'reset' || !ref || positionals.length !== 1) throw new CliError('usage', USAGE);
  assertValidRef(ref);
  const platform = await Platform.open(loadConfig());
  try {
    const record = await requireProject(platform, ref);
    if (await isProduction(platform.pool, record.databaseName)) {
      throw new MigrationError(
        'database_is_production',
        `${ref}: the database is marked production (gantry migrate --production); db reset never drops it, with or without --yes`,
      );
    }
    if (!values.yes) {
      const client = taskClient(platform.projectUrl(record));
      await client.connect();
      const full = await tablesWithRows(client).finally(() => client.end());
      if (full.length > 0) {
        throw new MigrationError('database_not_empty', `${ref}: ${full.join(', ')} hold rows that a reset deletes; run again with --yes to reset anyway`);
      }
    }
    const seedPath = path.join(projectMigrationsDir(platform.config.migrationsDir, ref), SEED_FILE);
    const seedSql = await readSeed(platform.config.migrationsDir, ref);
    const migrations = await resetProjectDatabase(platform, record, seedSql === null ? null : { name: displayPath(seedPath), sql: seedSql });
    const generated = await generateProject(platform, record);
    const { value, text } = await withAppliedSettings(platform, ref, {
      value: { ref, migrations: migrations.map((m) => ({ version: m.version, name: m.name })), seeded: seedSql !== null, changed: generated.changed, removed: generated.removed },
      text: `reset ${ref}: ${migrations.length} migration(s)${seedSql !== null ? ' and seed.sql' : ''} applied; regenerated ${generated.changed.length} file(s), removed ${generated.removed.length}`,
    });
    out.result(value, text);
  } finally {
    await platform.close();
  }
}

import { reportFailure } from './failure.js';
import { createOutput } from './output.js';

const USAGE = `usage: gantry <command>
  init [<ref>]                            write gantry.toml, the project's folders, .gitignore/.gitattributes lines,
                                          npm scripts and a CI workflow into this repository (idempotent)
  serve                                   run the project host and the call-analysis API
  project create <ref> [--schema F.sql ...] [--autoconfirm] [--signing-alg HS256|ES256|RS256] [--cluster NAME]
  project list | keys <ref> | delete <ref> | config <ref> --set KEY=VALUE
  project move <ref> --to CLUSTER | move <ref> --confirm
                                          copy a project's database to another cluster (writes paused meanwhile);
                                          --confirm drops the old database the move kept
  project keys rotate <ref> [--grace SECONDS] [--alg ES256|RS256]
  migrate <ref> [F.sql] [--force]         apply pending migrations (F.sql: added as the newest first), regenerate
  migrate --all [--force]                 every project gantry.toml declares, each created from its history when missing
  migration new <ref> <name>              create migrations/<ref>/<version>_<name>.sql
  migration list <ref>                    local and applied migrations, with their state
  migration repair <ref> <version> --status applied|reverted
  migration import <ref> DIR              copy a Supabase CLI supabase/migrations/ folder in
  db reset <ref> [--yes]                  rebuild the database from migrations/<ref>/ and seed.sql
  gen <ref> | --all                       regenerate generated/<ref>/ from the live database
  gen --check [<ref> ...]                 CI gate: build each project from migrations/ on a scratch cluster,
                                          compare with generated/, typecheck extensions/ (exit 1 on any difference)
  gen <ref> | --all --check --live        compare with the live database instead
  diff <ref> [--base GIT_REF] [--fail-on-breaking] [--fail-on-lint] [--data | --data-url URL] [--format text|markdown]
                                          the API change since the base, classed, with endpoints, types, the
                                          extension code it touches, row counts (--data) and the migrations' lint
  config import <ref> [supabase/config.toml]
                                          write a Supabase CLI config.toml's [api]/[auth] into gantry.toml
  calls key create --tenant <id> | calls key revoke <id>
Every command takes --json.`;

/** Runs one CLI invocation; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const out = createOutput(argv.includes('--json'));
  const [command, ...rest] = argv;
  try {
    // Each command loads only what it runs: the generator (TypeScript, which openapi-typescript and the
    // extensions' typecheck load) takes seconds to load, and `project list`, `keys` or `calls key` never need it.
    switch (command) {
      case 'init':
        await (await import('./init.js')).initCommand(rest, out);
        return 0;
      case 'serve':
        return await (await import('./serve.js')).serveCommand(rest);
      case 'project':
        await (await import('./project.js')).projectCommand(rest, out);
        return 0;
      case 'gen':
        return await (await import('./gen.js')).genCommand(rest, out);
      case 'calls':
        await (await import('./calls.js')).callsCommand(rest, out);
        return 0;
      case 'diff':
        return await (await import('./diff.js')).diffCommand(rest, out);
      case 'migrate':
        await (await import('./migrate.js')).migrateCommand(rest, out);
        return 0;
      case 'migration':
        await (await import('./migration.js')).migrationCommand(rest, out);
        return 0;
      case 'config':
        await (await import('./config.js')).configCommand(rest, out);
        return 0;
      case 'db':
        await (await import('./db.js')).dbCommand(rest, out);
        return 0;
      default:
        out.failure('usage', USAGE);
        return 1;
    }
  } catch (error) {
    return reportFailure(error, out);
  }
}

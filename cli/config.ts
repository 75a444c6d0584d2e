import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_FILE_NAME } from '../runtime/config-file.js';
import { loadConfig } from '../runtime/config.js';
import { REF_PATTERN } from '../runtime/platform/bootstrap.js';
import { importSupabaseConfig } from '../generator/settings/supabase-import.js';
import { settingLine, setSettingInText } from '../generator/settings/toml-edit.js';
import { replaceFile } from '../generator/write.js';
import { type Output } from './output.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry config import <ref> [supabase/config.toml]';

/**
 * `gantry config import <ref> [FILE]`: the `[api]` and `[auth]` settings of a Supabase CLI `config.toml` (by default
 * supabase/config.toml in the project root) written into `[projects.<ref>.settings]` of gantry.toml (created when
 * there is none), the keys Gantry has no setting for listed. Nothing is applied: `migrate` and `serve` do that.
 */
export async function configCommand(args: string[], out: Output): Promise<void> {
  const [sub, ...rest] = args;
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [ref, source] = positionals;
  if (sub !== 'import' || !ref || positionals.length > 2) throw new CliError('usage', USAGE);
  if (!REF_PATTERN.test(ref)) throw new CliError('usage', `invalid project ref "${ref}"`);
  const config = loadConfig();
  const from = path.resolve(source ?? path.join(config.root, 'supabase', 'config.toml'));
  const text = await fs.readFile(from, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError('supabase_config_unreadable', `cannot read ${from}: ${error.code ?? error.message}`);
  });
  const imported = importSupabaseConfig(text, from);
  const file = config.configFile?.path ?? path.join(config.root, CONFIG_FILE_NAME);
  let toml = config.configFile === null ? '' : await fs.readFile(file, 'utf8');
  for (const [key, value] of imported.settings) toml = setSettingInText(toml, file, ref, key, value);
  await replaceFile(file, toml);
  const lines = [...imported.settings].map(([key, value]) => settingLine(key, value));
  out.result(
    { ref, file, source: from, settings: Object.fromEntries(imported.settings), skipped: imported.skipped, references: imported.references },
    [
      `imported ${lines.length} setting(s) from ${from} into ${file} [projects.${ref}.settings]:`,
      ...lines.map((line) => `  ${line}`),
      ...(imported.references.length > 0 ? [`secrets are references: set ${imported.references.join(', ')} where gantry runs`] : []),
      ...(imported.skipped.length > 0 ? [`not imported (${imported.skipped.length}):`, ...imported.skipped.map((s) => `  ${s}`)] : []),
      `apply them with: npx gantry migrate ${ref} (or at the next serve)`,
    ].join('\n'),
  );
}

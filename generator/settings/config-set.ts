import fs from 'node:fs/promises';
import type { ConfigFile, FileSettingValue } from '../../runtime/config-file.js';
import type { Platform, ProjectRecord } from '../../runtime/platform/platform.js';
import { isSecretSetting, parseSetting, SettingsError, type SettingAssignment } from '../../runtime/platform/settings.js';
import { CliError } from '../command-error.js';
import { configureProject, type ConfigResult } from './project-config.js';
import { envReference, secretLiteralError } from './declared.js';
import { settingLine, setSettingInText } from './toml-edit.js';
import { replaceFile } from '../write.js';

/** One `--set KEY=VALUE` as the file records it and as the registry takes it. */
interface FileAssignment {
  readonly key: string;
  readonly value: FileSettingValue;
  readonly assignment: SettingAssignment;
}

/**
 * `--set KEY=VALUE` for a project gantry.toml declares: a value typed as the setting parses it (`true`, `3600`), a
 * secret refused with the reference to write instead, `KEY=env(NAME)` written as the reference and applied as NAME's value.
 */
export function fileAssignment(raw: string, where: string, env: Readonly<Record<string, string | undefined>>): FileAssignment {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new SettingsError(`expected KEY=VALUE, got "${raw}"`);
  const key = raw.slice(0, eq);
  const given = raw.slice(eq + 1);
  const variable = envReference(given);
  if (variable !== null) {
    const resolved = env[variable];
    if (resolved === undefined) throw new CliError('setting_env_unset', `${key} = env(${variable}): the environment variable ${variable} is not set`);
    return { key, value: `env(${variable})`, assignment: parseSetting(`${key}=${resolved}`) };
  }
  if (isSecretSetting(key) && given !== '') throw secretLiteralError(where, key);
  const assignment = parseSetting(raw);
  const value = typeof assignment.value === 'boolean' || typeof assignment.value === 'number' ? assignment.value : given;
  return { key, value, assignment };
}

/**
 * `project config <ref> --set …` when gantry.toml declares the project: every line written into
 * `[projects.<ref>.settings]` (checked first, all of them), then applied to the registry, then the file replaced;
 * a setting the registry refuses (a missing schema) leaves the file as it was.
 */
export async function setInConfigFile(
  platform: Platform,
  record: ProjectRecord,
  file: ConfigFile,
  raws: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<ConfigResult & { readonly written: readonly string[] }> {
  const assignments = raws.map((raw) => fileAssignment(raw, file.path, env));
  let text = await fs.readFile(file.path, 'utf8');
  for (const { key, value } of assignments) text = setSettingInText(text, file.path, record.ref, key, value);
  const result = await configureProject(platform, record, assignments.map((a) => a.assignment));
  await replaceFile(file.path, text);
  return { ...result, written: assignments.map(({ key, value }) => settingLine(key, value)) };
}

import { timingSafeEqual } from 'node:crypto';
import type { ConfigFile, FileSettingValue, ProjectDeclaration } from '../../runtime/config-file.js';
import { openProviderSecret } from '../../runtime/settings/provider-settings.js';
import { openHookSecrets, splitHookSecrets, type HookName } from '../../runtime/settings/hook-settings.js';
import { openSmsSecret, type SmsSettingKey } from '../../runtime/settings/sms-settings.js';
import { isSecretSetting, parseSetting, resolveSettings, settingLines, type SettingAssignment } from '../../runtime/platform/settings.js';
import { CliError } from '../command-error.js';

/**
 * The settings a project's `[projects.<ref>.settings]` declares, turned into what `project config --set` takes,
 * compared with what the registry stores. Pure: the environment and the stored settings come in as arguments.
 */

/** `env(NAME)`: the value comes from the environment variable NAME when the settings are applied (the Supabase CLI's form). */
const ENV_REFERENCE = /^env\(([A-Za-z_][A-Za-z0-9_]*)\)$/;

/** NAME of a value `env(NAME)`; null for any other value. */
export function envReference(value: FileSettingValue): string | null {
  return typeof value === 'string' ? (ENV_REFERENCE.exec(value.trim())?.[1] ?? null) : null;
}

/** A file value as the CLI's text (`true`, `3600`, `public,extra`). */
export function settingText(value: FileSettingValue): string {
  return String(value);
}

/** The environment variable a secret's reference suggests: `auth.external.github.secret` -> GITHUB_SECRET. */
export function suggestedVariable(key: string): string {
  return key.replace(/^auth\.(external\.|hook\.|sms\.)?/, '').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** The line that declares `key` by reference in `[projects.<ref>.settings]`. */
export function referenceLine(key: string, variable: string): string {
  return `${JSON.stringify(key)} = "env(${variable})"`;
}

/** The refusal of a secret given as a value: the file holds only references. */
export function secretLiteralError(where: string, key: string): CliError {
  const variable = suggestedVariable(key);
  return new CliError(
    'secret_in_config_file',
    `${key} is a secret: ${where} holds only a reference to an environment variable, never its value; write instead: ${referenceLine(key, variable)} (and set ${variable} where gantry runs)`,
  );
}

export interface DeclaredSetting {
  /** As the file names it (`app.settings.NAME` for an app setting). */
  readonly key: string;
  /** NAME when the file gives `env(NAME)`; null for a value. */
  readonly reference: string | null;
  readonly secret: boolean;
  /** The value as the CLI's text, the reference resolved; null when its variable is not set. */
  readonly text: string | null;
  /** The parsed value; null when `text` is. */
  readonly assignment: SettingAssignment | null;
}

/**
 * The declaration's settings, each checked as `project config --set` checks it, references resolved from `env`.
 * A secret given as a value is refused (`secret_in_config_file`); an unset variable leaves `text` null (see requireResolved).
 */
export function declaredSettings(declaration: ProjectDeclaration, env: Readonly<Record<string, string | undefined>>, where: string): DeclaredSetting[] {
  return [...declaration.settings].map(([key, value]) => {
    const reference = envReference(value);
    const secret = isSecretSetting(key);
    if (secret && reference === null && value !== '') throw secretLiteralError(where, key);
    const text = reference === null ? settingText(value) : (env[reference] ?? null);
    let assignment: SettingAssignment | null = null;
    if (text !== null) {
      try {
        assignment = parseSetting(`${key}=${text}`);
      } catch (error) {
        const origin = reference === null ? '' : ` (from ${reference})`;
        // A secret's value never reaches a message, even a parser's.
        const message = secret && text !== '' ? (error as Error).message.split(text).join('(secret)') : (error as Error).message;
        throw new CliError('invalid_setting', `${where}, [projects.${declaration.ref}.settings]${origin}: ${message}`);
      }
    }
    return { key, reference, secret, text, assignment };
  });
}

/** Applying needs every reference resolved: an unset variable is an error naming the setting and the variable. */
export function requireResolved(settings: readonly DeclaredSetting[], ref: string): void {
  const unset = settings.filter((s) => s.text === null);
  if (unset.length === 0) return;
  const named = unset.map((s) => `${s.key} = env(${s.reference})`).join(', ');
  throw new CliError('setting_env_unset', `project "${ref}": gantry.toml sets ${named}, and ${unset.length === 1 ? 'that variable is' : 'those variables are'} not set in the environment`);
}

/** One setting where the file and the database disagree; values as shown (a secret never: its reference, or whether one is sealed). */
export interface SettingChange {
  readonly key: string;
  readonly file: string;
  readonly database: string;
}

export interface SettingsPlan {
  /** The declared settings the database does not hold as declared. */
  readonly changes: readonly SettingChange[];
  /** What makes the database hold them (the differing ones only). */
  readonly assignments: readonly SettingAssignment[];
  /** Settings the file does not name whose value in the database is not the default. */
  readonly databaseOnly: readonly string[];
}

const APP_SETTINGS_PREFIX = 'app.settings.';
const NOT_SET = '(not set)';

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The stored secret in the clear, in the form the file's value compares with; null when it does not open. */
function openSecret(jwtSecret: string, key: string, sealed: string): string | null {
  try {
    const hook = /^auth\.hook\.([a-z_]+)\.secrets$/.exec(key);
    if (hook) return openHookSecrets(jwtSecret, hook[1] as HookName, sealed).join('|');
    const provider = /^auth\.external\.(.+)\.secret$/.exec(key);
    if (provider) return openProviderSecret(jwtSecret, provider[1] as string, sealed);
    return openSmsSecret(jwtSecret, key as SmsSettingKey, sealed);
  } catch {
    return null;
  }
}

function shownStored(value: unknown): string {
  if (value === undefined) return NOT_SET;
  if (value === null) return '';
  return Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Whether the database holds `setting` as declared, and how its value there is shown. */
function compare(setting: DeclaredSetting, stored: Readonly<Record<string, unknown>>, jwtSecret: string): { same: boolean; shown: string } {
  if (setting.key.startsWith(APP_SETTINGS_PREFIX)) {
    const apps = stored['app.settings'];
    const current = typeof apps === 'object' && apps !== null ? (apps as Record<string, unknown>)[setting.key.slice(APP_SETTINGS_PREFIX.length)] : undefined;
    const text = typeof current === 'string' ? current : '';
    return { same: setting.text === null ? text !== '' : text === setting.text, shown: typeof current === 'string' ? current : NOT_SET };
  }
  const value = stored[setting.key];
  if (setting.secret) {
    const sealed = typeof value === 'string' ? value : '';
    const shown = sealed === '' ? NOT_SET : '(sealed)';
    if (setting.text === null) return { same: sealed !== '', shown };
    if (sealed === '' || setting.text === '') return { same: sealed === setting.text, shown };
    const opened = openSecret(jwtSecret, setting.key, sealed);
    const wanted = setting.key.startsWith('auth.hook.') ? splitHookSecrets(setting.text).join('|') : setting.text;
    return { same: opened !== null && sameText(opened, wanted), shown };
  }
  // An unresolved reference cannot be compared: it matches whatever value the database holds.
  if (setting.assignment === null) return { same: value !== undefined, shown: shownStored(value) };
  return { same: JSON.stringify(value) === JSON.stringify(setting.assignment.value), shown: shownStored(value) };
}

/** KEY -> VALUE as `project config` lists the settings. */
function effective(stored: Readonly<Record<string, unknown>>): Map<string, string> {
  return new Map(settingLines(resolveSettings(stored)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/**
 * What differs between the declared settings and the registry's `stored` settings of the project, and the
 * assignments that make the registry hold the declared ones. The file is authoritative for the keys it names
 * only: a setting it does not name stays as the database has it, and is listed when it is not the default.
 */
export function planSettings(settings: readonly DeclaredSetting[], stored: Readonly<Record<string, unknown>>, jwtSecret: string): SettingsPlan {
  const changes: SettingChange[] = [];
  const assignments: SettingAssignment[] = [];
  for (const setting of settings) {
    const { same, shown } = compare(setting, stored, jwtSecret);
    if (same) continue;
    const file = setting.reference !== null ? `env(${setting.reference})` : (setting.text ?? '');
    changes.push({ key: setting.key, file, database: shown });
    if (setting.assignment !== null) assignments.push(setting.assignment);
  }
  const named = new Set(settings.map((s) => s.key));
  const defaults = effective({});
  const databaseOnly = [...effective(stored)]
    .filter(([key, value]) => !named.has(key) && value !== (defaults.get(key) ?? ''))
    .map(([key]) => key)
    .sort();
  return { changes, assignments, databaseOnly };
}

function databaseOnlyLines(ref: string, keys: readonly string[]): string[] {
  return keys.length === 0 ? [] : [`${ref}: set in the database only (not in gantry.toml): ${keys.join(', ')}`];
}

/** Lines saying what applying changed, without a secret's value. */
export function changeLines(ref: string, plan: Pick<SettingsPlan, 'changes' | 'databaseOnly'>, verb: string): string[] {
  const lines = plan.changes.length === 0
    ? [`${ref}: settings in sync with gantry.toml`]
    : [`${ref}: ${verb} ${plan.changes.length} setting(s) from gantry.toml:`, ...plan.changes.map((c) => `  ${c.key} = ${c.file} (database: ${c.database})`)];
  return [...lines, ...databaseOnlyLines(ref, plan.databaseOnly)];
}

/** The drift `gen --check --live` reports for one project: each setting that differs, then those set in the database only. */
export function driftLines(ref: string, changes: SettingsPlan['changes'], databaseOnly: SettingsPlan['databaseOnly']): string[] {
  const lines = changes.map((c) => `${ref}: setting ${c.key} differs: gantry.toml ${c.file}, database ${c.database}`);
  if (changes.length > 0) lines.push(`  run: npx gantry migrate ${ref} (applies gantry.toml's settings)`);
  return [...lines, ...databaseOnlyLines(ref, databaseOnly)];
}

/**
 * The exposed schemas gantry.toml declares for `ref` (`api.schemas` decides what code is generated, so the gate
 * builds with it), every declared setting checked on the way; null when the file does not set them.
 */
export function declaredSchemas(file: ConfigFile | null, ref: string, env: Readonly<Record<string, string | undefined>>): readonly string[] | null {
  const declaration = file?.projects.find((p) => p.ref === ref);
  if (file == null || declaration === undefined) return null;
  const assignment = declaredSettings(declaration, env, file.path).find((s) => s.key === 'api.schemas')?.assignment;
  return assignment?.key === 'api.schemas' ? assignment.value : null;
}

import type { ProjectDeclaration } from '../../runtime/config-file.js';
import type { Platform } from '../../runtime/platform/platform.js';
import { configureProject } from './project-config.js';
import { changeLines, declaredSettings, planSettings, requireResolved, type SettingsPlan } from './declared.js';

/** What applying a project's declared settings did. */
export interface AppliedSettings {
  readonly ref: string;
  readonly changed: SettingsPlan['changes'];
  readonly database_only: SettingsPlan['databaseOnly'];
  /** What regeneration changed, when `api.schemas` was applied. */
  readonly generated: { readonly changed: readonly string[]; readonly removed: readonly string[] } | null;
}

/** `[projects.<ref>.settings]` of the root's gantry.toml; null when it declares no setting for `ref`. */
export function declarationOf(platform: Platform, ref: string): ProjectDeclaration | null {
  const declaration = platform.config.configFile?.projects.find((p) => p.ref === ref);
  return declaration !== undefined && declaration.settings.size > 0 ? declaration : null;
}

/** The plan for `ref` against the registry: its declared settings (references resolved from `env`) beside the stored ones. */
export async function planDeclared(platform: Platform, ref: string, env: NodeJS.ProcessEnv, strict: boolean): Promise<SettingsPlan | null> {
  const declaration = declarationOf(platform, ref);
  const record = declaration === null ? null : await platform.getProject(ref);
  if (declaration === null || record === null) return null;
  const settings = declaredSettings(declaration, env, platform.config.configFile!.path);
  if (strict) requireResolved(settings, ref);
  return planSettings(settings, (await platform.storedSettings(ref)) ?? {}, record.jwtSecret);
}

/**
 * Makes the registry hold the settings gantry.toml declares for `ref` (what `migrate`, `db reset` and `serve` run):
 * only what differs is written, through `configureProject` as `project config --set` would, so a project in
 * sync is not written (and a running host not reloaded). Null when the file declares no setting for it.
 */
export async function applyDeclaredSettings(
  platform: Platform,
  ref: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { readonly regenerate?: boolean } = {},
): Promise<AppliedSettings | null> {
  const plan = await planDeclared(platform, ref, env, true);
  if (plan === null) return null;
  let generated: AppliedSettings['generated'] = null;
  if (plan.assignments.length > 0) {
    const record = await platform.getProject(ref);
    if (record !== null) generated = (await configureProject(platform, record, plan.assignments, options)).generated;
  }
  return { ref, changed: plan.changes, database_only: plan.databaseOnly, generated };
}

/** What applying did, as lines of a command's text. */
export function appliedText(applied: AppliedSettings): string[] {
  const lines = changeLines(applied.ref, { changes: applied.changed, databaseOnly: applied.database_only }, 'applied');
  if (applied.generated) lines.push(`regenerated ${applied.generated.changed.length} file(s), removed ${applied.generated.removed.length} for api.schemas`);
  return lines;
}

/** A command's result with the declared settings of `ref` applied after it, and said in its text and its JSON (`settings`). */
export async function withAppliedSettings<V extends object>(platform: Platform, ref: string, result: { readonly value: V; readonly text: string }): Promise<{ value: V; text: string }> {
  const applied = await applyDeclaredSettings(platform, ref);
  if (applied === null) return result;
  return { value: { ...result.value, settings: applied }, text: [result.text, ...appliedText(applied)].join('\n') };
}

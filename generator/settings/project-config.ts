import { taskClient } from '../../runtime/db/pool-errors.js';
import { missingSchemas } from '../../runtime/platform/exposed-schemas.js';
import type { Platform, ProjectRecord } from '../../runtime/platform/platform.js';
import { mergeAppSettings, SettingsError, type SettingAssignment, type SettingName, type SettingValue } from '../../runtime/platform/settings.js';
import { currentSigningKey, DEFAULT_ROTATION_GRACE_SECONDS, generateSigningKey, rotateSigningKey } from '../../runtime/platform/signing-keys.js';
import type { AccessTokenAlg } from '../../runtime/tokens/keyring.js';
import { sealProviderSecret } from '../../runtime/settings/provider-settings.js';
import { isHookSettingKey, sealHookSecrets } from '../../runtime/settings/hook-settings.js';
import { isSmsSecretKey, sealSmsSecret, type SmsSettingKey } from '../../runtime/settings/sms-settings.js';
import { generateProject } from '../generate.js';
import type { WriteResult } from '../write.js';

export interface ConfigResult {
  readonly record: ProjectRecord;
  /** What regeneration changed, when `api.schemas` was set; null otherwise. */
  readonly generated: Pick<WriteResult, 'changed' | 'removed'> | null;
}

async function requireSchemas(platform: Platform, record: ProjectRecord, schemas: readonly string[]): Promise<void> {
  const client = taskClient(platform.projectUrl(record));
  await client.connect();
  try {
    const missing = await missingSchemas(client, schemas);
    if (missing.length > 0) {
      const names = missing.map((schema) => JSON.stringify(schema)).join(', ');
      throw new SettingsError(`api.schemas: no schema ${names} in the database of project "${record.ref}" (names are exact and case-sensitive)`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Signing with ES256 or RS256 needs a current key of that algorithm: one is rotated in when the
 * project has none (the key it replaces verifies for one access-token lifetime). HS256 needs none.
 */
async function ensureSigningKey(platform: Platform, record: ProjectRecord, alg: AccessTokenAlg): Promise<void> {
  if (alg === 'HS256' || currentSigningKey(record.signingKeys)?.alg === alg) return;
  await rotateSigningKey(platform.pool, record.ref, await generateSigningKey(alg), DEFAULT_ROTATION_GRACE_SECONDS);
}

/** OAuth client secrets, hook secrets and SMS provider secrets are stored only sealed with the project's JWT secret, bound to what they belong to. */
function sealedIfSecret(record: ProjectRecord, key: string, value: SettingAssignment['value']): SettingAssignment['value'] {
  if (typeof value !== 'string' || value === '') return value;
  if (isHookSettingKey(key) && key.endsWith('.secrets')) return sealHookSecrets(record.jwtSecret, key, value);
  if (isSmsSecretKey(key)) return sealSmsSecret(record.jwtSecret, key as SmsSettingKey, value);
  const secret = /^auth\.external\.(.+)\.secret$/.exec(key);
  return secret === null ? value : sealProviderSecret(record.jwtSecret, secret[1] as string, value);
}

/**
 * Applies parsed `--set` assignments to a project, all checked before anything is
 * stored. A new `api.schemas` is checked against the project database, and the code
 * is regenerated for it before the registry changes: the registry's NOTIFY makes a
 * running host reload the project, and it must find the new code already in place. With `regenerate: false`
 * (a host about to start) the code is left to the host's own sync, which never rewrites code git tracks.
 */
export async function configureProject(
  platform: Platform,
  record: ProjectRecord,
  assignments: readonly SettingAssignment[],
  options: { readonly regenerate?: boolean } = {},
): Promise<ConfigResult> {
  let schemas: readonly string[] | null = null;
  let signingAlg: AccessTokenAlg | null = null;
  for (const assignment of assignments) {
    if (assignment.key === 'api.schemas') schemas = assignment.value;
    if (assignment.key === 'auth.signing_alg') signingAlg = assignment.value;
  }
  let generated: ConfigResult['generated'] = null;
  if (schemas) await requireSchemas(platform, record, schemas);
  if (schemas && options.regenerate !== false) {
    const { changed, removed } = await generateProject(platform, { ...record, settings: { ...record.settings, 'api.schemas': schemas } });
    generated = { changed, removed };
  }
  if (signingAlg) await ensureSigningKey(platform, record, signingAlg);
  if (assignments.length === 0) return { record, generated };
  const settings: Record<string, unknown> = Object.fromEntries(assignments.map(({ key, value }) => [key, sealedIfSecret(record, key, value)]));
  const appSettings = assignments.flatMap((assignment) => (assignment.key === 'app.settings' ? [assignment.value] : []));
  if (appSettings.length > 0) settings['app.settings'] = mergeAppSettings(record.settings['app.settings'], appSettings);
  return { record: (await platform.setSettings(record.ref, settings)) ?? record, generated };
}

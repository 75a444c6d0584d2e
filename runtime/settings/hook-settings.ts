import { openValue, purposeKey, sealValue } from '../sealed-value.js';
import { CodedError } from '../coded-error.js';

/**
 * Supabase Auth's hooks as configured per project: `auth.hook.<name>.{enabled,uri,secrets}`,
 * the names of Supabase's `[auth.hook.<name>]` config sections. Stored in the registry under
 * those keys; the secrets only ever sealed with the project's JWT secret.
 */

export const HOOK_NAMES = [
  'custom_access_token',
  'before_user_created',
  'password_verification_attempt',
  'mfa_verification_attempt',
  'send_email',
  'send_sms',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

const HOOK_FIELDS = ['enabled', 'uri', 'secrets'] as const;
type HookField = (typeof HOOK_FIELDS)[number];

export type HookSettingKey = `auth.hook.${HookName}.${HookField}`;

export interface HookSettings {
  readonly enabled: boolean;
  /** `pg-functions://postgres/<schema>/<function>` or an http(s) URL; '' when unset. */
  readonly uri: string;
  /** The `v1,whsec_…` secrets joined by `|`, sealed; '' when none. */
  readonly secrets_sealed: string;
}

export type AuthHooks = Readonly<Record<HookName, HookSettings>>;

/** settings.ts answers it as its own SettingsError. */
export class HookSettingError extends CodedError {
  readonly code = 'invalid_setting';
}

const KEY = /^auth\.hook\.([a-z_]+)\.([a-z]+)$/;
/** GoTrue's postgresNamesRegexp. */
const PG_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/;
/** GoTrue's symmetricSecretFormat. */
const SECRET = /^v1,whsec_[A-Za-z0-9+/=]{32,88}$/;

function parts(key: string): { readonly name: HookName; readonly field: HookField } | null {
  const match = KEY.exec(key);
  if (match === null) return null;
  const [, name, field] = match as unknown as [string, string, string];
  if (!(HOOK_NAMES as readonly string[]).includes(name) || !(HOOK_FIELDS as readonly string[]).includes(field)) return null;
  return { name: name as HookName, field: field as HookField };
}

export function isHookSettingKey(key: string): key is HookSettingKey {
  return parts(key) !== null;
}

/** GoTrue's ValidateExtensibilityPoint: a pg-functions path of schema and function, or http only to this machine, or https. */
export function checkHookUri(raw: string): void {
  if (raw === '') return;
  if (!URL.canParse(raw)) throw new HookSettingError(`expected pg-functions://postgres/<schema>/<function> or an http(s) URL, got "${raw}"`);
  const url = new URL(raw);
  if (url.protocol === 'pg-functions:') {
    const [, schema, fn] = url.pathname.split('/');
    if (schema === undefined || fn === undefined) throw new HookSettingError('URI path does not contain enough parts');
    if (!PG_NAME.test(schema)) throw new HookSettingError(`invalid schema name: ${schema}`);
    if (!PG_NAME.test(fn)) throw new HookSettingError(`invalid function name: ${fn}`);
    return;
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return;
    throw new HookSettingError('only localhost, 127.0.0.1, and ::1 are supported with http');
  }
  throw new HookSettingError('only postgres hooks and HTTPS functions are supported at the moment');
}

/** GoTrue's HTTPHookSecrets: `|`-separated, each `v1,whsec_<base64>`. */
export function splitHookSecrets(raw: string): string[] {
  const secrets = raw.split('|').filter((secret) => secret !== '');
  for (const secret of secrets) if (!SECRET.test(secret)) throw new HookSettingError('invalid secret format (expected v1,whsec_<base64>)');
  return secrets;
}

/** Checks `auth.hook.<name>.<field>=<raw>`; the value as stored (secrets still in the clear: the caller seals them). */
export function parseHookSetting(key: HookSettingKey, raw: string): string | boolean {
  const { field } = parts(key)!;
  try {
    if (field === 'enabled') {
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new HookSettingError(`expected true or false, got "${raw}"`);
    }
    if (field === 'uri') checkHookUri(raw);
    else splitHookSecrets(raw);
    return raw;
  } catch (error) {
    throw new HookSettingError(`${key}: ${(error as Error).message}`);
  }
}

const secretKey = (jwtSecret: string): Buffer => purposeKey(jwtSecret, 'gantry auth hook secrets');

/** The secrets of `auth.hook.<name>.secrets` as the registry keeps them, bound to that key. */
export function sealHookSecrets(jwtSecret: string, key: HookSettingKey, raw: string): string {
  return raw === '' ? '' : sealValue(secretKey(jwtSecret), key, raw);
}

export function openHookSecrets(jwtSecret: string, name: HookName, sealed: string): string[] {
  return sealed === '' ? [] : splitHookSecrets(openValue(secretKey(jwtSecret), `auth.hook.${name}.secrets`, sealed));
}

/** The hooks from the registry's flat keys; a hook without a usable URI is off. */
export function resolveHooks(stored: Readonly<Record<string, unknown>>): AuthHooks {
  const hooks = {} as Record<HookName, HookSettings>;
  for (const name of HOOK_NAMES) {
    const enabled = stored[`auth.hook.${name}.enabled`];
    const uri = stored[`auth.hook.${name}.uri`];
    const secrets = stored[`auth.hook.${name}.secrets`];
    let usableUri = '';
    if (typeof uri === 'string') {
      try {
        checkHookUri(uri);
        usableUri = uri;
      } catch {
        usableUri = '';
      }
    }
    hooks[name] = {
      enabled: enabled === true && usableUri !== '',
      uri: usableUri,
      secrets_sealed: typeof secrets === 'string' ? secrets : '',
    };
  }
  return hooks;
}

/** The hooks as `project config` shows them: flat keys, the secrets only as whether some are set. */
export function displayHooks(hooks: AuthHooks): Record<string, string | boolean> {
  const shown: Record<string, string | boolean> = {};
  for (const name of HOOK_NAMES) {
    const hook = hooks[name];
    shown[`auth.hook.${name}.enabled`] = hook.enabled;
    shown[`auth.hook.${name}.uri`] = hook.uri;
    shown[`auth.hook.${name}.secrets`] = hook.secrets_sealed === '' ? '' : '(sealed)';
  }
  return shown;
}

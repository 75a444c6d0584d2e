import type { ProjectSettings } from './project-context.js';
import { compileRedirectGlob, splitPatternList } from '../settings/redirect-glob.js';
import { isAccessTokenAlg, type AccessTokenAlg } from '../tokens/keyring.js';
import { isRpId, isRpOrigin } from '../settings/webauthn-rp.js';
import { DEFAULT_EXPOSED_SCHEMAS, isForbiddenSchema } from './exposed-schemas.js';
import {
  displayExternalProviders,
  isExternalSettingKey,
  parseExternalSetting,
  resolveExternalProviders,
  type ExternalSettingKey,
} from '../settings/provider-settings.js';
import { displayHooks, isHookSettingKey, parseHookSetting, resolveHooks, type HookSettingKey } from '../settings/hook-settings.js';
import { displaySmsSettings, isSmsSecretKey, isSmsSettingKey, parseSmsSetting, resolveSmsSettings, type SmsSettingKey } from '../settings/sms-settings.js';
import { CodedError } from '../coded-error.js';

export class SettingsError extends CodedError {
  readonly code = 'invalid_setting';
}

/** Settings with one key each; `auth.external`, `auth.hook` and `auth.sms` are families of keys of their own (runtime/settings/provider-settings.ts, hook-settings.ts, sms-settings.ts). */
export type SettingName = Exclude<keyof ProjectSettings, 'auth.external' | 'auth.hook' | 'auth.sms'>;
export type SettingValue = ProjectSettings[SettingName];
/** A parsed `KEY=VALUE`, its value typed by its key. */
export type SettingAssignment =
  | { [K in SettingName]: { readonly key: K; readonly value: ProjectSettings[K] } }[SettingName]
  | { readonly key: ExternalSettingKey | HookSettingKey; readonly value: string | boolean }
  | { readonly key: SmsSettingKey; readonly value: string | boolean | number };

interface Setting<T> {
  /** The CLI's text -> the value; throws SettingsError. */
  readonly parse: (raw: string) => T;
  /** Whether a value read back from the registry's JSON is usable as is. */
  readonly accepts: (stored: unknown) => boolean;
  readonly fallback: T;
}

const parseBool = (raw: string): boolean => {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SettingsError(`expected true or false, got "${raw}"`);
};

const parseSeconds = (raw: string): number => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new SettingsError(`expected a whole number of seconds, got "${raw}"`);
  return n;
};

/** Supabase's dashboard takes no e-mail OTP expiry over a day. */
const MAX_OTP_EXPIRY_SECONDS = 86400;

const parseOtpExpiry = (raw: string): number => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_OTP_EXPIRY_SECONDS) {
    throw new SettingsError(`expected a whole number of seconds from 1 to ${MAX_OTP_EXPIRY_SECONDS}, got "${raw}"`);
  }
  return n;
};

const MAX_REQUESTS_PER_WINDOW = 1_000_000;

const requestLimit =
  (window: string) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > MAX_REQUESTS_PER_WINDOW) {
      throw new SettingsError(`expected a whole number of requests per ${window} from 1 to ${MAX_REQUESTS_PER_WINDOW}, got "${raw}"`);
    }
    return n;
  };

const parseRequestLimit = requestLimit('5 minutes');

const SCHEMA_NAME_RULE = 'schema names may contain any character except a comma';

/**
 * Checks a list of exposed schemas as PostgREST's `db-schemas`: at least one, each
 * named once, none of the platform's or the catalogs'. Names are taken exactly (no
 * trimming), since PostgreSQL names may start or end with spaces.
 */
export function checkSchemaList(schemas: readonly string[]): void {
  if (schemas.length === 0) throw new SettingsError(`expected at least one schema (${SCHEMA_NAME_RULE})`);
  const seen = new Set<string>();
  for (const schema of schemas) {
    if (schema === '') throw new SettingsError(`empty schema name in the list (${SCHEMA_NAME_RULE})`);
    if (seen.has(schema)) throw new SettingsError(`schema ${JSON.stringify(schema)} is listed more than once`);
    if (isForbiddenSchema(schema)) {
      throw new SettingsError(`schema ${JSON.stringify(schema)} can never be exposed (auth, information_schema and pg_* are not)`);
    }
    seen.add(schema);
  }
}

const parseSchemaList = (raw: string): readonly string[] => {
  if (raw === '') throw new SettingsError(`expected a comma-separated list of schemas, the default profile first (${SCHEMA_NAME_RULE}), got ""`);
  const schemas = raw.split(',');
  checkSchemaList(schemas);
  return schemas;
};

const isStoredSchemaList = (stored: unknown): boolean => {
  if (!Array.isArray(stored) || !stored.every((schema) => typeof schema === 'string')) return false;
  try {
    checkSchemaList(stored);
    return true;
  } catch {
    return false;
  }
};

/** Schema names on the search path after the request's own: comma-separated, trimmed as PostgREST's db-extra-search-path ('' for none). */
const parseSearchPath = (raw: string): readonly string[] => {
  const schemas = raw.split(',').map((schema) => schema.trim()).filter((schema) => schema !== '');
  if (new Set(schemas).size !== schemas.length) throw new SettingsError(`a schema is listed more than once in "${raw}"`);
  return schemas;
};

const isStoredSearchPath = (stored: unknown): boolean => Array.isArray(stored) && stored.every((schema) => typeof schema === 'string' && schema !== '');

/** PostgREST's db-max-rows: a whole number of rows from 1, or '' for no cap. */
const parseMaxRows = (raw: string): number | null => {
  if (raw === '') return null;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || !Number.isSafeInteger(n)) throw new SettingsError(`expected a whole number of rows from 1, or nothing for no cap, got "${raw}"`);
  return n;
};

const isStoredMaxRows = (stored: unknown): boolean => stored === null || (typeof stored === 'number' && Number.isSafeInteger(stored) && stored >= 1);

/** PostgREST's db-pre-request: `schema.function` (or a bare name, found on the request's search path), or '' for none. */
const parsePreRequest = (raw: string): string => {
  if (raw === '' || /^[^.]+(\.[^.]+)?$/.test(raw)) return raw;
  throw new SettingsError(`expected a function name, schema.name or name, or nothing for none, got "${raw}"`);
};

const isStoredPreRequest = (stored: unknown): boolean => typeof stored === 'string' && (stored === '' || /^[^.]+(\.[^.]+)?$/.test(stored));

const APP_SETTINGS_PREFIX = 'app.settings.';

/** A custom GUC's name after `app.settings.`, as PostgreSQL accepts one: dot-separated words of letters, digits, `_` and `$`. */
const APP_SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$/;

const refuseWholeAppSettings = (): Readonly<Record<string, string>> => {
  throw new SettingsError(`set each one as ${APP_SETTINGS_PREFIX}NAME=VALUE`);
};

const isStoredAppSettings = (stored: unknown): boolean =>
  typeof stored === 'object' && stored !== null && !Array.isArray(stored)
  && Object.entries(stored).every(([name, value]) => APP_SETTING_NAME.test(name) && typeof value === 'string');

/** `app.settings.NAME=VALUE` -> one app setting; an empty VALUE removes NAME (see mergeAppSettings). */
function parseAppSetting(name: string, raw: string): SettingAssignment {
  if (!APP_SETTING_NAME.test(name)) {
    throw new SettingsError(`${APP_SETTINGS_PREFIX}${name}: expected a name of letters, digits, _ and $ (dot-separated words not starting with a digit)`);
  }
  return { key: 'app.settings', value: { [name]: raw } };
}

/** The app settings after `assigned` (each a parseAppSetting value): a name given '' is removed. */
export function mergeAppSettings(current: Readonly<Record<string, string>>, assigned: readonly Readonly<Record<string, string>>[]): Readonly<Record<string, string>> {
  const merged: Record<string, string> = { ...current };
  for (const [name, value] of assigned.flatMap((one) => Object.entries(one))) {
    if (value === '') delete merged[name];
    else merged[name] = value;
  }
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The app settings as the GUCs a request sets: full names, in name order. */
export function appSettingGucs(settings: Readonly<Record<string, string>>): readonly (readonly [string, string])[] {
  return Object.entries(settings).map(([name, value]) => [`${APP_SETTINGS_PREFIX}${name}`, value] as const).sort(([a], [b]) => (a < b ? -1 : 1));
}

/** An absolute URL (any scheme: apps land on custom schemes too), or '' for none. */
const parseSiteUrl = (raw: string): string => {
  if (raw === '' || URL.canParse(raw)) return raw;
  throw new SettingsError(`expected an absolute URL such as https://app.example.com, or nothing, got "${raw}"`);
};

const isStoredSiteUrl = (stored: unknown): boolean => typeof stored === 'string' && (stored === '' || URL.canParse(stored));

function checkRedirectPattern(pattern: string): void {
  try {
    compileRedirectGlob(pattern);
  } catch (error) {
    throw new SettingsError(`redirect pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}

/** Comma-separated URLs or globs ('' for none); commas inside `{a,b}` belong to the pattern. */
const parsePatternList = (raw: string): readonly string[] => {
  const patterns = splitPatternList(raw);
  patterns.forEach(checkRedirectPattern);
  return patterns;
};

const isStoredPatternList = (stored: unknown): boolean => {
  if (!Array.isArray(stored) || !stored.every((pattern) => typeof pattern === 'string')) return false;
  try {
    stored.forEach(checkRedirectPattern);
    return true;
  } catch {
    return false;
  }
};

const parseSigningAlg = (raw: string): AccessTokenAlg => {
  if (isAccessTokenAlg(raw)) return raw;
  throw new SettingsError(`expected HS256, ES256 or RS256, got "${raw}"`);
};

/** The WebAuthn relying party's domain ('' for the site URL's host). */
const parseRpId = (raw: string): string => {
  if (raw === '' || isRpId(raw)) return raw;
  throw new SettingsError(`expected a domain such as example.com (lower case, no scheme or port), or nothing, got "${raw}"`);
};

const isStoredRpId = (stored: unknown): boolean => typeof stored === 'string' && (stored === '' || isRpId(stored));

/** Comma-separated origins allowed to run WebAuthn ceremonies ('' for the site URL's origin). */
const parseRpOrigins = (raw: string): readonly string[] => {
  const origins = raw === '' ? [] : raw.split(',').map((origin) => origin.trim());
  const bad = origins.find((origin) => !isRpOrigin(origin));
  if (bad !== undefined) throw new SettingsError(`expected origins such as https://app.example.com (scheme, host and port only), got "${bad}"`);
  return origins;
};

const isStoredRpOrigins = (stored: unknown): boolean => Array.isArray(stored) && stored.every((origin) => typeof origin === 'string' && isRpOrigin(origin));

/** A path under the site URL (GoTrue joins them): from its own root, so never a scheme, host, query or fragment. */
const AUTHORIZATION_PATH = /^(\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*)?$/;

const parseAuthorizationPath = (raw: string): string => {
  if (!AUTHORIZATION_PATH.test(raw) || raw.startsWith('//')) throw new SettingsError(`expected a path such as /oauth/consent, got "${raw}"`);
  return raw;
};
const isStoredAuthorizationPath = (stored: unknown): boolean => typeof stored === 'string' && AUTHORIZATION_PATH.test(stored) && !stored.startsWith('//');

const isBoolean = (stored: unknown): boolean => typeof stored === 'boolean';
const isNumber = (stored: unknown): boolean => typeof stored === 'number';

/** Every per-project setting, its parser and its default (rate limits: GoTrue's defaults, per client IP and 5 minutes). */
const known: { readonly [K in SettingName]: Setting<ProjectSettings[K]> } = {
  'api.schemas': { parse: parseSchemaList, accepts: isStoredSchemaList, fallback: DEFAULT_EXPOSED_SCHEMAS },
  'api.aggregates': { parse: parseBool, accepts: isBoolean, fallback: false },
  'api.plan': { parse: parseBool, accepts: isBoolean, fallback: false },
  'api.extra_search_path': { parse: parseSearchPath, accepts: isStoredSearchPath, fallback: ['public', 'extensions'] },
  'api.max_rows': { parse: parseMaxRows, accepts: isStoredMaxRows, fallback: 1000 },
  'api.pre_request': { parse: parsePreRequest, accepts: isStoredPreRequest, fallback: '' },
  'app.settings': { parse: refuseWholeAppSettings, accepts: isStoredAppSettings, fallback: {} },
  'auth.autoconfirm': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.signing_alg': { parse: parseSigningAlg, accepts: isAccessTokenAlg, fallback: 'HS256' },
  'auth.disable_signup': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.anonymous_users': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.site_url': { parse: parseSiteUrl, accepts: isStoredSiteUrl, fallback: '' },
  'auth.redirect_allow_list': { parse: parsePatternList, accepts: isStoredPatternList, fallback: [] },
  'auth.otp_expiry': { parse: parseOtpExpiry, accepts: isNumber, fallback: 3600 },
  'auth.secure_email_change': { parse: parseBool, accepts: isBoolean, fallback: true },
  'auth.update_password_require_reauthentication': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.refresh_reuse_interval': { parse: parseSeconds, accepts: isNumber, fallback: 0 },
  'auth.rate_limit.token_refresh': { parse: parseRequestLimit, accepts: isNumber, fallback: 150 },
  'auth.rate_limit.verify': { parse: parseRequestLimit, accepts: isNumber, fallback: 30 },
  'auth.rate_limit.otp': { parse: parseRequestLimit, accepts: isNumber, fallback: 30 },
  'auth.rate_limit.anonymous_users': { parse: requestLimit('hour'), accepts: isNumber, fallback: 30 },
  'auth.rate_limit.passkey': { parse: parseRequestLimit, accepts: isNumber, fallback: 30 },
  'auth.rate_limit.sms_sent': { parse: requestLimit('hour'), accepts: isNumber, fallback: 30 },
  'auth.passkey.enabled': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.mfa.webauthn.enabled': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.mfa.phone.enabled': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.webauthn.rp_id': { parse: parseRpId, accepts: isStoredRpId, fallback: '' },
  'auth.webauthn.rp_origins': { parse: parseRpOrigins, accepts: isStoredRpOrigins, fallback: [] },
  'auth.manual_linking': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.oauth_server.enabled': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.oauth_server.allow_dynamic_registration': { parse: parseBool, accepts: isBoolean, fallback: false },
  'auth.oauth_server.authorization_path': { parse: parseAuthorizationPath, accepts: isStoredAuthorizationPath, fallback: '' },
};

export const settingNames = Object.keys(known).sort() as SettingName[];

function isKnown(key: string): key is SettingName {
  return Object.hasOwn(known, key);
}

function assign<K extends SettingName>(key: K, raw: string): SettingAssignment {
  return { key, value: known[key].parse(raw) } as SettingAssignment;
}

/** Parses `KEY=VALUE` from the CLI into a typed setting. */
export function parseSetting(assignment: string): SettingAssignment {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new SettingsError(`expected KEY=VALUE, got "${assignment}"`);
  const key = assignment.slice(0, eq);
  if (key.startsWith(APP_SETTINGS_PREFIX)) return parseAppSetting(key.slice(APP_SETTINGS_PREFIX.length), assignment.slice(eq + 1));
  if (isHookSettingKey(key)) {
    try {
      return { key, value: parseHookSetting(key, assignment.slice(eq + 1)) };
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
  }
  if (isSmsSettingKey(key)) {
    try {
      return { key, value: parseSmsSetting(key, assignment.slice(eq + 1)) };
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
  }
  if (isExternalSettingKey(key)) {
    try {
      return { key, value: parseExternalSetting(key, assignment.slice(eq + 1)) };
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
  }
  if (!isKnown(key)) throw new SettingsError(`unknown setting "${key}" (known: ${settingNames.map((name) => (name === 'app.settings' ? `${APP_SETTINGS_PREFIX}NAME` : name)).join(', ')})`);
  try {
    return assign(key, assignment.slice(eq + 1));
  } catch (error) {
    throw new SettingsError(`${key}: ${(error as Error).message}`);
  }
}

/** Whether `key` holds a secret the registry keeps only sealed: a hook's secrets, an SMS provider's secret, an OAuth client secret. */
export function isSecretSetting(key: string): boolean {
  return (isHookSettingKey(key) && key.endsWith('.secrets')) || isSmsSecretKey(key) || /^auth\.external\..+\.secret$/.test(key);
}

/** A setting as the CLI takes it (`api.schemas` back to its comma-separated form). */
export function formatSetting(value: Exclude<SettingValue, Readonly<Record<string, string>>>): string {
  if (value === null) return '';
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** Settings as `KEY=VALUE` lines the CLI takes back; each app setting on a line of its own. */
export function settingLines(settings: ProjectSettings): string[] {
  return Object.entries(displaySettings(settings)).flatMap(([key, value]) => {
    if (key === 'app.settings') return appSettingGucs(value as Readonly<Record<string, string>>).map(([name, setting]) => `${name}=${setting}`);
    return [`${key}=${formatSetting(value as Exclude<SettingValue, Readonly<Record<string, string>>>)}`];
  });
}

/** Stored JSON -> settings with defaults filled in; unknown stored keys are ignored. */
export function resolveSettings(stored: Readonly<Record<string, unknown>>): ProjectSettings {
  const pick = <K extends SettingName>(key: K): ProjectSettings[K] => {
    const value = stored[key];
    return known[key].accepts(value) ? (value as ProjectSettings[K]) : known[key].fallback;
  };
  return {
    'api.schemas': pick('api.schemas'),
    'api.aggregates': pick('api.aggregates'),
    'api.plan': pick('api.plan'),
    'api.extra_search_path': pick('api.extra_search_path'),
    'api.max_rows': pick('api.max_rows'),
    'api.pre_request': pick('api.pre_request'),
    'app.settings': pick('app.settings'),
    'auth.autoconfirm': pick('auth.autoconfirm'),
    'auth.signing_alg': pick('auth.signing_alg'),
    'auth.disable_signup': pick('auth.disable_signup'),
    'auth.anonymous_users': pick('auth.anonymous_users'),
    'auth.site_url': pick('auth.site_url'),
    'auth.redirect_allow_list': pick('auth.redirect_allow_list'),
    'auth.otp_expiry': pick('auth.otp_expiry'),
    'auth.secure_email_change': pick('auth.secure_email_change'),
    'auth.update_password_require_reauthentication': pick('auth.update_password_require_reauthentication'),
    'auth.refresh_reuse_interval': pick('auth.refresh_reuse_interval'),
    'auth.rate_limit.token_refresh': pick('auth.rate_limit.token_refresh'),
    'auth.rate_limit.verify': pick('auth.rate_limit.verify'),
    'auth.rate_limit.otp': pick('auth.rate_limit.otp'),
    'auth.rate_limit.anonymous_users': pick('auth.rate_limit.anonymous_users'),
    'auth.rate_limit.passkey': pick('auth.rate_limit.passkey'),
    'auth.rate_limit.sms_sent': pick('auth.rate_limit.sms_sent'),
    'auth.passkey.enabled': pick('auth.passkey.enabled'),
    'auth.mfa.webauthn.enabled': pick('auth.mfa.webauthn.enabled'),
    'auth.mfa.phone.enabled': pick('auth.mfa.phone.enabled'),
    'auth.webauthn.rp_id': pick('auth.webauthn.rp_id'),
    'auth.webauthn.rp_origins': pick('auth.webauthn.rp_origins'),
    'auth.external': resolveExternalProviders(stored),
    'auth.manual_linking': pick('auth.manual_linking'),
    'auth.oauth_server.enabled': pick('auth.oauth_server.enabled'),
    'auth.oauth_server.allow_dynamic_registration': pick('auth.oauth_server.allow_dynamic_registration'),
    'auth.oauth_server.authorization_path': pick('auth.oauth_server.authorization_path'),
    'auth.hook': resolveHooks(stored),
    'auth.sms': resolveSmsSettings(stored),
  };
}

/** The settings as the CLI shows them: one key per setting as it is set, the OAuth providers' keys flat, secrets never. */
export function displaySettings(settings: ProjectSettings): Record<string, SettingValue | string | boolean> {
  const { 'auth.external': external, 'auth.hook': hooks, 'auth.sms': sms, ...single } = settings;
  return { ...single, ...displayExternalProviders(external), ...displayHooks(hooks), ...displaySmsSettings(sms) };
}

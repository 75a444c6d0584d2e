import { parse, TomlError } from 'smol-toml';
import type { FileSettingValue } from '../../runtime/config-file.js';
import { PRESET_PROVIDERS } from '../../runtime/settings/provider-settings.js';
import { HOOK_NAMES } from '../../runtime/settings/hook-settings.js';
import { isSecretSetting, parseSetting } from '../../runtime/platform/settings.js';
import { CliError } from '../command-error.js';
import { envReference } from './declared.js';

/**
 * The Supabase CLI's `supabase/config.toml` (`[api]` and `[auth]`, names as in its pkg/config/auth.go and
 * templates/config.toml) mapped onto Gantry's setting keys. Pure. Every key of those sections is either mapped or
 * listed as not imported with the reason; a secret is only ever written as a reference.
 */

export interface ImportedSettings {
  /** Gantry key -> value as gantry.toml will hold it, in the order found. */
  readonly settings: ReadonlyMap<string, FileSettingValue>;
  /** `auth.jwt_expiry: no Gantry setting`, one per key not imported. */
  readonly skipped: readonly string[];
  /** Secrets the file held as values: written as references to these variables, which must be set. */
  readonly references: readonly string[];
}

type Table = Record<string, unknown>;

const isTable = (value: unknown): value is Table => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** A Go duration (`5s`, `1m30s`, `1h`) in whole seconds; null when it is not one. */
export function durationSeconds(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value !== 'string' || !/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(value)) return null;
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001 } as const;
  let seconds = 0;
  for (const [, n, , u] of value.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) seconds += Number(n) * unit[u as keyof typeof unit];
  return Math.round(seconds);
}

/** Every leaf of `table` as a dotted path (`auth.email.otp_expiry`). */
function leaves(table: Table, prefix: string): string[] {
  return Object.entries(table).flatMap(([key, value]) => (isTable(value) ? leaves(value, `${prefix}.${key}`) : [`${prefix}.${key}`]));
}

function at(doc: Table, dotted: string): unknown {
  let value: unknown = doc;
  for (const part of dotted.split('.')) value = isTable(value) ? value[part] : undefined;
  return value;
}

/** The Supabase CLI's own variable name for a secret it reads from the environment (`SUPABASE_AUTH_EXTERNAL_GITHUB_SECRET`). */
function supabaseVariable(path: string): string {
  return `SUPABASE_${path.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}`;
}

/** Maps a parsed supabase/config.toml; `origin` names it in errors. */
export function importSupabaseConfig(text: string, origin: string): ImportedSettings {
  let doc: Table;
  try {
    doc = parse(text) as Table;
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ` : '';
    throw new CliError('invalid_supabase_config', `${origin}: not valid TOML: ${where}${(error as Error).message.split('\n')[0]}`);
  }
  const settings = new Map<string, FileSettingValue>();
  const used = new Set<string>();
  const skipped: string[] = [];
  const references: string[] = [];

  /** Sets `key` from the Supabase path(s) read; the value checked as `project config --set` checks it. */
  const put = (key: string, value: unknown, paths: readonly string[]): void => {
    for (const p of paths) used.add(p);
    if (value === undefined) return;
    let fileValue: FileSettingValue;
    if (Array.isArray(value)) fileValue = value.map(String).join(',');
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fileValue = value;
    else return void skipped.push(`${paths.join(', ')}: not a value Gantry takes`);
    if (isSecretSetting(key) && envReference(fileValue) === null) {
      if (fileValue === '') return;
      const variable = supabaseVariable(paths[0] as string);
      references.push(variable);
      fileValue = `env(${variable})`;
    }
    if (envReference(fileValue) === null) {
      try {
        parseSetting(`${key}=${String(fileValue)}`);
      } catch (error) {
        return void skipped.push(`${paths.join(', ')}: ${(error as Error).message}`);
      }
    }
    settings.set(key, fileValue);
  };
  const direct = (path: string, key: string, map: (value: unknown) => unknown = (v) => v): void => {
    const value = at(doc, path);
    put(key, value === undefined ? undefined : map(value), [path]);
  };
  const not = (value: unknown): unknown => (typeof value === 'boolean' ? !value : value);
  const seconds = (value: unknown): unknown => durationSeconds(value) ?? value;

  direct('api.schemas', 'api.schemas', (v) => (Array.isArray(v) ? v.filter((schema) => schema !== 'graphql_public') : v));
  direct('api.extra_search_path', 'api.extra_search_path');
  direct('api.max_rows', 'api.max_rows');

  direct('auth.site_url', 'auth.site_url');
  direct('auth.additional_redirect_urls', 'auth.redirect_allow_list');
  direct('auth.enable_signup', 'auth.disable_signup', not);
  direct('auth.enable_anonymous_sign_ins', 'auth.anonymous_users');
  direct('auth.enable_manual_linking', 'auth.manual_linking');
  direct('auth.refresh_token_reuse_interval', 'auth.refresh_reuse_interval');
  direct('auth.email.enable_confirmations', 'auth.autoconfirm', not);
  direct('auth.email.double_confirm_changes', 'auth.secure_email_change');
  direct('auth.email.secure_password_change', 'auth.update_password_require_reauthentication');
  direct('auth.email.otp_expiry', 'auth.otp_expiry');
  for (const [from, to] of [['token_refresh', 'token_refresh'], ['token_verifications', 'verify'], ['sign_in_sign_ups', 'otp'], ['anonymous_users', 'anonymous_users'], ['sms_sent', 'sms_sent']]) {
    direct(`auth.rate_limit.${from}`, `auth.rate_limit.${to}`);
  }
  direct('auth.passkey.enabled', 'auth.passkey.enabled');
  direct('auth.webauthn.rp_id', 'auth.webauthn.rp_id');
  direct('auth.webauthn.rp_origins', 'auth.webauthn.rp_origins');
  direct('auth.oauth_server.enabled', 'auth.oauth_server.enabled');
  direct('auth.oauth_server.allow_dynamic_registration', 'auth.oauth_server.allow_dynamic_registration');
  direct('auth.oauth_server.authorization_url_path', 'auth.oauth_server.authorization_path');

  // A factor is on in Gantry when it may be both enrolled and verified.
  for (const [factor, key] of [['web_authn', 'auth.mfa.webauthn.enabled'], ['phone', 'auth.mfa.phone.enabled']] as const) {
    const [enroll, verify] = [at(doc, `auth.mfa.${factor}.enroll_enabled`), at(doc, `auth.mfa.${factor}.verify_enabled`)];
    if (enroll === undefined && verify === undefined) continue;
    const paths = [`auth.mfa.${factor}.enroll_enabled`, `auth.mfa.${factor}.verify_enabled`];
    if (enroll === verify) put(key, enroll, paths);
    else {
      paths.forEach((p) => used.add(p));
      skipped.push(`${paths.join(', ')}: Gantry turns a factor on for enrolling and verifying together`);
    }
  }

  // Only what is switched on is imported: a disabled provider's `env(…)` secret would otherwise have to be set to apply.
  const external = at(doc, 'auth.external');
  for (const [name, provider] of Object.entries(isTable(external) ? external : {})) {
    if (!isTable(provider) || provider.enabled !== true || !(PRESET_PROVIDERS as readonly string[]).includes(name)) continue;
    for (const field of ['enabled', 'client_id', 'secret', 'redirect_uri', 'url']) direct(`auth.external.${name}.${field}`, `auth.external.${name}.${field}`);
  }
  for (const name of HOOK_NAMES) {
    if (at(doc, `auth.hook.${name}.enabled`) !== true) continue;
    for (const field of ['enabled', 'uri', 'secrets']) direct(`auth.hook.${name}.${field}`, `auth.hook.${name}.${field}`);
  }

  direct('auth.sms.enable_confirmations', 'auth.sms.autoconfirm', not);
  direct('auth.sms.template', 'auth.sms.template');
  direct('auth.sms.max_frequency', 'auth.sms.max_frequency', seconds);
  const testOtp = at(doc, 'auth.sms.test_otp');
  if (isTable(testOtp)) {
    const phones = Object.keys(testOtp).map((phone) => `auth.sms.test_otp.${phone}`);
    put('auth.sms.test_otp', Object.entries(testOtp).map(([phone, code]) => `${phone.startsWith('+') ? phone : `+${phone}`}=${String(code)}`).join(','), phones);
  }
  const sms = { twilio: ['account_sid', 'message_service_sid', 'auth_token'], vonage: ['api_key', 'api_secret', 'from'] } as const;
  for (const [provider, fields] of Object.entries(sms)) {
    if (at(doc, `auth.sms.${provider}.enabled`) !== true) continue;
    put('auth.sms.provider', provider, [`auth.sms.${provider}.enabled`]);
    for (const field of fields) direct(`auth.sms.${provider}.${field}`, `auth.sms.${provider}.${field}`);
  }

  for (const section of ['api', 'auth'] as const) {
    const table = doc[section];
    if (!isTable(table)) continue;
    for (const path of leaves(table, section)) {
      if (used.has(path)) continue;
      const reason = /^auth\.(external|hook|sms\.[a-z_]+)\./.test(path) && at(doc, path.replace(/\.[^.]+$/, '.enabled')) !== true ? 'not enabled' : 'no Gantry setting';
      skipped.push(`${path}: ${reason}`);
    }
  }
  return { settings, skipped, references };
}

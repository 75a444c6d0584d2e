import { openValue, purposeKey, sealValue } from '../sealed-value.js';
import { CodedError } from '../coded-error.js';

/**
 * Per-project OAuth/OIDC providers, set as `auth.external.<provider>.<field>` (GoTrue's
 * EXTERNAL_<PROVIDER>_*): a preset by name, or a generic OpenID Connect provider named
 * `custom:<id>` (the name supabase-js signs in with) found by its issuer URL. Stored flat in
 * the registry under the same keys; the client secret only ever sealed.
 */

export const PRESET_PROVIDERS = ['apple', 'azure', 'discord', 'github', 'gitlab', 'google'] as const;
export type PresetProvider = (typeof PRESET_PROVIDERS)[number];

const PROVIDER_FIELDS = ['enabled', 'client_id', 'secret', 'redirect_uri', 'scopes', 'url'] as const;
type ProviderField = (typeof PROVIDER_FIELDS)[number];

export type ExternalSettingKey = `auth.external.${string}`;

export interface ExternalProviderSettings {
  readonly enabled: boolean;
  /** GoTrue's CLIENT_ID: the first is the OAuth client; an ID token may be issued to any of them. */
  readonly client_ids: readonly string[];
  /** The client secret, sealed with the project's JWT secret; '' when none is set. */
  readonly secret_sealed: string;
  /** Where the provider sends the browser back: this project's /callback unless set. */
  readonly redirect_uri: string;
  /** Scopes asked for besides the preset's own (space- or comma-separated as given). */
  readonly scopes: readonly string[];
  /** The issuer of a `custom:` provider (discovery at `<url>/.well-known/openid-configuration`); GitLab's or Azure's base URL. */
  readonly url: string;
}

export type ExternalProviders = Readonly<Record<string, ExternalProviderSettings>>;

export class ExternalSettingError extends CodedError {
  readonly code = 'invalid_setting';
}

const KEY_PATTERN = new RegExp(`^auth\\.external\\.(${PRESET_PROVIDERS.join('|')}|custom:[a-z0-9][a-z0-9_-]{0,39})\\.(${PROVIDER_FIELDS.join('|')})$`);

export function isExternalSettingKey(key: string): key is ExternalSettingKey {
  return key.startsWith('auth.external.');
}

function splitKey(key: string): { provider: string; field: ProviderField } | null {
  const match = KEY_PATTERN.exec(key);
  return match === null ? null : { provider: match[1] as string, field: match[2] as ProviderField };
}

/** The client secret is sealed (runtime/sealed-value.ts) under a key derived from the project's JWT secret, bound to its provider. */
const secretKey = (jwtSecret: string): Buffer => purposeKey(jwtSecret, 'gantry oauth provider client secret');

export function sealProviderSecret(jwtSecret: string, provider: string, secret: string): string {
  return sealValue(secretKey(jwtSecret), provider, secret);
}

export function openProviderSecret(jwtSecret: string, provider: string, sealed: string): string {
  return sealed === '' ? '' : openValue(secretKey(jwtSecret), provider, sealed);
}

const listOf = (raw: string): string[] => raw.split(/[\s,]+/).filter((item) => item !== '');

/** Checks `auth.external.<provider>.<field>=<raw>`; the value as stored (the secret still in the clear: the caller seals it). */
export function parseExternalSetting(key: string, raw: string): string | boolean {
  const parts = splitKey(key);
  if (parts === null) {
    throw new ExternalSettingError(
      `unknown setting "${key}" (auth.external.<provider>.<field>: provider ${PRESET_PROVIDERS.join(', ')} or custom:<id>, field ${PROVIDER_FIELDS.join(', ')})`,
    );
  }
  switch (parts.field) {
    case 'enabled':
      if (raw !== 'true' && raw !== 'false') throw new ExternalSettingError(`${key}: expected true or false, got "${raw}"`);
      return raw === 'true';
    case 'redirect_uri':
    case 'url':
      if (raw !== '' && !(URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol))) {
        throw new ExternalSettingError(`${key}: expected an http(s) URL, or nothing, got "${raw}"`);
      }
      return raw.replace(/\/+$/, '');
    default:
      return raw;
  }
}

const EMPTY: ExternalProviderSettings = { enabled: false, client_ids: [], secret_sealed: '', redirect_uri: '', scopes: [], url: '' };

/** The providers in the registry's stored settings; keys that are not well-formed are ignored. */
export function resolveExternalProviders(stored: Readonly<Record<string, unknown>>): ExternalProviders {
  const providers: Record<string, ExternalProviderSettings> = {};
  for (const [key, value] of Object.entries(stored)) {
    const parts = splitKey(key);
    if (parts === null) continue;
    const current = providers[parts.provider] ?? EMPTY;
    const text = typeof value === 'string' ? value : '';
    const next: Partial<Record<keyof ExternalProviderSettings, unknown>> =
      parts.field === 'enabled' ? { enabled: value === true }
      : parts.field === 'client_id' ? { client_ids: listOf(text) }
      : parts.field === 'secret' ? { secret_sealed: text }
      : parts.field === 'scopes' ? { scopes: listOf(text) }
      : { [parts.field]: text };
    providers[parts.provider] = { ...current, ...next } as ExternalProviderSettings;
  }
  return providers;
}

/** The providers as `project config` shows them: flat keys, the secret only as whether one is set. */
export function displayExternalProviders(providers: ExternalProviders): Record<string, string | boolean> {
  const flat: Record<string, string | boolean> = {};
  for (const name of Object.keys(providers).sort()) {
    const p = providers[name] as ExternalProviderSettings;
    const prefix = `auth.external.${name}`;
    Object.assign(flat, {
      [`${prefix}.enabled`]: p.enabled,
      [`${prefix}.client_id`]: p.client_ids.join(','),
      [`${prefix}.secret`]: p.secret_sealed === '' ? '' : '(sealed)',
      [`${prefix}.redirect_uri`]: p.redirect_uri,
      [`${prefix}.scopes`]: p.scopes.join(' '),
      [`${prefix}.url`]: p.url,
    });
  }
  return flat;
}

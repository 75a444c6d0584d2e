import type { AuthDeps } from '../auth-deps.js';
import { issuerOf } from '../auth-deps.js';
import { idTokenClaimsError } from '../flows/id-token-grant.js';
import type { ExternalUser } from './account-linking.js';
import { presetOf, type Claims, type ProviderPreset } from './presets.js';
import { openProviderSecret, type ExternalProviderSettings } from '../../settings/provider-settings.js';
import { providerFailure, providerJson, providerJsonList } from './provider-http.js';
import { idTokenClaims } from './presets.js';

/** An enabled provider with its preset and settings: what the redirect flow talks to. */
export interface EnabledProvider {
  readonly name: string;
  readonly preset: ProviderPreset;
  readonly settings: ExternalProviderSettings;
}

/** The provider of `/authorize?provider=`, or null when it is unknown or not enabled here (then GoTrue's refusal answers). */
export function enabledProvider(deps: AuthDeps, name: string): EnabledProvider | null {
  const preset = presetOf(name);
  const settings = deps.ctx.settings['auth.external'][name];
  if (preset === null || settings === undefined || !settings.enabled || settings.client_ids.length === 0) return null;
  if (preset.kind === 'oidc' && preset.issuer(settings.url) === '') return null;
  return { name, preset, settings };
}

/** Where the provider sends the browser back: the configured redirect URI, else this project's /callback. */
export function callbackUrl(deps: AuthDeps, provider: EnabledProvider): string {
  return provider.settings.redirect_uri === '' ? `${issuerOf(deps)}/callback` : provider.settings.redirect_uri;
}

const guardOf = (deps: AuthDeps) => ({ allowPrivate: deps.ctx.config.authAllowPrivateProviderUrls });

/** The provider's authorization URL for a flow whose state is `state` (the flow_state id, as GoTrue). */
export async function authorizationUrl(deps: AuthDeps, provider: EnabledProvider, state: string, extraScopes: readonly string[]): Promise<string> {
  const { preset, settings } = provider;
  const endpoint = preset.kind === 'oidc' ? (await deps.oidc.metadata(preset.issuer(settings.url))).authorization_endpoint : preset.authorizeUrl(settings.url);
  const scopes = [...new Set([...preset.scopes, ...settings.scopes, ...extraScopes])];
  const url = new URL(endpoint);
  const params: Record<string, string> = {
    client_id: settings.client_ids[0] as string,
    redirect_uri: callbackUrl(deps, provider),
    response_type: 'code',
    scope: scopes.join(' '),
    state,
    ...(preset.kind === 'oidc' ? preset.authorizeParams : {}),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

export interface ProviderTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly user: ExternalUser;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The callback's code exchanged at the provider's token endpoint, and who the provider says the user is. */
export async function exchangeProviderCode(deps: AuthDeps, provider: EnabledProvider, code: string): Promise<ProviderTokens> {
  const { preset, settings } = provider;
  const guard = guardOf(deps);
  const issuer = preset.kind === 'oidc' ? preset.issuer(settings.url) : '';
  const tokenUrl = preset.kind === 'oidc' ? (await deps.oidc.metadata(issuer)).token_endpoint : preset.tokenUrl(settings.url);
  const answer = await providerJson(
    tokenUrl,
    {
      method: 'POST',
      form: {
        grant_type: 'authorization_code',
        code,
        redirect_uri: callbackUrl(deps, provider),
        client_id: settings.client_ids[0] as string,
        client_secret: openProviderSecret(deps.ctx.jwtSecret, provider.name, settings.secret_sealed),
      },
    },
    guard,
  ).catch((error: unknown) => {
    throw providerFailure(`Unable to exchange external code: ${code.slice(0, 4)}${error instanceof Error ? ` (${error.message})` : ''}`);
  });
  const accessToken = str(answer.access_token);
  if (accessToken === '') throw providerFailure(`Unable to exchange external code: ${code.slice(0, 4)}`);
  let claims: Claims;
  if (preset.kind === 'oidc') {
    const idToken = str(answer.id_token);
    if (idToken === '') throw providerFailure('Error getting user profile from external provider');
    const payload = await deps.oidc.verify(issuer, idToken).catch(() => {
      throw providerFailure('Error getting user profile from external provider');
    });
    const refusal = idTokenClaimsError(payload, settings.client_ids, '');
    if (refusal !== null) throw providerFailure(refusal.message);
    claims = idTokenClaims(payload);
  } else {
    const headers = { authorization: `Bearer ${accessToken}` };
    const answers = await Promise.all(
      preset.userCalls(settings.url).map((call) => (call.list ? providerJsonList(call.url, { method: 'GET', headers }, guard) : providerJson(call.url, { method: 'GET', headers }, guard))),
    );
    claims = preset.claims(answers, settings.url);
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') throw providerFailure('Error getting user profile from external provider');
  return { accessToken, refreshToken: str(answer.refresh_token), user: { provider: provider.name, claims } };
}

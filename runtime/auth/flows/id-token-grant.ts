import { createHash, timingSafeEqual } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { AuthError, authErrors } from '../http/errors.js';
import type { ExternalProviders } from '../../settings/provider-settings.js';

/** Issuers GoTrue pins for the id_token providers it knows (Keycloak's is configured, so empty here). */
const FIXED_ISSUERS: Readonly<Record<string, string>> = {
  google: 'https://accounts.google.com',
  facebook: 'https://www.facebook.com',
  kakao: 'https://kauth.kakao.com',
  snapchat: 'https://accounts.snapchat.com/accounts/oauth2/token',
  vercel_marketplace: 'https://marketplace.vercel.com',
  keycloak: '',
};
const APPLE_ISSUERS = ['https://appleid.apple.com', 'https://account.apple.com'];
const AZURE_PREFIXES = ['https://login.microsoftonline.com/', 'https://sts.windows.net/'];

function unverifiedIssuer(idToken: string): string | null {
  try {
    const payload: unknown = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const iss = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>).iss : undefined;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

function detected(idToken: string, label: string, given: string, accepts: (iss: string) => boolean): string | AuthError {
  const iss = unverifiedIssuer(idToken);
  if (iss === null) return authErrors.validation(`Unable to detect issuer in ID token for ${label} provider`);
  if (!accepts(iss)) return authErrors.validation(`Detected ID token issuer is not an ${label} ID token issuer`);
  if (given !== '' && given !== iss) return authErrors.validation('Provided issuer does not match ID token issuer');
  return iss;
}

/** The provider an ID token is checked against: its name, issuer, and the client ids it may be issued to. */
export interface IdTokenProvider {
  readonly provider: string;
  readonly issuer: string;
  readonly clientIds: readonly string[];
}

const ID_TOKEN_PRESETS = new Set(['apple', 'azure', 'google']);

/**
 * GoTrue's getProvider for `grant_type=id_token`, worded as it: the provider by name or issuer,
 * refused unless it is enabled here (a preset among Google, Apple, Azure, or a `custom:` OIDC
 * provider). Missing id_token/provider are GoTrue OAuth-shaped errors; here they keep the usual
 * shape with GoTrue's text.
 */
export function idTokenProvider(body: Record<string, unknown>, external: ExternalProviders): IdTokenProvider | AuthError {
  const str = (value: unknown): string => (typeof value === 'string' ? value : '');
  const idToken = str(body.id_token);
  const provider = str(body.provider);
  const issuer = str(body.issuer);
  if (idToken === '') return authErrors.validation('id_token required');
  if (provider === '' && (str(body.client_id) === '' || issuer === '')) return authErrors.validation('provider or client_id and issuer required');
  let pinned: string | AuthError | undefined;
  let name = provider;
  if (provider === 'apple' || APPLE_ISSUERS.includes(issuer)) {
    name = 'apple';
    pinned = detected(idToken, 'Apple', issuer, (iss) => APPLE_ISSUERS.includes(iss));
  } else if (provider === 'azure' || AZURE_PREFIXES.some((prefix) => issuer.startsWith(prefix))) {
    name = 'azure';
    pinned = detected(idToken, 'Azure', issuer, (iss) => AZURE_PREFIXES.some((prefix) => iss.startsWith(prefix)));
  } else {
    const match = Object.entries(FIXED_ISSUERS).find(([fixed, iss]) => provider === fixed || (iss !== '' && issuer === iss));
    name = match?.[0] ?? provider;
    pinned = match?.[1];
  }
  if (typeof pinned === 'object') return pinned;
  if (provider.startsWith('custom:')) {
    const custom = external[provider];
    if (custom === undefined) {
      return authErrors.validation(Object.keys(external).some((key) => key.startsWith('custom:')) ? `Custom provider ${JSON.stringify(provider)} not found` : 'Custom OAuth providers are disabled');
    }
    if (!custom.enabled) return authErrors.disabled(400, 'provider_disabled', `Custom provider ${JSON.stringify(provider)} is disabled`);
    return { provider, issuer: custom.url, clientIds: custom.client_ids };
  }
  if (pinned === undefined) return authErrors.validation(`Custom OIDC provider ${JSON.stringify(provider)} not allowed`);
  const configured = external[name];
  if (!ID_TOKEN_PRESETS.has(name) || configured === undefined || !configured.enabled) {
    return authErrors.disabled(400, 'provider_disabled', `Provider (issuer ${JSON.stringify(pinned)}) is not enabled`);
  }
  return { provider: name, issuer: pinned, clientIds: configured.client_ids };
}

/** GoTrue hashes the nonce the app kept and compares it with the token's: hex SHA-256. */
export function hashedNonce(nonce: string): string {
  return createHash('sha256').update(nonce, 'utf8').digest('hex');
}

/** GoTrue's checks after the signature: sub, audience, nonce (both or neither, the token's being the hash of the given one). */
export function idTokenClaimsError(payload: JWTPayload, clientIds: readonly string[], nonce: string): AuthError | null {
  if (typeof payload.sub !== 'string' || payload.sub === '') return authErrors.validation('Missing sub claim in id_token');
  const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
  if (!clientIds.some((id) => id !== '' && audiences.includes(id))) return authErrors.validation(`Unacceptable audience in id_token: [${audiences.join(' ')}]`);
  const tokenNonce = typeof payload.nonce === 'string' ? payload.nonce : '';
  if ((tokenNonce !== '') !== (nonce !== '')) return authErrors.validation('Passed nonce and nonce in id_token should either both exist or not.');
  if (tokenNonce !== '' && !constantTimeEqual(hashedNonce(nonce), tokenNonce)) return new AuthError(400, 'validation_failed', 'Nonces mismatch');
  return null;
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

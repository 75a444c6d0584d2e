import { authErrors, type AuthError } from './errors.js';

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

/**
 * `grant_type=id_token` with every OIDC provider off, worded as GoTrue's
 * getProvider. Missing id_token/provider are GoTrue OAuth-shaped errors; here
 * they keep the usual shape with GoTrue's text.
 */
export function idTokenGrantRefusal(body: Record<string, unknown>): AuthError {
  const str = (value: unknown): string => (typeof value === 'string' ? value : '');
  const idToken = str(body.id_token);
  const provider = str(body.provider);
  const issuer = str(body.issuer);
  if (idToken === '') return authErrors.validation('id_token required');
  if (provider === '' && (str(body.client_id) === '' || issuer === '')) return authErrors.validation('provider or client_id and issuer required');
  let pinned: string | AuthError | undefined;
  if (provider === 'apple' || APPLE_ISSUERS.includes(issuer)) {
    pinned = detected(idToken, 'Apple', issuer, (iss) => APPLE_ISSUERS.includes(iss));
  } else if (provider === 'azure' || AZURE_PREFIXES.some((prefix) => issuer.startsWith(prefix))) {
    pinned = detected(idToken, 'Azure', issuer, (iss) => AZURE_PREFIXES.some((prefix) => iss.startsWith(prefix)));
  } else {
    const match = Object.entries(FIXED_ISSUERS).find(([name, iss]) => provider === name || (iss !== '' && issuer === iss));
    pinned = match?.[1];
  }
  if (typeof pinned === 'object') return pinned;
  if (provider.startsWith('custom:')) return authErrors.validation('Custom OAuth providers are disabled');
  if (pinned === undefined) return authErrors.validation(`Custom OIDC provider ${JSON.stringify(provider)} not allowed`);
  return authErrors.disabled(400, 'provider_disabled', `Provider (issuer ${JSON.stringify(pinned)}) is not enabled`);
}

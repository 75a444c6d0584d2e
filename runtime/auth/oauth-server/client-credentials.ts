import type { TokenEndpointAuthMethod } from './client-metadata.js';
import { secretMatches, type OAuthClientRow } from './clients.js';

/**
 * How a client identifies itself at the token endpoint (RFC 6749 §2.3): HTTP Basic, or
 * client_id (and client_secret) in the body; GoTrue's rules and messages.
 */

export interface ClientCredentials {
  readonly clientId: string;
  readonly secret: string;
  readonly method: TokenEndpointAuthMethod;
}

/** The credentials of a request, or why they cannot be read. */
export function clientCredentialsOf(
  authorization: string | undefined,
  body: Readonly<Record<string, unknown>>,
): { credentials: ClientCredentials } | { problem: string } {
  if (authorization !== undefined && authorization.startsWith('Basic ')) {
    const encoded = authorization.slice('Basic '.length);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return { problem: 'invalid basic auth encoding' };
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { problem: 'invalid basic auth format' };
    return { credentials: { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1), method: 'client_secret_basic' } };
  }
  const clientId = typeof body.client_id === 'string' ? body.client_id : '';
  const secret = typeof body.client_secret === 'string' ? body.client_secret : '';
  if (clientId === '') return { problem: 'client_id is required' };
  return { credentials: { clientId, secret, method: secret === '' ? 'none' : 'client_secret_post' } };
}

/** Why the client is not authenticated by these credentials, or null when it is (the secret compared in constant time). */
export function clientAuthenticationProblem(client: OAuthClientRow, credentials: ClientCredentials): string | null {
  if (credentials.method !== client.token_endpoint_auth_method) {
    return `invalid authentication method: client is registered for '${client.token_endpoint_auth_method}' but '${credentials.method}' was used`;
  }
  if (client.client_type === 'public') return credentials.secret === '' ? null : 'public clients must not provide client_secret';
  if (credentials.secret === '') return 'confidential clients must provide client_secret';
  return secretMatches(client, credentials.secret) ? null : 'invalid client credentials';
}

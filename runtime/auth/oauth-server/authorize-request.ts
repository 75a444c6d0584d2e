import type { CodeChallengeMethod } from '../credentials/pkce.js';
import { redirectWithQuery } from '../flows/redirects.js';

/**
 * The parts of the authorization code flow that are rules rather than storage: what
 * `/oauth/authorize` accepts (GoTrue's checks and messages), the scopes, and the URLs the
 * browser is sent back to. Pure, so each rule is unit-tested without a server.
 */

/** GoTrue's SupportedOAuthScopes, in its order (the discovery document lists them so). */
export const SUPPORTED_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'phone', 'offline_access'];
/** GoTrue's OAUTH_SERVER_DEFAULT_SCOPE. */
export const DEFAULT_SCOPE = 'email';

export interface AuthorizeRequest {
  readonly redirectUri: string;
  readonly scope: string;
  readonly state: string;
  readonly resource: string;
  readonly codeChallenge: string;
  readonly codeChallengeMethod: CodeChallengeMethod;
  readonly nonce: string;
}

/** The query of `/oauth/authorize`, each parameter as Go's `Query().Get` reads it (first value, else empty). */
export type AuthorizeQuery = Readonly<Record<string, string>>;

export function parseScopes(scope: string): string[] {
  return scope.trim().split(' ').map((part) => part.trim()).filter((part) => part !== '');
}

/** Why the request cannot go on (the redirect's `error_description`), or the request with its defaults. */
export function checkAuthorizeRequest(query: AuthorizeQuery): { problem: string } | { request: AuthorizeRequest } {
  const responseType = query.response_type || 'code';
  const scope = query.scope || DEFAULT_SCOPE;
  if (responseType !== 'code') return { problem: 'only response_type=code is supported' };
  const scopes = parseScopes(scope);
  if (scopes.length === 0) return { problem: 'scope parameter cannot be empty' };
  const unsupported = scopes.find((candidate) => !SUPPORTED_SCOPES.includes(candidate));
  if (unsupported !== undefined) return { problem: `unsupported scope: ${unsupported}` };
  const resource = query.resource ?? '';
  if (resource !== '') {
    const problem = resourceProblem(resource);
    if (problem !== null) return { problem };
  }
  const challenge = query.code_challenge ?? '';
  const method = (query.code_challenge_method ?? '').toLowerCase();
  // OAuth 2.1 makes PKCE mandatory for the code flow.
  if (challenge === '' || method === '') return { problem: 'PKCE flow requires both code_challenge and code_challenge_method' };
  if (method !== 's256' && method !== 'plain') return { problem: "code_challenge_method must be 'S256' or 'plain'" };
  if (challenge.length < 43 || challenge.length > 128) return { problem: 'code_challenge must be between 43 and 128 characters' };
  return {
    request: {
      redirectUri: query.redirect_uri ?? '',
      scope,
      state: query.state ?? '',
      resource,
      codeChallenge: challenge,
      codeChallengeMethod: method,
      nonce: query.nonce ?? '',
    },
  };
}

/** RFC 8707: an absolute URI without fragment or query. */
function resourceProblem(resource: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return 'resource must be an absolute URI';
  }
  if (parsed.hash !== '' || resource.includes('#')) return 'resource must not include a fragment component';
  if (parsed.search !== '' || resource.includes('?')) return 'resource must not include a query component';
  return null;
}

/** Whether a consent the user gave covers every scope asked for now (then GoTrue approves without asking). */
export function consentCovers(grantedScopes: string, requestedScope: string): boolean {
  const granted = new Set(parseScopes(grantedScopes));
  return parseScopes(requestedScope).every((scope) => granted.has(scope));
}

/** GoTrue leaves an empty parameter (no state) out of the redirect. */
function withParams(redirectUri: string, params: Readonly<Record<string, string>>): string {
  return redirectWithQuery(redirectUri, Object.fromEntries(Object.entries(params).filter(([, value]) => value !== '')));
}

/** Where an approved request sends the browser: the client's redirect URI with `code` and `state`. */
export function successRedirect(redirectUri: string, code: string, state: string): string {
  return withParams(redirectUri, { code, state });
}

/** RFC 6749 §4.1.2.1: the error, its description and the state, on the client's redirect URI. */
export function errorRedirect(redirectUri: string, error: string, description: string, state: string): string {
  return withParams(redirectUri, { error, error_description: description, state });
}

/** The consent page: the authorization path joined to the site URL, carrying the request's id. */
export function consentPageUrl(siteUrl: string, authorizationPath: string, authorizationId: string): string {
  const path = authorizationPath.startsWith('/') ? authorizationPath : `/${authorizationPath}`;
  return `${siteUrl.replace(/\/+$/, '')}${path}?authorization_id=${encodeURIComponent(authorizationId)}`;
}

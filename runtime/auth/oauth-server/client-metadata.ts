import { AuthError, authErrors } from '../http/errors.js';
import type { BodyOf, DeclaredFields } from '../../http/endpoint.js';
import type { oauthEndpoints } from '../routes/oauth-endpoints.js';

/**
 * The metadata of an OAuth client registration (RFC 7591 as Supabase Auth takes it), checked
 * with GoTrue's rules and messages. Pure: the routes store what this returns.
 */

export type ClientType = 'public' | 'confidential';
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
export type GrantType = 'authorization_code' | 'refresh_token';
export type RegistrationType = 'dynamic' | 'manual';

export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 10;
const DANGEROUS_SCHEMES = new Set(['javascript', 'data', 'file', 'vbscript', 'about', 'blob']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface NewClient {
  readonly registrationType: RegistrationType;
  readonly clientType: ClientType;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly GrantType[];
  readonly clientName: string | null;
  readonly clientUri: string | null;
  readonly logoUri: string | null;
}

export interface ClientChange {
  readonly redirectUris?: readonly string[];
  readonly grantTypes?: readonly GrantType[];
  readonly clientName?: string;
  readonly clientUri?: string;
  readonly logoUri?: string;
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

/** Why a redirect URI is refused (RFC 6749 §3.1.2, RFC 6819 §5.1.1), in GoTrue's words; null when it is usable. */
export function redirectUriProblem(uri: string): string | null {
  if (uri === '') return 'redirect URI cannot be empty';
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'invalid URL format';
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (parsed.host === '') return 'must have scheme and host';
  if (DANGEROUS_SCHEMES.has(scheme.toLowerCase())) return `scheme '${scheme}' is not allowed for security reasons`;
  if (scheme === 'http' && !LOOPBACK_HOSTS.has(parsed.hostname)) return 'HTTP scheme only allowed for localhost';
  if (parsed.hash !== '' || uri.includes('#')) return 'fragment not allowed in redirect URI';
  return null;
}

/** A registration body (admin and dynamic alike), each field as sent. */
export type RegistrationBody = DeclaredFields<BodyOf<typeof oauthEndpoints.registerClient>>;
/** An update body. */
export type ClientChangeBody = DeclaredFields<BodyOf<typeof oauthEndpoints.adminUpdateClient>>;

/** GoTrue decodes the body into typed fields, so a value of the wrong type fails the decoding. */
const invalidJson = (): AuthError => new AuthError(400, 'bad_json', 'Invalid JSON body');

function stringList(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string')) throw invalidJson();
  return value;
}

function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidJson();
  return value;
}

function checkRedirectUris(uris: readonly string[], required: boolean): void {
  if (uris.length === 0) throw authErrors.validation(required ? 'redirect_uris is required' : 'redirect_uris cannot be empty');
  if (uris.length > MAX_REDIRECT_URIS) throw authErrors.validation(`redirect_uris cannot exceed ${MAX_REDIRECT_URIS} items`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw authErrors.validation(`invalid redirect_uri '${uri}': ${problem}`);
  }
}

function checkGrantTypes(grantTypes: readonly string[]): asserts grantTypes is readonly GrantType[] {
  if (grantTypes.length === 0) throw authErrors.validation('grant_types cannot be empty');
  if (!grantTypes.every((grant) => (GRANT_TYPES as readonly string[]).includes(grant))) {
    throw authErrors.validation("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path. */
function isRequestUri(value: string): boolean {
  return value.startsWith('/') || URL.canParse(value);
}

function checkLinks(change: { clientName?: string; clientUri?: string; logoUri?: string }): void {
  if (change.clientName !== undefined && change.clientName.length > 1024) throw authErrors.validation('client_name cannot exceed 1024 characters');
  for (const [field, value] of [['client_uri', change.clientUri], ['logo_uri', change.logoUri]] as const) {
    if (value === undefined || value === '') continue;
    if (value.length > 2048) throw authErrors.validation(`${field} cannot exceed 2048 characters`);
    if (!isRequestUri(value)) throw authErrors.validation(`${field} must be a valid URL`);
  }
}

function isAuthMethod(value: string): value is TokenEndpointAuthMethod {
  return (TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(value);
}

/** The client type an auth method implies: `none` is public, a secret confidential. */
export function clientTypeOf(method: TokenEndpointAuthMethod): ClientType {
  return method === 'none' ? 'public' : 'confidential';
}

const goList = (items: readonly string[]): string => `[${items.join(' ')}]`;

/**
 * A registration body. GoTrue wraps the first problem in a 400 whose message is the inner
 * error's text, which for its own validation errors starts with their status ("400: ...").
 */
export function acceptRegistration(body: RegistrationBody, registrationType: RegistrationType): NewClient {
  try {
    return parseRegistration(body, registrationType);
  } catch (error) {
    if (error instanceof AuthError && error.code === 'validation_failed') {
      throw authErrors.validation(`400: ${error.message}`);
    }
    throw error;
  }
}

function parseRegistration(body: RegistrationBody, registrationType: RegistrationType): NewClient {
  const redirectUris = body.redirect_uris === undefined || body.redirect_uris === null ? [] : stringList(body.redirect_uris);
  checkRedirectUris(redirectUris, true);
  const grantTypes = body.grant_types === undefined || body.grant_types === null ? [] : stringList(body.grant_types);
  if (grantTypes.length > 0) checkGrantTypes(grantTypes);
  const clientName = optionalText(body.client_name) ?? '';
  const clientUri = optionalText(body.client_uri) ?? '';
  const logoUri = optionalText(body.logo_uri) ?? '';
  checkLinks({ clientName, clientUri, logoUri });
  const requestedType = optionalText(body.client_type) ?? '';
  if (requestedType !== '' && requestedType !== 'public' && requestedType !== 'confidential') {
    throw authErrors.validation("client_type must be 'public' or 'confidential'");
  }
  const requestedMethod = optionalText(body.token_endpoint_auth_method) ?? '';
  if (requestedMethod !== '' && !isAuthMethod(requestedMethod)) {
    throw authErrors.validation(`token_endpoint_auth_method must be one of: ${goList(TOKEN_ENDPOINT_AUTH_METHODS)}`);
  }
  if (requestedType !== '' && requestedMethod !== '' && clientTypeOf(requestedMethod as TokenEndpointAuthMethod) !== requestedType) {
    const expected = clientTypeOf(requestedMethod as TokenEndpointAuthMethod);
    throw authErrors.validation(
      `client_type '${requestedType}' is inconsistent with token_endpoint_auth_method '${requestedMethod}' (expected client_type '${expected}')`,
    );
  }
  const clientType: ClientType =
    requestedType !== '' ? (requestedType as ClientType) : requestedMethod !== '' ? clientTypeOf(requestedMethod as TokenEndpointAuthMethod) : 'confidential';
  // RFC 7591: client_secret_basic unless said otherwise; a public client has no secret to send.
  const tokenEndpointAuthMethod: TokenEndpointAuthMethod =
    requestedMethod !== '' ? (requestedMethod as TokenEndpointAuthMethod) : clientType === 'public' ? 'none' : 'client_secret_basic';
  return {
    registrationType,
    clientType,
    tokenEndpointAuthMethod,
    redirectUris,
    grantTypes: grantTypes.length > 0 ? (grantTypes as GrantType[]) : [...GRANT_TYPES],
    clientName: clientName === '' ? null : clientName,
    clientUri: clientUri === '' ? null : clientUri,
    logoUri: logoUri === '' ? null : logoUri,
  };
}

/** An update body: only the fields present change; an empty one is refused. */
export function acceptClientChange(body: ClientChangeBody, clientType: ClientType): ClientChange {
  const present = (field: keyof ClientChangeBody) => body[field] !== undefined && body[field] !== null;
  const redirectUris = present('redirect_uris') ? stringList(body.redirect_uris) : undefined;
  const grantTypes = present('grant_types') ? stringList(body.grant_types) : undefined;
  const clientName = optionalText(body.client_name);
  const clientUri = optionalText(body.client_uri);
  const logoUri = optionalText(body.logo_uri);
  const method = optionalText(body.token_endpoint_auth_method);
  if ([redirectUris, grantTypes, clientName, clientUri, logoUri, method].every((value) => value === undefined)) {
    throw authErrors.validation('No fields provided for update');
  }
  if (redirectUris !== undefined) checkRedirectUris(redirectUris, false);
  if (grantTypes !== undefined) checkGrantTypes(grantTypes);
  checkLinks({ clientName, clientUri, logoUri });
  if (method !== undefined) {
    if (!isAuthMethod(method)) throw authErrors.validation(`invalid token_endpoint_auth_method: must be one of ${goList(TOKEN_ENDPOINT_AUTH_METHODS)}`);
    if (clientTypeOf(method) !== clientType) {
      const valid = TOKEN_ENDPOINT_AUTH_METHODS.filter((candidate) => clientTypeOf(candidate) === clientType);
      throw authErrors.validation(`token_endpoint_auth_method '${method}' is not valid for client_type '${clientType}'; valid methods: ${goList(valid)}`);
    }
  }
  return {
    ...(redirectUris !== undefined && { redirectUris }),
    ...(grantTypes !== undefined && { grantTypes: grantTypes as GrantType[] }),
    ...(clientName !== undefined && { clientName }),
    ...(clientUri !== undefined && { clientUri }),
    ...(logoUri !== undefined && { logoUri }),
    ...(method !== undefined && { tokenEndpointAuthMethod: method as TokenEndpointAuthMethod }),
  };
}

import { Type } from '@sinclair/typebox';
import { declareEndpoint, schemaRef, type EndpointDeclaration } from '../../http/endpoint.js';
import { ADMIN_SECURITY, adminErrors } from './admin-endpoints.js';
import { noAccessToken, redirect } from './external-endpoints.js';
import { authError, dateTime, fields, OPEN_SECURITY, objectSchema, ok, operation, tooMany, typed, USER_SECURITY } from './endpoint-parts.js';
import type { GrantType, TokenEndpointAuthMethod } from '../oauth-server/client-metadata.js';

/**
 * The project as an OAuth 2.1 server (served only with `auth.oauth_server.enabled`): its clients' admin
 * API and dynamic registration, the authorization code flow, the user's grants and the discovery
 * documents, declared once (runtime/http/endpoint.ts). Their routes read the declared fields only.
 */

const oauthServerOff = authError('The OAuth server is off (`feature_disabled`).');
const oauthClientMissing = authError('No such client (`oauth_client_not_found`), or the OAuth server is off (`feature_disabled`).');
const authorizationMissing = authError("Unknown, expired or another user's request (`oauth_authorization_not_found`).");

const clientParams = Type.Object({ client_id: Type.String({ format: 'uuid', description: 'The client id.' }) });
const authorizationParams = Type.Object({ authorization_id: Type.String({ description: 'The id the consent page was given.' }) });

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

const redirectUris = Type.Array(Type.String(), { minItems: 1, maxItems: 10, description: '`https`, a custom scheme, or `http` on loopback; no fragment.' });
/** A client's metadata as registration and update take it; `redirect_uris` is required where a client is made. */
const clientFields = {
  client_name: Type.Optional(Type.String({ maxLength: 1024 })),
  redirect_uris: Type.Optional(redirectUris),
  grant_types: Type.Optional(Type.Array(typed<GrantType>({ type: 'string', enum: GRANT_TYPES }), { description: 'Default: both.' })),
  token_endpoint_auth_method: Type.Optional(
    typed<TokenEndpointAuthMethod>({ type: 'string', enum: AUTH_METHODS, description: '`none` makes a public client; default `client_secret_basic`.' }),
  ),
  client_type: Type.Optional(typed<'public' | 'confidential'>({ type: 'string', enum: ['public', 'confidential'], description: 'Registration only; inferred from the auth method when absent.' })),
  client_uri: Type.Optional(Type.String()),
  logo_uri: Type.Optional(Type.String()),
};
const ClientRegistration = fields({ ...clientFields, redirect_uris: redirectUris });
const ClientUpdate = fields(clientFields);

const clientDetails = objectSchema({ id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, uri: { type: 'string' }, logo_uri: { type: 'string' } }, ['id']);
const redirectUrl = objectSchema({ redirect_url: { type: 'string', format: 'uri' } }, ['redirect_url']);

const TokenRequest = fields(
  {
    grant_type: typed<GrantType>({ type: 'string', enum: GRANT_TYPES }),
    code: Type.Optional(Type.String()),
    code_verifier: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
    resource: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String({ format: 'uuid' })),
    client_secret: Type.Optional(Type.String()),
  },
);

function discovery(operationId: string, summary: string) {
  return {
    ...operation(operationId),
    summary,
    description: 'Issuer, endpoints and what the OAuth 2.1 server supports; `registration_endpoint` when dynamic registration is on.',
    security: OPEN_SECURITY,
    responses: {
      '200': {
        description: 'The metadata.',
        headers: { 'Cache-Control': { description: '`public, max-age=600`.', schema: { type: 'string' } } },
        content: {
          'application/json': {
            schema: { type: 'object', required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'], additionalProperties: true, properties: { issuer: { type: 'string', format: 'uri' } } },
          },
        },
      },
      '404': authError('The OAuth server is off (`feature_disabled` or `not_found`).'),
    },
  } as const;
}

export const oauthEndpoints = {
  adminListClients: declareEndpoint({
    method: 'get',
    path: '/auth/v1/admin/oauth/clients',
    ...operation('adminListOAuthClients'),
    summary: 'List OAuth clients (service key)',
    description: 'Clients not deleted, newest first (not paginated, as GoTrue). The OAuth 2.1 server must be on (`auth.oauth_server.enabled`).',
    security: ADMIN_SECURITY,
    responses: { '200': ok('The clients.', objectSchema({ clients: { type: 'array', items: schemaRef('OAuthClient') } }, ['clients'])), ...adminErrors, '404': oauthServerOff },
  }),
  adminCreateClient: declareEndpoint({
    method: 'post',
    path: '/auth/v1/admin/oauth/clients',
    ...operation('adminCreateOAuthClient'),
    summary: 'Register an OAuth client (service key)',
    security: ADMIN_SECURITY,
    body: { schema: ClientRegistration },
    responses: { '201': ok('The client, with its secret when confidential.', schemaRef('OAuthClient')), ...adminErrors, '404': oauthServerOff },
  }),
  adminGetClient: declareEndpoint({
    method: 'get',
    path: '/auth/v1/admin/oauth/clients/{client_id}',
    ...operation('adminGetOAuthClient'),
    summary: 'Get an OAuth client (service key)',
    security: ADMIN_SECURITY,
    params: clientParams,
    responses: { '200': ok('The client.', schemaRef('OAuthClient')), ...adminErrors, '404': oauthClientMissing },
  }),
  adminUpdateClient: declareEndpoint({
    method: 'put',
    path: '/auth/v1/admin/oauth/clients/{client_id}',
    ...operation('adminUpdateOAuthClient'),
    summary: 'Update an OAuth client (service key)',
    description: 'Only the fields given change; `token_endpoint_auth_method` must suit the client type.',
    security: ADMIN_SECURITY,
    params: clientParams,
    body: { schema: ClientUpdate },
    responses: { '200': ok('The client.', schemaRef('OAuthClient')), ...adminErrors, '404': oauthClientMissing },
  }),
  adminDeleteClient: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/admin/oauth/clients/{client_id}',
    ...operation('adminDeleteOAuthClient'),
    summary: 'Delete an OAuth client (service key)',
    description: 'The client stops working and the sessions issued to it end.',
    security: ADMIN_SECURITY,
    params: clientParams,
    responses: { '204': { description: 'Deleted.' }, ...adminErrors, '404': oauthClientMissing },
  }),
  adminRegenerateSecret: declareEndpoint({
    method: 'post',
    path: '/auth/v1/admin/oauth/clients/{client_id}/regenerate_secret',
    ...operation('adminRegenerateOAuthClientSecret'),
    summary: "Replace a confidential client's secret (service key)",
    security: ADMIN_SECURITY,
    params: clientParams,
    responses: { '200': ok('The client with its new secret.', schemaRef('OAuthClient')), ...adminErrors, '404': oauthClientMissing },
  }),
  registerClient: declareEndpoint({
    method: 'post',
    path: '/auth/v1/oauth/clients/register',
    ...operation('registerOAuthClient'),
    summary: 'Dynamic client registration (RFC 7591)',
    description: 'Needs no API key; only with `auth.oauth_server.allow_dynamic_registration`; 10 per 5 minutes and client IP.',
    security: OPEN_SECURITY,
    body: { schema: ClientRegistration },
    responses: {
      '201': ok('The client, with its secret when confidential.', schemaRef('OAuthClient')),
      '400': authError('Invalid metadata (`validation_failed`).'),
      '403': authError('Dynamic registration is off (`oauth_dynamic_client_registration_disabled`).'),
      '404': oauthServerOff,
      '429': tooMany,
    },
  }),
  authorize: declareEndpoint({
    method: 'get',
    path: '/auth/v1/oauth/authorize',
    ...operation('oauthAuthorize'),
    summary: 'Start the authorization code flow (the project as OAuth server)',
    description:
      'Opened by a browser for a registered client: redirects (302) to the consent page (`auth.site_url` + `auth.oauth_server.authorization_path`) with `?authorization_id=`. ' +
      'Problems after the client and redirect URI are known go back to the redirect URI as `?error=invalid_request&error_description=…&state=…`.',
    security: OPEN_SECURITY,
    query: Type.Object({
      client_id: Type.String({ format: 'uuid', description: 'The registered client.' }),
      redirect_uri: Type.String({ description: "One of the client's redirect URIs, exactly." }),
      response_type: Type.Optional(typed<'code'>({ type: 'string', enum: ['code'], description: 'Only `code`.' })),
      scope: Type.Optional(Type.String({ description: 'Space-separated; default `email`.' })),
      state: Type.Optional(Type.String({ description: 'Returned to the redirect URI unchanged.' })),
      code_challenge: Type.String({ description: 'PKCE challenge, 43 to 128 characters (mandatory).' }),
      code_challenge_method: typed<string>({ type: 'string', enum: ['S256', 'plain'], description: 'With `code_challenge` (either case).' }),
      resource: Type.Optional(Type.String({ description: 'RFC 8707 resource indicator: an absolute URI without query or fragment.' })),
      nonce: Type.Optional(Type.String({ description: 'Kept with the request.' })),
    }),
    responses: {
      '302': redirect('To the consent page, or an error to the redirect URI.'),
      '400': authError('Missing client or redirect URI, or a redirect URI not registered (`validation_failed`); unknown client (`oauth_client_not_found`).'),
      '404': oauthServerOff,
    },
  }),
  authorizationDetails: declareEndpoint({
    method: 'get',
    path: '/auth/v1/oauth/authorizations/{authorization_id}',
    ...operation('oauthAuthorizationDetails'),
    summary: 'What the consent page shows (signed-in user)',
    description: 'Ties the request to the user. When the user already consented to every scope asked for, answers `{redirect_url}` at once.',
    security: USER_SECURITY,
    params: authorizationParams,
    responses: {
      '200': ok('The request, or the redirect when already consented.', {
        anyOf: [
          objectSchema(
            {
              authorization_id: { type: 'string' },
              redirect_uri: { type: 'string' },
              client: clientDetails,
              user: objectSchema({ id: { type: 'string', format: 'uuid' }, email: { type: 'string', format: 'email' } }, ['id']),
              scope: { type: 'string' },
            },
            ['authorization_id', 'redirect_uri', 'client', 'user', 'scope'],
          ),
          redirectUrl,
        ],
      }),
      '400': authError('Not pending any more, or a browser origin redirects may not go to (`validation_failed`).'),
      '401': noAccessToken,
      '404': authorizationMissing,
    },
  }),
  consent: declareEndpoint({
    method: 'post',
    path: '/auth/v1/oauth/authorizations/{authorization_id}/consent',
    ...operation('oauthConsent'),
    summary: 'Approve or deny the request (signed-in user)',
    security: USER_SECURITY,
    params: authorizationParams,
    body: { schema: Type.Object({ action: typed<'approve' | 'deny'>({ type: 'string', enum: ['approve', 'deny'] }) }) },
    responses: {
      '200': ok('Where to send the browser: the redirect URI with `code` and `state`, or `error=access_denied`.', redirectUrl),
      '400': authError('Not pending any more, a bad action, or a foreign origin (`validation_failed`).'),
      '401': noAccessToken,
      '404': authorizationMissing,
    },
  }),
  token: declareEndpoint({
    method: 'post',
    path: '/auth/v1/oauth/token',
    ...operation('oauthToken'),
    summary: "The OAuth server's token endpoint",
    description:
      'Client authentication as registered: HTTP Basic, `client_id`/`client_secret` in the body, or `client_id` alone (public). ' +
      '`authorization_code` (with `code_verifier`) or `refresh_token`. Access tokens carry `client_id` and `scope` claims.',
    security: OPEN_SECURITY,
    body: { schema: TokenRequest, mediaType: ['application/x-www-form-urlencoded', 'application/json'] },
    responses: {
      '200': ok(
        'Tokens (no user object).',
        objectSchema(
          {
            access_token: { type: 'string' },
            token_type: { type: 'string', enum: ['bearer'] },
            expires_in: { type: 'integer', enum: [3600] },
            refresh_token: { type: 'string' },
            id_token: { type: 'string', description: "OpenID Connect ID token, for a code granted the `openid` scope; signed with the project's asymmetric key." },
          },
          ['access_token', 'token_type', 'expires_in', 'refresh_token'],
        ),
      ),
      '500': authError('The `openid` scope on a project signing with its shared secret (`unexpected_failure`, "Error generating ID token"); the code is not spent.'),
      '400': {
        description: 'An OAuth error, or client authentication failed (`invalid_credentials`, as AuthError).',
        content: { 'application/json': { schema: { anyOf: [schemaRef('OAuthError'), schemaRef('AuthError')] } } },
      },
      '404': oauthServerOff,
      '429': tooMany,
    },
  }),
  userInfo: declareEndpoint({
    method: 'get',
    path: '/auth/v1/oauth/userinfo',
    ...operation('oauthUserInfo'),
    summary: 'OpenID Connect user info',
    security: USER_SECURITY,
    responses: {
      '200': ok("`sub`, and the claims of the scopes granted to the token's client.", {
        type: 'object',
        required: ['sub'],
        additionalProperties: true,
        properties: { sub: { type: 'string', format: 'uuid' } },
      }),
      '401': noAccessToken,
    },
  }),
  listGrants: declareEndpoint({
    method: 'get',
    path: '/auth/v1/user/oauth/grants',
    ...operation('listOAuthGrants'),
    summary: 'The apps the signed-in user allowed',
    security: USER_SECURITY,
    responses: {
      '200': ok('Active consents, newest first.', {
        type: 'array',
        items: objectSchema({ client: clientDetails, scopes: { type: 'array', items: { type: 'string' } }, granted_at: dateTime }, ['client', 'scopes', 'granted_at']),
      }),
      '401': noAccessToken,
    },
  }),
  revokeGrant: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/user/oauth/grants',
    ...operation('revokeOAuthGrant'),
    summary: 'Withdraw a grant (signed-in user)',
    description: "Ends the client's sessions of the user: its refresh tokens stop working.",
    security: USER_SECURITY,
    query: Type.Object({ client_id: Type.String({ format: 'uuid', description: 'The client.' }) }),
    responses: {
      '204': { description: 'Withdrawn.' },
      '400': authError('Missing or malformed `client_id` (`validation_failed`).'),
      '401': noAccessToken,
      '404': authError('No active grant for the client (`oauth_consent_not_found`).'),
    },
  }),
  serverMetadata: declareEndpoint({ method: 'get', path: '/auth/v1/.well-known/oauth-authorization-server', ...discovery('oauthServerMetadata', 'OAuth 2.1 server metadata (RFC 8414)') }),
  openidConfiguration: declareEndpoint({ method: 'get', path: '/auth/v1/.well-known/openid-configuration', ...discovery('openidConfiguration', 'OpenID configuration (the same document)') }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

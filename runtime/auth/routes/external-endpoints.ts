import { Type } from '@sinclair/typebox';
import { declareEndpoint, schemaRef, type EndpointDeclaration, type OpenApiObject } from '../../http/endpoint.js';
import { authError, fields, OPEN_SECURITY, objectSchema, ok, operation, pkceFields, PUBLIC_SECURITY, typed, unauthorizedKey, USER_SECURITY } from './endpoint-parts.js';

/**
 * Sign-in with an OAuth / OpenID Connect provider and the linking of its identities, declared once
 * (runtime/http/endpoint.ts). Their routes read the declared query and form fields only.
 */

/** A 302 to `Location`. */
export const redirect = (description: string): OpenApiObject => ({ description, headers: { Location: { schema: { type: 'string' } } } });
const toTheApp = redirect('Redirect to the app.');
const toTheProvider = redirect("Redirect to the provider's authorization endpoint.");
export const noAccessToken = authError('No access token (`no_authorization`).');
const linkingOff = authError('Manual linking is off (`manual_linking_disabled`).');

/** What the provider's redirect back carries, in the query or (Apple's `form_post`) in a form. */
const callbackError = {
  error: Type.Optional(Type.String({ description: "The provider's refusal (RFC 6749 section 4.1.2.1), passed on to the app's `redirect_to`." })),
  error_description: Type.Optional(Type.String({ description: 'With `error`.' })),
};
const CallbackQuery = fields({
  state: Type.Optional(Type.String({ description: 'The flow, as `/authorize` sent it.' })),
  code: Type.Optional(Type.String({ description: "The provider's authorization code." })),
  ...callbackError,
});

/** The provider flow's own parameters, which linking an identity takes as signing in does. */
const flowParameters = {
  scopes: Type.Optional(Type.String({ description: 'Provider scopes beyond the configured ones, space-separated.' })),
  code_challenge: Type.Optional(Type.String({ description: pkceFields.code_challenge.description })),
  code_challenge_method: Type.Optional(typed<string>({ type: 'string', enum: ['s256', 'plain'], description: 'With `code_challenge`.' })),
};

export const externalEndpoints = {
  authorize: declareEndpoint({
    method: 'get',
    path: '/auth/v1/authorize',
    ...operation('authorize'),
    summary: 'Sign in with an OAuth / OpenID Connect provider',
    description:
      'Opened by a browser: redirects (302) to the provider enabled as `auth.external.<provider>`; its answer comes back at `/callback`. ' +
      'Implicit flow: the session (with `provider_token`) in the `redirect_to` URL fragment; with `code_challenge`: `?code=`, exchanged at `/token?grant_type=pkce`. ' +
      'A provider that is not enabled is refused as Supabase Auth refuses it (400 `validation_failed`).',
    security: [{}, ...PUBLIC_SECURITY],
    query: Type.Object({
      provider: Type.String({ description: 'The provider: `google`, `github`, `gitlab`, `azure`, `apple`, `discord` or `custom:<id>`.' }),
      redirect_to: Type.Optional(
        Type.String({ format: 'uri', description: 'Where the flow ends: the site URL (`auth.site_url`) or a match of `auth.redirect_allow_list`; otherwise the site URL.' }),
      ),
      ...flowParameters,
    }),
    responses: {
      '302': toTheProvider,
      '400': authError('Unknown or not enabled provider (`validation_failed`).'),
      '401': unauthorizedKey,
    },
  }),
  callback: declareEndpoint({
    method: 'get',
    path: '/auth/v1/callback',
    ...operation('callback'),
    summary: "The provider's redirect back",
    description:
      "Checks the flow's state (single use, 5 minutes), exchanges the provider's code, signs the user in or links the identity, and redirects to the flow's `redirect_to` with the session (fragment), `?code=` (PKCE) or the error in GoTrue's query-and-fragment form.",
    security: OPEN_SECURITY,
    query: CallbackQuery,
    responses: { '302': toTheApp },
  }),
  callbackForm: declareEndpoint({
    method: 'post',
    path: '/auth/v1/callback',
    ...operation('callbackForm'),
    summary: "The provider's answer posted as a form (Apple's `form_post`)",
    security: OPEN_SECURITY,
    body: { schema: fields({ state: Type.Optional(Type.String()), code: Type.Optional(Type.String()), ...callbackError }), mediaType: 'application/x-www-form-urlencoded' },
    responses: { '302': toTheApp },
  }),
  linkIdentity: declareEndpoint({
    method: 'get',
    path: '/auth/v1/user/identities/authorize',
    ...operation('linkIdentity'),
    summary: "Link a provider's identity to the signed-in user",
    description: 'As `/authorize`, for the signed-in user (`auth.manual_linking`); with `skip_http_redirect=true` answers `{url}` instead of redirecting.',
    security: USER_SECURITY,
    query: Type.Object({
      provider: Type.String({ description: 'The provider to link.' }),
      redirect_to: Type.Optional(Type.String({ format: 'uri', description: 'Where the flow ends (as `/authorize`).' })),
      skip_http_redirect: Type.Optional(Type.Boolean({ description: 'Answer the URL as JSON.' })),
      ...flowParameters,
    }),
    responses: {
      '200': ok('The URL to open.', objectSchema({ url: { type: 'string', format: 'uri' } }, ['url'])),
      '302': toTheProvider,
      '401': noAccessToken,
      '404': linkingOff,
    },
  }),
  unlinkIdentity: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/user/identities/{identity_id}',
    ...operation('unlinkIdentity'),
    summary: "Unlink one of the signed-in user's identities",
    security: USER_SECURITY,
    params: Type.Object({ identity_id: Type.String({ format: 'uuid', description: 'The identity id.' }) }),
    responses: {
      '200': ok('Unlinked.', schemaRef('Empty')),
      '401': noAccessToken,
      '404': linkingOff,
      '422': authError("The user's only identity (`single_identity_not_deletable`), or not an identity of this user (`identity_not_found`)."),
    },
  }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

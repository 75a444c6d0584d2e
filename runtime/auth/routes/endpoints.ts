import { Type } from '@sinclair/typebox';
import { declareEndpoint, schemaRef, type EndpointDeclaration } from '../../http/endpoint.js';
import { adminEndpoints } from './admin-endpoints.js';
import { externalEndpoints } from './external-endpoints.js';
import { mfaEndpoints } from './mfa-endpoints.js';
import { oauthEndpoints } from './oauth-endpoints.js';
import { sessionEndpoints } from './session-endpoints.js';
import { userEndpoints } from './user-endpoints.js';
import { authError, newPassword, ok, OPEN_SECURITY, operation, pkceFields, PUBLIC_SECURITY, redirectToParameter, tooMany, unauthorizedKey } from './endpoint-parts.js';

/**
 * The auth endpoints declared once (runtime/http/endpoint.ts): the project's OpenAPI document states
 * them from here (generator/emit/openapi/auth.ts), and their routes read the declared fields only.
 * Their readers keep GoTrue's own error codes and messages. The endpoints not declared here yet are
 * still stated by hand in generator/emit/openapi/auth.ts; test/unit/generator/auth-openapi.test.ts
 * lists them.
 */

export const authEndpoints = {
  recover: declareEndpoint({
    method: 'post',
    path: '/auth/v1/recover',
    ...operation('recover'),
    summary: 'Request a password recovery e-mail',
    description: 'The same answer whether or not the address exists; the link is valid for 1 hour.',
    security: PUBLIC_SECURITY,
    parameters: [redirectToParameter],
    body: { schema: Type.Object({ email: Type.String({ format: 'email' }), redirect_to: Type.Optional(Type.String({ format: 'uri' })), ...pkceFields }) },
    responses: {
      '200': ok('Accepted.', schemaRef('Message')),
      '400': authError('Invalid e-mail (`validation_failed`).'),
      '401': unauthorizedKey,
      '429': tooMany,
    },
  }),
  reset: declareEndpoint({
    method: 'post',
    path: '/auth/v1/reset',
    ...operation('reset'),
    summary: 'Set a new password with a recovery token',
    description: 'Also signs the user out on all devices (every refresh token is revoked).',
    security: PUBLIC_SECURITY,
    body: { schema: Type.Object({ token: Type.String({ description: 'The recovery token.' }), password: newPassword }) },
    responses: {
      '200': ok('Password changed.', schemaRef('Message')),
      '400': authError('Missing token (`validation_failed`).'),
      '401': unauthorizedKey,
      '403': authError('Invalid or expired token (`otp_expired`).'),
      '422': authError('Weak password (`weak_password`).'),
      '429': tooMany,
    },
  }),
  jwks: declareEndpoint({
    method: 'get',
    path: '/auth/v1/.well-known/jwks.json',
    ...operation('jwks'),
    summary: 'Public keys that verify access tokens',
    description:
      'The public halves of the asymmetric signing keys that verify now (current, and previous ones in their grace period); empty while the project signs with its shared secret only.',
    security: OPEN_SECURITY,
    responses: {
      '200': {
        description: 'A JSON Web Key Set.',
        headers: { 'Cache-Control': { description: '`public, max-age=600`.', schema: { type: 'string' } } },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['keys'],
              properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true, description: 'A public JWK (`kid`, `alg`, `kty`, `use`, ...).' } } },
            },
          },
        },
      },
    },
  }),
  settings: declareEndpoint({
    method: 'get',
    path: '/auth/v1/settings',
    ...operation('settings'),
    summary: 'Public auth settings',
    security: OPEN_SECURITY,
    responses: {
      '200': ok('Which sign-in methods are on.', {
        type: 'object',
        required: [],
        properties: {
          external: {
            type: 'object',
            additionalProperties: true,
            description:
              'Providers: `email` true; `anonymous_users` and each OAuth provider as the project enables them (`auth.anonymous_users`, `auth.external.<provider>.enabled`); `phone` when the project has an SMS sender (an SMS provider or the send-SMS hook).',
          },
          disable_signup: { type: 'boolean', description: 'The project setting `auth.disable_signup`.' },
          mailer_autoconfirm: { type: 'boolean' },
          phone_autoconfirm: { type: 'boolean' },
          sms_provider: { type: 'string' },
          saml_enabled: { type: 'boolean' },
          saml_private_key_next_configured: { type: 'boolean' },
          passkeys_enabled: { type: 'boolean', description: 'The project setting `auth.passkey.enabled`.' },
          mailer_otp_exp: { type: 'integer', description: 'Seconds a mailed code or magic link is valid (`auth.otp_expiry`).' },
          security_update_password_require_reauthentication: { type: 'boolean', description: 'The project setting `auth.update_password_require_reauthentication`.' },
        },
      }),
    },
  }),
  health: declareEndpoint({
    method: 'get',
    path: '/auth/v1/health',
    ...operation('health'),
    summary: 'Liveness of the auth API',
    security: OPEN_SECURITY,
    responses: {
      '200': ok('Up.', { type: 'object', required: ['version', 'name', 'description'], properties: { version: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' } } }),
    },
  }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

/** In the order the document lists them. */
export const AUTH_ENDPOINTS: readonly EndpointDeclaration[] = [
  ...Object.values(authEndpoints),
  ...Object.values(adminEndpoints),
  ...Object.values(oauthEndpoints),
  ...Object.values(externalEndpoints),
  ...Object.values(sessionEndpoints),
  ...Object.values(userEndpoints),
  ...Object.values(mfaEndpoints),
];

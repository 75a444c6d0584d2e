import { openApiPaths } from '../../../runtime/http/endpoint.js';
import { AUTH_ENDPOINTS } from '../../../runtime/auth/routes/endpoints.js';
import { dateTime } from '../../../runtime/auth/routes/endpoint-parts.js';
import { schemaRef, type JsonSchema } from './json-schema.js';

/**
 * The GoTrue-compatible auth API (section 4.1 of the service document) as the
 * runtime serves it at `/auth/v1`: the same for every project, so it is data here.
 */


const metadata = (description: string): JsonSchema => ({ type: 'object', additionalProperties: true, description });

export const authSchemas: Readonly<Record<string, JsonSchema>> = {
  AuthError: {
    description:
      'Error of the auth API. Clients that send `X-Supabase-Api-Version: 2024-01-01` (supabase-js does) get `{code, message}` ' +
      'with a string code; others get the legacy `{code: <status>, error_code, msg}`.',
    anyOf: [
      {
        type: 'object',
        title: 'AuthErrorVersioned',
        required: ['code', 'message'],
        properties: { code: { type: 'string', description: 'e.g. `invalid_credentials`, `email_not_confirmed`, `user_banned`.' }, message: { type: 'string' } },
      },
      {
        type: 'object',
        title: 'AuthErrorLegacy',
        required: ['code', 'error_code', 'msg'],
        properties: { code: { type: 'integer', description: 'The HTTP status.' }, error_code: { type: 'string' }, msg: { type: 'string' } },
      },
    ],
  },
  User: {
    type: 'object',
    description: 'A user of the project (GoTrue form). Timestamps that are not set are left out.',
    required: ['id', 'aud', 'role', 'email', 'phone', 'app_metadata', 'user_metadata', 'identities', 'created_at', 'updated_at', 'is_anonymous'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      aud: { type: 'string', example: 'authenticated' },
      role: { type: 'string', example: 'authenticated' },
      email: { type: 'string', format: 'email' },
      email_confirmed_at: dateTime,
      invited_at: { ...dateTime, description: 'When an admin invited the user (`/invite`, or `generate_link` type invite).' },
      phone: { type: 'string', description: 'E.164 digits without `+`; empty when the user has no number.' },
      phone_confirmed_at: dateTime,
      confirmation_sent_at: dateTime,
      confirmed_at: dateTime,
      recovery_sent_at: dateTime,
      new_email: { type: 'string', format: 'email', description: 'Present while an e-mail change waits for the new address to confirm it.' },
      new_phone: { type: 'string', description: 'Present while a phone change waits for its texted code (`/verify` type `phone_change`).' },
      email_change_sent_at: dateTime,
      phone_change_sent_at: dateTime,
      reauthentication_sent_at: { ...dateTime, description: 'When the last reauthentication nonce was mailed (`/reauthenticate`).' },
      last_sign_in_at: dateTime,
      app_metadata: metadata('Set by the service only (`provider`, `providers`, and what admins store).'),
      user_metadata: metadata('Free-form: `data` at sign-up, `user_metadata` from admins.'),
      factors: { type: 'array', items: schemaRef('Factor'), description: 'The MFA factors, when the user has any.' },
      identities: { type: 'array', items: { type: 'object', additionalProperties: true } },
      created_at: dateTime,
      updated_at: dateTime,
      banned_until: { ...dateTime, description: 'Present while the user is banned.' },
      is_anonymous: { type: 'boolean', description: 'Signed up without an address (`/signup` with neither e-mail nor phone); false once one is linked.' },
    },
  },
  Factor: {
    type: 'object',
    description: 'An MFA factor (TOTP, WebAuthn or phone). `unverified` until its first successful verification.',
    required: ['id', 'created_at', 'updated_at', 'status', 'factor_type', 'phone', 'last_challenged_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      created_at: dateTime,
      updated_at: dateTime,
      status: { type: 'string', enum: ['verified', 'unverified'] },
      friendly_name: { type: 'string', description: 'Left out when the factor has none.' },
      factor_type: { type: 'string', enum: ['totp', 'webauthn', 'phone'] },
      phone: { type: 'string', description: "A phone factor's number (E.164 digits); empty for the others." },
      last_challenged_at: { anyOf: [dateTime, { type: 'null' }] },
    },
  },
  Passkey: {
    type: 'object',
    description: "A user's passkey (a WebAuthn credential); `friendly_name` left out when empty, `last_used_at` until its first sign-in.",
    required: ['id', 'created_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      friendly_name: { type: 'string' },
      created_at: dateTime,
      last_used_at: dateTime,
    },
  },
  PasskeyCeremony: {
    type: 'object',
    description: 'A passkey ceremony to run: the options for `navigator.credentials` and the challenge they carry, good for one verify.',
    required: ['challenge_id', 'options', 'expires_at'],
    properties: {
      challenge_id: { type: 'string', format: 'uuid' },
      options: metadata('WebAuthn PublicKeyCredentialCreationOptions (registration) or RequestOptions (sign-in), as JSON.'),
      expires_at: { type: 'integer', description: 'Unix time (seconds), 5 minutes on.' },
    },
  },
  Session: {
    type: 'object',
    description: 'A session: an access token (JWT, role `authenticated`, valid 3600 s) and a refresh token (rotated on use).',
    required: ['access_token', 'token_type', 'expires_in', 'expires_at', 'refresh_token', 'user'],
    properties: {
      access_token: { type: 'string', description: 'JWT; send as `Authorization: Bearer <access_token>`.' },
      token_type: { type: 'string', enum: ['bearer'] },
      expires_in: { type: 'integer', enum: [3600] },
      expires_at: { type: 'integer', description: 'Expiry as Unix time (seconds).' },
      refresh_token: { type: 'string' },
      user: schemaRef('User'),
    },
  },
  SignUpResponse: {
    description: 'With auto-confirm: the session (its fields at top level, and again under `session`). Otherwise `{user, session: null}` until the e-mail is confirmed.',
    anyOf: [
      { allOf: [schemaRef('Session'), { type: 'object', required: ['session'], properties: { session: schemaRef('Session') } }] },
      { type: 'object', required: ['user', 'session'], properties: { user: schemaRef('User'), session: { type: 'null' } } },
    ],
  },
  OAuthClient: {
    type: 'object',
    description: 'A third-party app registered with the OAuth 2.1 server. `client_secret` only in the answer that creates or regenerates it; empty texts left out.',
    required: ['client_id', 'client_type', 'redirect_uris', 'token_endpoint_auth_method', 'grant_types', 'response_types', 'registration_type', 'created_at', 'updated_at'],
    properties: {
      client_id: { type: 'string', format: 'uuid' },
      client_secret: { type: 'string', description: 'Confidential clients only; stored as its hash, never shown again.' },
      client_type: { type: 'string', enum: ['public', 'confidential'] },
      redirect_uris: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      token_endpoint_auth_method: { type: 'string', enum: ['none', 'client_secret_basic', 'client_secret_post'] },
      grant_types: { type: 'array', items: { type: 'string', enum: ['authorization_code', 'refresh_token'] } },
      response_types: { type: 'array', items: { type: 'string', enum: ['code'] } },
      client_name: { type: 'string', maxLength: 1024 },
      client_uri: { type: 'string', maxLength: 2048 },
      logo_uri: { type: 'string', maxLength: 2048 },
      registration_type: { type: 'string', enum: ['manual', 'dynamic'] },
      created_at: dateTime,
      updated_at: dateTime,
    },
  },
  OAuthError: {
    type: 'object',
    description: 'An OAuth 2.0 error of the token endpoint (RFC 6749 section 5.2), whatever API version was asked for.',
    required: ['error', 'error_description'],
    properties: {
      error: { type: 'string', enum: ['invalid_request', 'invalid_grant', 'invalid_client', 'unsupported_grant_type', 'access_denied'] },
      error_description: { type: 'string' },
    },
  },
  Message: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  Empty: { type: 'object', description: 'An empty object: the request was accepted.', additionalProperties: false },
};

/** `/auth/v1/...` path items, from the declared endpoints (runtime/auth/routes/endpoints.ts). */
export const authPaths: Readonly<Record<string, JsonSchema>> = openApiPaths(AUTH_ENDPOINTS);

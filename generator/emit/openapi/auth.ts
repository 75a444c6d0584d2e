import { jsonSchema, openApiPaths } from '../../../runtime/http/endpoint.js';
import { AUTH_ENDPOINTS } from '../../../runtime/auth/routes/endpoints.js';
import {
  AUTH_TAG,
  authError,
  newPassword as declaredNewPassword,
  ok,
  pkceFields as declaredPkceFields,
  PUBLIC_SECURITY,
  redirectToParameter,
  tooMany,
  unauthorizedKey,
} from '../../../runtime/auth/routes/endpoint-parts.js';
import { schemaRef, type JsonSchema } from './json-schema.js';

/**
 * The GoTrue-compatible auth API (section 4.1 of the service document) as the
 * runtime serves it at `/auth/v1`: the same for every project, so it is data here.
 */


const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
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

const serverError = authError('Unexpected failure (`unexpected_failure`).');

const json = (schema: JsonSchema): JsonSchema => ({ 'application/json': { schema } });
const body = (schema: JsonSchema, required = true): JsonSchema => ({ required, content: json(schema) });
const object = (properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema => ({
  type: 'object',
  required: [...required],
  properties,
});
const queryParam = (name: string, description: string, schema: JsonSchema, required = false): JsonSchema => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});

const email: JsonSchema = { type: 'string', format: 'email' };
const phone: JsonSchema = { type: 'string', description: 'E.164, `+` optional (400 `validation_failed` otherwise); stored and answered without `+`.', example: '+15555550100' };
const channel: JsonSchema = { type: 'string', enum: ['sms', 'whatsapp'], description: 'How the code is sent (default `sms`; `whatsapp` through Twilio or the send-SMS hook).' };
const pkceFields: Record<string, JsonSchema> = Object.fromEntries(Object.entries(declaredPkceFields).map(([name, schema]) => [name, jsonSchema(schema)]));
const newPassword: JsonSchema = jsonSchema(declaredNewPassword);
const redirectTo = redirectToParameter;

/** The user endpoints take a user's access token. */
const PUBLIC = PUBLIC_SECURITY;
const USER = [{ apikey: [], bearer: [] }, { bearer: [] }];

function op(operationId: string, summary: string, security: readonly unknown[], fields: Record<string, unknown>): JsonSchema {
  return { tags: [AUTH_TAG], operationId: `auth.${operationId}`, summary, security: [...security], ...fields };
}

const passkeyId = { name: 'passkey_id', in: 'path', required: true, description: 'The passkey id.', schema: { type: 'string', format: 'uuid' } };
const passkeysOff = authError('Passkeys are switched off for the project (`passkey_disabled`).');
/** Registering, renaming and deleting a passkey: once the user has a verified MFA factor, only from an aal2 session. */
const passkeyManagerErrors = {
  '401': authError('No access token (`no_authorization`).'),
  '403': authError('Invalid token (`bad_jwt`), or a verified MFA factor and a session that is not aal2 (`insufficient_aal`).'),
};
/** Registering: also refused to anonymous users, as GoTrue's requireNotAnonymous. */
const passkeyRegistrarErrors = {
  ...passkeyManagerErrors,
  '403': authError('Invalid token (`bad_jwt`), an anonymous user (`no_authorization`), or a verified MFA factor and a session that is not aal2 (`insufficient_aal`).'),
};
const passkeyVerifyBody = (credential: string): JsonSchema =>
  object({ challenge_id: { type: 'string', format: 'uuid', description: 'From the options answer.' }, credential: metadata(credential) }, ['challenge_id', 'credential']);
const factorId = { name: 'factor_id', in: 'path', required: true, description: 'The factor id.', schema: { type: 'string', format: 'uuid' } };
const linkTypes = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email'];

/** `/auth/v1/...` path items of the endpoints not declared in runtime/auth/routes/endpoints.ts yet. */
const handKeptPaths: Readonly<Record<string, JsonSchema>> = {
  '/auth/v1/signup': {
    post: op('signUp', 'Sign up with e-mail or phone and password, or anonymously', PUBLIC, {
      description:
        'Creates a user. With auto-confirm on, the user is confirmed and signed in; otherwise a confirmation link is e-mailed ' +
        'and `session` is null (an address already registered gets the same answer, so sign-up does not reveal accounts). ' +
        'Neither e-mail nor phone: an anonymous sign-in (when `auth.anonymous_users` is on), answered with a session. ' +
        'A `phone` (when the project has an SMS sender) is texted a code to confirm it (`/verify` type `sms`), or with `auth.sms.autoconfirm` signed in at once.',
      parameters: [redirectTo],
      requestBody: body(
        object({
          email,
          phone,
          channel,
          password: newPassword,
          data: metadata('Stored as `user_metadata`.'),
          redirect_to: { type: 'string', format: 'uri' },
          ...pkceFields,
        }),
      ),
      responses: {
        '200': ok('Signed up.', schemaRef('SignUpResponse')),
        '400': authError('Invalid e-mail or phone number, or missing password (`validation_failed`), or a phone number without an SMS sender (`phone_provider_disabled`).'),
        '401': unauthorizedKey,
        '422': authError(
          'Sign-ups are off (`signup_disabled`), anonymous sign-ins are off (`anonymous_provider_disabled`), a weak password (`weak_password`), ' +
            'with auto-confirm an address or number already registered (`user_already_exists`), or the SMS provider refused the text (`sms_send_failed`).',
        ),
        '429': tooMany,
        '500': serverError,
      },
    }),
  },
  '/auth/v1/token': {
    post: op('token', 'Sign in (password grant), refresh a session (refresh_token grant) or exchange a PKCE code (pkce grant)', PUBLIC, {
      description:
        'Password grant: rejected for an unconfirmed e-mail (`email_not_confirmed`) or a banned account (`user_banned`). ' +
        'Refresh grant: the refresh token is revoked and a new session (new refresh token) is returned. ' +
        'PKCE grant: the `code` an e-mailed link redirected with, and the verifier whose challenge the request that sent the mail carried.',
      parameters: [queryParam('grant_type', 'The grant.', { type: 'string', enum: ['password', 'refresh_token', 'pkce'] }, true)],
      requestBody: body({
        anyOf: [
          { ...object({ email, password: { type: 'string' } }, ['email', 'password']), title: 'PasswordGrant' },
          { ...object({ phone, password: { type: 'string' } }, ['phone', 'password']), title: 'PhonePasswordGrant' },
          { ...object({ refresh_token: { type: 'string' } }, ['refresh_token']), title: 'RefreshTokenGrant' },
          { ...object({ auth_code: { type: 'string' }, code_verifier: { type: 'string' } }, ['auth_code', 'code_verifier']), title: 'PkceGrant' },
        ],
      }),
      responses: {
        '200': ok('A session.', schemaRef('Session')),
        '400': authError(
          'Wrong credentials (`invalid_credentials`), unconfirmed e-mail or phone (`email_not_confirmed`, `phone_not_confirmed`), banned (`user_banned`), ' +
            'unknown, revoked or reused refresh token (`refresh_token_not_found`, `session_not_found`, `refresh_token_already_used`), ' +
            'a PKCE verifier that does not match the code (`bad_code_verifier`).',
        ),
        '401': unauthorizedKey,
        '404': authError('PKCE grant: an unknown or used code (`flow_state_not_found`).'),
        '422': authError('PKCE grant: an expired code (`flow_state_expired`); a phone without an SMS sender (`phone_provider_disabled`).'),
        '429': tooMany,
        '503': authError('Temporarily unavailable; retry.'),
      },
    }),
  },
  '/auth/v1/verify': {
    get: op('verify', 'Follow an e-mailed link (confirmation, recovery or e-mail change)', [{}, ...PUBLIC], {
      description:
        '`type=signup` (or `email_change`: sets the new address): confirms the e-mail and returns a session (JSON), or a confirmation page for browsers (`Accept: text/html`). ' +
        '`type=invite` and `type=magiclink`: sign in (an invite confirms the address). ' +
        '`type=recovery`: tells whether the token is valid (JSON) or shows a reset-password form (browsers). With `redirect_to`, ' +
        'redirects (303) there with the session or the error in the URL fragment; a link sent with a PKCE challenge redirects with `?code=` instead.',
      parameters: [
        queryParam('token', 'The token from the e-mailed link.', { type: 'string' }, true),
        queryParam('type', 'The link type (`email`: a confirmation or a magic link, whichever the token is).', { type: 'string', enum: linkTypes }, true),
        redirectTo,
      ],
      responses: {
        '200': {
          description: 'Confirmed (session) or a valid recovery token.',
          content: {
            'application/json': {
              schema: {
                anyOf: [
                  schemaRef('Session'),
                  object({ message: { type: 'string' }, type: { type: 'string', enum: ['recovery'] }, valid: { type: 'boolean', enum: [true] } }, [
                    'message',
                    'type',
                    'valid',
                  ]),
                ],
              },
            },
            'text/html': { schema: { type: 'string' } },
          },
        },
        '303': { description: 'Redirect to `redirect_to`.', headers: { Location: { schema: { type: 'string' } } } },
        '400': authError('Missing token or type (`validation_failed`).'),
        '401': unauthorizedKey,
        '403': authError('Invalid or expired link (`otp_expired`), or banned (`user_banned`).'),
        '422': authError('E-mail change: the new address was registered meanwhile (`email_exists`).'),
        '429': tooMany,
      },
    }),
    post: op('verifyOtp', 'Redeem a link token or a mailed or texted code (supabase-js verifyOtp)', PUBLIC, {
      description: 'With `phone`: type `sms` confirms the number (or signs in with a texted code), `phone_change` moves the account to the number a code was texted to.',
      requestBody: body(
        object(
          {
            type: { type: 'string', enum: [...linkTypes, 'sms', 'phone_change'] },
            token_hash: { type: 'string', description: 'The token of a link (`hashed_token` of generate_link).' },
            token: { type: 'string', description: 'The code of a mail (with `email`) or a text (with `phone`).' },
            email,
            phone,
          },
          ['type'],
        ),
      ),
      responses: {
        '200': ok('A session; or, for the first of a secure e-mail change\'s two confirmations, `{msg, code: "200"}` and no session.', {
          oneOf: [schemaRef('Session'), object({ msg: { type: 'string' }, code: { type: 'string' } }, ['msg', 'code'])],
        }),
        '400': authError('Missing token or type, or an invalid phone number (`validation_failed`).'),
        '401': unauthorizedKey,
        '403': authError('Invalid or expired token (`otp_expired`), or banned (`user_banned`).'),
        '422': authError('E-mail or phone change: the new address or number was registered meanwhile (`email_exists`, `phone_exists`).'),
        '429': tooMany,
      },
    }),
  },
  '/auth/v1/otp': {
    post: op('signInWithOtp', 'E-mail a sign-in link and code, or text a code (passwordless)', PUBLIC, {
      description:
        'A confirmed account is mailed a magic link and a 6-digit code (`/verify` type `magiclink`, or POST `/verify` with `email` and `token`); ' +
        'an unconfirmed one its confirmation mail; an unknown address is signed up password-less unless `create_user` is false or sign-ups are off. ' +
        'The answer is `{}` whatever the address, so it does not reveal accounts. ' +
        'A `phone` is texted a code before the answer, as GoTrue does (POST `/verify` type `sms`); an unknown number is signed up unless `create_user` is false ' +
        '(422 `otp_disabled`); the answer is `{}` or `{message_id}`.',
      parameters: [redirectTo],
      requestBody: body(
        object(
          {
            email,
            phone,
            channel,
            create_user: { type: 'boolean', description: 'Sign an unknown address up (default true).' },
            data: metadata('`user_metadata` of a user signed up here.'),
            ...pkceFields,
          },
          [],
        ),
      ),
      responses: {
        '200': ok('Accepted.', schemaRef('Empty')),
        '400': authError('Invalid e-mail or phone number (`validation_failed`), or a phone number without an SMS sender (`phone_provider_disabled`).'),
        '401': unauthorizedKey,
        '422': authError('An unknown number with `create_user` false (`otp_disabled`), or the SMS provider refused the text (`sms_send_failed`).'),
        '429': authError('Too many requests (`over_request_rate_limit`), or texts (`over_sms_send_rate_limit`: within `auth.sms.max_frequency` of the last code, or over `auth.rate_limit.sms_sent`).'),
      },
    }),
  },
  '/auth/v1/magiclink': {
    post: op('magicLink', 'E-mail a magic link (older entry point of /otp)', PUBLIC, {
      description: 'As `/otp` with `create_user` true. The answer is `{}` whatever the address.',
      parameters: [redirectTo],
      requestBody: body(object({ email, data: metadata('`user_metadata` of a user signed up here.') }, ['email'])),
      responses: {
        '200': ok('Accepted.', schemaRef('Empty')),
        '401': unauthorizedKey,
        '422': authError('No or an invalid e-mail (`validation_failed`).'),
        '429': tooMany,
      },
    }),
  },
  '/auth/v1/resend': {
    post: op('resend', 'Send a confirmation or e-mail change link again', PUBLIC, {
      description: '`type=signup`: a new confirmation link for an address that awaits confirmation; `type=email_change`: a new link ' +
        'to the pending new address of the account with this address. The same answer whether or not either exists. ' +
        '`type=sms`: a new code for a `phone` that awaits confirmation; `type=phone_change`: a new code to the pending new number ' +
        '(answered `{}` or `{message_id}`).',
      parameters: [redirectTo],
      requestBody: body(object({
        type: { type: 'string', enum: ['signup', 'email_change', 'sms', 'phone_change'] },
        email,
        phone,
        redirect_to: { type: 'string', format: 'uri' },
      }, ['type'])),
      responses: {
        '200': ok('Accepted.', schemaRef('Message')),
        '400': authError('Invalid e-mail, phone number or type (`validation_failed`).'),
        '401': unauthorizedKey,
        '429': tooMany,
      },
    }),
  },
  '/auth/v1/user': {
    get: op('getUser', 'The signed-in user', USER, {
      responses: {
        '200': ok('The user.', schemaRef('User')),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid or expired token (`bad_jwt`), user or session gone (`user_not_found`, `session_not_found`) or banned (`user_banned`).'),
      },
    }),
    put: op('updateUser', 'Update the signed-in user', USER, {
      description:
        'A new password signs out the other devices; with `auth.update_password_require_reauthentication` on it needs the `nonce` ' +
        'mailed by `/reauthenticate` (unless the session signed in within the last 24 hours). A new `email` changes at once with ' +
        'autoconfirm; otherwise it is mailed a link (`/verify?type=email_change`) and shown as `new_email` until that is followed. ' +
        'A new `phone` changes at once with `auth.sms.autoconfirm`; otherwise it is texted a code (POST `/verify` type `phone_change`) and shown as `new_phone`.',
      parameters: [redirectTo],
      requestBody: body(
        object({
          email,
          phone,
          channel,
          password: newPassword,
          nonce: { type: 'string', description: 'The reauthentication code, with a new password.' },
          data: metadata('Merged into `user_metadata`.'),
          ...pkceFields,
        }),
      ),
      responses: {
        '200': ok('The updated user.', schemaRef('User')),
        '400': authError('Invalid input (`validation_failed`), or a new password without the nonce it needs (`reauthentication_needed`).'),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid or expired token (`bad_jwt`); `app_metadata` is admin-only (`not_admin`); user or session gone; banned.'),
        '422': authError(
          'Weak password or the same as before (`weak_password`, `same_password`), the e-mail or number is taken (`email_exists`, `phone_exists`), ' +
            'no SMS sender (`phone_provider_disabled`), the SMS provider refused the text (`sms_send_failed`), or a wrong or expired nonce (`reauthentication_not_valid`).',
        ),
        '429': tooMany,
      },
    }),
  },
  '/auth/v1/reauthenticate': {
    get: op('reauthenticate', 'E-mail a nonce for a password change', USER, {
      description: 'The nonce goes with the new password to `PUT /user` when `auth.update_password_require_reauthentication` is on.',
      responses: {
        '200': ok('Mailed.', schemaRef('Empty')),
        '400': authError('The user has no e-mail address (`validation_failed`).'),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid or expired token (`bad_jwt`), user or session gone, or banned.'),
        '422': authError('The address is not confirmed (`email_not_confirmed`).'),
        '429': authError('A nonce was mailed moments ago (`over_email_send_rate_limit`).'),
      },
    }),
  },
  '/auth/v1/logout': {
    post: op('logout', 'Sign out', USER, {
      description: 'Revokes refresh tokens: of every session (`global`, the default), this one (`local`) or the others (`others`).',
      parameters: [queryParam('scope', 'Which sessions.', { type: 'string', enum: ['global', 'local', 'others'] })],
      responses: {
        '204': { description: 'Signed out.' },
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid or expired token (`bad_jwt`), user or session gone, or banned.'),
      },
    }),
  },
  '/auth/v1/passkeys/registration/options': {
    post: op('passkeyRegistrationOptions', 'Start registering a passkey for the signed-in user', USER, {
      description:
        'Creation options for a discoverable credential of the project\'s relying party (`auth.webauthn.rp_id` / `rp_origins`), the user\'s passkeys excluded; ' +
        'the challenge serves one `/passkeys/registration/verify` by this user within 5 minutes. Served with `auth.passkey.enabled`.',
      requestBody: body(object({}), false),
      responses: {
        '200': ok('The ceremony to run in the browser.', schemaRef('PasskeyCeremony')),
        ...passkeyRegistrarErrors,
        '404': passkeysOff,
        '422': authError('10 passkeys already (`too_many_passkeys`).'),
      },
    }),
  },
  '/auth/v1/passkeys/registration/verify': {
    post: op('passkeyRegistrationVerify', 'Finish registering a passkey', USER, {
      description: "Checks the attestation against the challenge, the relying party and an allowed origin, and stores the credential (named `Passkey`).",
      requestBody: body(passkeyVerifyBody('The `PublicKeyCredential` from `navigator.credentials.create()`, as JSON.')),
      responses: {
        '200': ok('The new passkey.', object({ id: { type: 'string', format: 'uuid' }, friendly_name: { type: 'string' }, created_at: dateTime }, ['id', 'friendly_name', 'created_at'])),
        '400': authError(
          'Missing or malformed `challenge_id` or `credential` (`validation_failed`), an unknown, used or another user\'s challenge (`webauthn_challenge_not_found`), ' +
            'an expired one (`webauthn_challenge_expired`), or an attestation that does not verify (`webauthn_verification_failed`).',
        ),
        ...passkeyRegistrarErrors,
        '404': passkeysOff,
        '422': authError('10 passkeys already (`too_many_passkeys`), or the credential is registered (`webauthn_credential_exists`).'),
      },
    }),
  },
  '/auth/v1/passkeys/authentication/options': {
    post: op('passkeyAuthenticationOptions', 'Start signing in with a passkey', PUBLIC, {
      description:
        'Request options for a discoverable sign-in (no credential named); the challenge serves one `/passkeys/authentication/verify` within 5 minutes. ' +
        'Counts against `auth.rate_limit.passkey` per client IP, as in Supabase Auth.',
      requestBody: body(object({}), false),
      responses: {
        '200': ok('The ceremony to run in the browser.', schemaRef('PasskeyCeremony')),
        '401': unauthorizedKey,
        '404': passkeysOff,
        '429': tooMany,
      },
    }),
  },
  '/auth/v1/passkeys/authentication/verify': {
    post: op('passkeyAuthenticationVerify', 'Finish signing in with a passkey', PUBLIC, {
      description:
        "Checks the assertion with the stored public key; its user handle must name the passkey's owner and its signature counter must move past the stored one. " +
        'Then a session as from a password, `amr` `[{ method: "passkey" }]`.',
      requestBody: body(passkeyVerifyBody('The `PublicKeyCredential` from `navigator.credentials.get()`, as JSON.')),
      responses: {
        '200': ok('A session.', schemaRef('Session')),
        '400': authError(
          'Missing or malformed `challenge_id` or `credential` (`validation_failed`), an unknown or used challenge (`webauthn_challenge_not_found`), ' +
            'an expired one (`webauthn_challenge_expired`), or an assertion that does not verify (`webauthn_verification_failed`).',
        ),
        '401': unauthorizedKey,
        '403': authError('The e-mail is not confirmed (`email_not_confirmed`), or the user is banned (`user_banned`).'),
        '404': passkeysOff,
      },
    }),
  },
  '/auth/v1/passkeys': {
    get: op('listPasskeys', "The signed-in user's passkeys", USER, {
      responses: {
        '200': ok('The passkeys, oldest first.', { type: 'array', items: schemaRef('Passkey') }),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid token (`bad_jwt`).'),
        '404': passkeysOff,
      },
    }),
  },
  '/auth/v1/passkeys/{passkey_id}': {
    patch: op('updatePasskey', "Rename one of the signed-in user's passkeys", USER, {
      parameters: [passkeyId],
      requestBody: body(object({ friendly_name: { type: 'string', minLength: 1, maxLength: 120 } }, ['friendly_name'])),
      responses: {
        '200': ok('The renamed passkey.', schemaRef('Passkey')),
        '400': authError('A blank or too long name (`validation_failed`).'),
        ...passkeyManagerErrors,
        '404': authError('Not a passkey of this user (`validation_failed`), or passkeys switched off (`passkey_disabled`).'),
      },
    }),
    delete: op('deletePasskey', "Delete one of the signed-in user's passkeys", USER, {
      parameters: [passkeyId],
      responses: {
        '204': { description: 'Deleted.' },
        ...passkeyManagerErrors,
        '404': authError('Not a passkey of this user (`validation_failed`), or passkeys switched off (`passkey_disabled`).'),
      },
    }),
  },
  '/auth/v1/factors': {
    post: op('mfaEnroll', 'Enroll a TOTP, WebAuthn or phone factor', USER, {
      description:
        'TOTP: returns the secret and a QR code for an authenticator app. WebAuthn (`auth.mfa.webauthn.enabled`): the first challenge registers the credential. ' +
        'Phone (`auth.mfa.phone.enabled`): each challenge texts a code to `phone`. ' +
        'The factor is `unverified` until its first challenge is verified.',
      requestBody: body(
        object(
          {
            factor_type: { type: 'string', enum: ['totp', 'webauthn', 'phone'] },
            friendly_name: { type: 'string' },
            phone: { ...phone, description: 'The number of a phone factor (E.164).' },
            issuer: { type: 'string', description: 'Shown by the authenticator app (default: the site URL\'s host).' },
          },
          ['factor_type'],
        ),
      ),
      responses: {
        '200': ok(
          'The new factor.',
          object(
            {
              id: { type: 'string', format: 'uuid' },
              type: { type: 'string', enum: ['totp', 'webauthn', 'phone'] },
              friendly_name: { type: 'string' },
              phone: { type: 'string', description: "A phone factor's number, as it was given." },
              totp: object({ qr_code: { type: 'string', description: 'An SVG image.' }, secret: { type: 'string' }, uri: { type: 'string' } }, ['qr_code', 'secret', 'uri']),
            },
            ['id', 'type'],
          ),
        ),
        '400': authError('Not a factor type, or a phone factor without a valid number (`validation_failed`).'),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid token (`bad_jwt`), an anonymous user (`no_authorization`), or a verified factor exists and the session is not aal2 (`insufficient_aal`).'),
        '422': authError('Phone or WebAuthn factors switched off (`mfa_phone_enroll_not_enabled`, `mfa_webauthn_enroll_not_enabled`), a verified phone factor for the number (`mfa_verified_factor_exists`), a name in use (`mfa_factor_name_conflict`), or too many factors (`too_many_enrolled_mfa_factors`).'),
      },
    }),
  },
  '/auth/v1/factors/{factor_id}/challenge': {
    post: op('mfaChallenge', 'Challenge a factor', USER, {
      description:
        'A WebAuthn factor is challenged with the project\'s relying party (`auth.webauthn.rp_id` / `rp_origins`): as in Supabase Auth, ' +
        'the `rpId` and `rpOrigins` supabase-js sends under `webauthn` do not choose it. A phone factor is texted a code (at most once per `auth.sms.max_frequency` seconds).',
      parameters: [factorId],
      requestBody: body(object({ webauthn: object({ rpId: { type: 'string' }, rpOrigins: { type: 'array', items: { type: 'string' } } }), channel }), false),
      responses: {
        '200': ok(
          'The challenge, to verify from the same IP address.',
          object(
            {
              id: { type: 'string', format: 'uuid' },
              type: { type: 'string', enum: ['totp', 'webauthn', 'phone'] },
              expires_at: { type: 'integer', description: 'Unix time (seconds).' },
              webauthn: object(
                {
                  type: { type: 'string', enum: ['create', 'request'], description: '`create` registers the credential of an unverified factor, `request` asserts with it.' },
                  credential_options: object({ publicKey: metadata('WebAuthn PublicKeyCredentialCreationOptions or RequestOptions, as JSON.') }, ['publicKey']),
                },
                ['type', 'credential_options'],
              ),
            },
            ['id', 'type', 'expires_at'],
          ),
        ),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid token (`bad_jwt`) or an anonymous user (`no_authorization`).'),
        '404': authError('Not a factor of this user (`mfa_factor_not_found`).'),
        '422': authError('A WebAuthn or phone factor with those switched off (`mfa_webauthn_verify_not_enabled`, `mfa_phone_verify_not_enabled`).'),
        '429': authError('Too many requests (`over_request_rate_limit`), or a phone factor challenged again too soon (`over_sms_send_rate_limit`).'),
        '500': authError('The SMS provider refused the text (`unexpected_failure`, `error sending message`).'),
      },
    }),
  },
  '/auth/v1/factors/{factor_id}/verify': {
    post: op('mfaVerify', 'Verify a challenge with a TOTP code or a WebAuthn response', USER, {
      description: 'Raises the session to aal2 (a new access and refresh token); the first verification also verifies the factor.',
      parameters: [factorId],
      requestBody: body(
        object(
          {
            challenge_id: { type: 'string', format: 'uuid' },
            code: { type: 'string', description: 'The 6-digit code (TOTP), or the code texted for a phone factor.' },
            webauthn: object(
              {
                type: { type: 'string', enum: ['create', 'request'], description: 'As the challenge answered: `create` for the first verify of a new factor, `request` after.' },
                credential_response: metadata('The PublicKeyCredential from `navigator.credentials.create()` or `.get()`, as JSON.'),
                rpId: { type: 'string', description: 'Sent by supabase-js; the project\'s relying party is used.' },
                rpOrigins: { type: 'array', items: { type: 'string' }, description: 'Sent by supabase-js; the project\'s origins are used.' },
              },
              ['type', 'credential_response'],
            ),
          },
          ['challenge_id'],
        ),
      ),
      responses: {
        '200': ok('The raised session.', schemaRef('Session')),
        '400': authError('Missing code, or for a WebAuthn factor a missing `webauthn`, a `type` other than `create`/`request` or no `credential_response` (`validation_failed`).'),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid token (`bad_jwt`) or an anonymous user (`no_authorization`).'),
        '404': authError('Not a factor of this user (`mfa_factor_not_found`).'),
        '422': authError(
          'Wrong code or a WebAuthn response that does not verify (`mfa_verification_failed`), unknown or expired challenge (`mfa_factor_not_found`, `mfa_challenge_expired`), ' +
            'verified from another IP address (`mfa_ip_address_mismatch`), or a WebAuthn or phone factor with those switched off (`mfa_webauthn_verify_not_enabled`, `mfa_phone_verify_not_enabled`).',
        ),
        '429': tooMany,
      },
    }),
  },
  '/auth/v1/factors/{factor_id}': {
    delete: op('mfaUnenroll', 'Unenroll a factor', USER, {
      description: 'A verified factor needs an aal2 session.',
      parameters: [factorId],
      responses: {
        '200': ok('Unenrolled.', object({ id: { type: 'string', format: 'uuid' } }, ['id'])),
        '401': authError('No access token (`no_authorization`).'),
        '403': authError('Invalid token (`bad_jwt`) or an anonymous user (`no_authorization`).'),
        '404': authError('Not a factor of this user (`mfa_factor_not_found`).'),
        '422': authError('A verified factor from an aal1 session (`insufficient_aal`).'),
      },
    }),
  },
};

/** `/auth/v1/...` path items: the declared endpoints' and the hand-kept ones. */
export const authPaths: Readonly<Record<string, JsonSchema>> = { ...handKeptPaths, ...openApiPaths(AUTH_ENDPOINTS) };

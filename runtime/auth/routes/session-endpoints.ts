import { Type } from '@sinclair/typebox';
import { declareEndpoint, schemaRef, type BodyOf, type DeclaredFields, type EndpointDeclaration, type QueryOf } from '../../http/endpoint.js';
import {
  authError,
  channel,
  email,
  fields,
  metadata,
  newPassword,
  objectSchema,
  ok,
  OPEN_SECURITY,
  operation,
  phone,
  pkceFields,
  PUBLIC_SECURITY,
  redirectToField,
  redirectToParameter,
  serverError,
  tooMany,
  typed,
  unauthorizedKey,
  USER_SECURITY,
} from './endpoint-parts.js';

/**
 * Signing up and in, declared once (runtime/http/endpoint.ts): sign-up, the token grants, the mailed and
 * texted codes and links and their verification, sign-out. The routes (signup.ts, token.ts, otp.ts,
 * resend.ts, verify.ts, user.ts) read the declared fields only.
 */

const LINK_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email'] as const;
type LinkType = (typeof LINK_TYPES)[number];

const optionalEmail = Type.Optional(email);
const optionalPhone = Type.Optional(phone);

export const sessionEndpoints = {
  signup: declareEndpoint({
    method: 'post',
    path: '/auth/v1/signup',
    ...operation('signUp'),
    summary: 'Sign up with e-mail or phone and password, or anonymously',
    description:
      'Creates a user. With auto-confirm on, the user is confirmed and signed in; otherwise a confirmation link is e-mailed ' +
      'and `session` is null (an address already registered gets the same answer, so sign-up does not reveal accounts). ' +
      'Neither e-mail nor phone: an anonymous sign-in (when `auth.anonymous_users` is on), answered with a session. ' +
      'A `phone` (when the project has an SMS sender) is texted a code to confirm it (`/verify` type `sms`), or with `auth.sms.autoconfirm` signed in at once.',
    security: PUBLIC_SECURITY,
    parameters: [redirectToParameter],
    body: {
      schema: fields({
        email: optionalEmail,
        phone: optionalPhone,
        channel: Type.Optional(channel),
        password: Type.Optional(newPassword),
        data: Type.Optional(metadata('Stored as `user_metadata`.')),
        redirect_to: redirectToField,
        ...pkceFields,
      }),
    },
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
  token: declareEndpoint({
    method: 'post',
    path: '/auth/v1/token',
    ...operation('token'),
    summary: 'Sign in (password grant), refresh a session (refresh_token grant) or exchange a PKCE code (pkce grant)',
    description:
      'Password grant: rejected for an unconfirmed e-mail (`email_not_confirmed`) or a banned account (`user_banned`). ' +
      'Refresh grant: the refresh token is revoked and a new session (new refresh token) is returned. ' +
      'PKCE grant: the `code` an e-mailed link redirected with, and the verifier whose challenge the request that sent the mail carried.',
    security: PUBLIC_SECURITY,
    query: Type.Object({
      grant_type: typed<'password' | 'refresh_token' | 'pkce'>({ type: 'string', enum: ['password', 'refresh_token', 'pkce'], description: 'The grant.' }),
    }),
    body: {
      schema: Type.Union([
        Type.Object({ email, password: Type.String() }, { title: 'PasswordGrant' }),
        Type.Object({ phone, password: Type.String() }, { title: 'PhonePasswordGrant' }),
        Type.Object({ refresh_token: Type.String() }, { title: 'RefreshTokenGrant' }),
        Type.Object({ auth_code: Type.String(), code_verifier: Type.String() }, { title: 'PkceGrant' }),
      ]),
    },
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
  verifyLink: declareEndpoint({
    method: 'get',
    path: '/auth/v1/verify',
    ...operation('verify'),
    summary: 'Follow an e-mailed link (confirmation, recovery or e-mail change)',
    description:
      '`type=signup` (or `email_change`: sets the new address): confirms the e-mail and returns a session (JSON), or a confirmation page for browsers (`Accept: text/html`). ' +
      '`type=invite` and `type=magiclink`: sign in (an invite confirms the address). ' +
      '`type=recovery`: tells whether the token is valid (JSON) or shows a reset-password form (browsers). With `redirect_to`, ' +
      'redirects (303) there with the session or the error in the URL fragment; a link sent with a PKCE challenge redirects with `?code=` instead.',
    security: [...OPEN_SECURITY, ...PUBLIC_SECURITY],
    query: Type.Object({
      token: Type.String({ description: 'The token from the e-mailed link.' }),
      type: typed<LinkType>({ type: 'string', enum: [...LINK_TYPES], description: 'The link type (`email`: a confirmation or a magic link, whichever the token is).' }),
    }),
    parameters: [redirectToParameter],
    responses: {
      '200': {
        description: 'Confirmed (session) or a valid recovery token.',
        content: {
          'application/json': {
            schema: {
              anyOf: [
                schemaRef('Session'),
                objectSchema({ message: { type: 'string' }, type: { type: 'string', enum: ['recovery'] }, valid: { type: 'boolean', enum: [true] } }, ['message', 'type', 'valid']),
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
  verifyOtp: declareEndpoint({
    method: 'post',
    path: '/auth/v1/verify',
    ...operation('verifyOtp'),
    summary: 'Redeem a link token or a mailed or texted code (supabase-js verifyOtp)',
    description: 'With `phone`: type `sms` confirms the number (or signs in with a texted code), `phone_change` moves the account to the number a code was texted to.',
    security: PUBLIC_SECURITY,
    body: {
      schema: Type.Object({
        type: typed<LinkType | 'sms' | 'phone_change'>({ type: 'string', enum: [...LINK_TYPES, 'sms', 'phone_change'] }),
        token_hash: Type.Optional(Type.String({ description: 'The token of a link (`hashed_token` of generate_link).' })),
        token: Type.Optional(Type.String({ description: 'The code of a mail (with `email`) or a text (with `phone`).' })),
        email: optionalEmail,
        phone: optionalPhone,
        redirect_to: Type.Optional(Type.String({ format: 'uri', description: 'Refused with `token_hash` (`validation_failed`), as GoTrue.' })),
      }),
    },
    responses: {
      '200': ok('A session; or, for the first of a secure e-mail change\'s two confirmations, `{msg, code: "200"}` and no session.', {
        oneOf: [schemaRef('Session'), objectSchema({ msg: { type: 'string' }, code: { type: 'string' } }, ['msg', 'code'])],
      }),
      '400': authError('Missing token or type, or an invalid phone number (`validation_failed`).'),
      '401': unauthorizedKey,
      '403': authError('Invalid or expired token (`otp_expired`), or banned (`user_banned`).'),
      '422': authError('E-mail or phone change: the new address or number was registered meanwhile (`email_exists`, `phone_exists`).'),
      '429': tooMany,
    },
  }),
  otp: declareEndpoint({
    method: 'post',
    path: '/auth/v1/otp',
    ...operation('signInWithOtp'),
    summary: 'E-mail a sign-in link and code, or text a code (passwordless)',
    description:
      'A confirmed account is mailed a magic link and a 6-digit code (`/verify` type `magiclink`, or POST `/verify` with `email` and `token`); ' +
      'an unconfirmed one its confirmation mail; an unknown address is signed up password-less unless `create_user` is false or sign-ups are off. ' +
      'The answer is `{}` whatever the address, so it does not reveal accounts. ' +
      'A `phone` is texted a code before the answer, as GoTrue does (POST `/verify` type `sms`); an unknown number is signed up unless `create_user` is false ' +
      '(422 `otp_disabled`); the answer is `{}` or `{message_id}`.',
    security: PUBLIC_SECURITY,
    parameters: [redirectToParameter],
    body: {
      schema: fields({
        email: optionalEmail,
        phone: optionalPhone,
        channel: Type.Optional(channel),
        create_user: Type.Optional(Type.Boolean({ description: 'Sign an unknown address up (default true).' })),
        data: Type.Optional(metadata('`user_metadata` of a user signed up here.')),
        ...pkceFields,
      }),
    },
    responses: {
      '200': ok('Accepted.', schemaRef('Empty')),
      '400': authError('Invalid e-mail or phone number (`validation_failed`), or a phone number without an SMS sender (`phone_provider_disabled`).'),
      '401': unauthorizedKey,
      '422': authError('An unknown number with `create_user` false (`otp_disabled`), or the SMS provider refused the text (`sms_send_failed`).'),
      '429': authError('Too many requests (`over_request_rate_limit`), or texts (`over_sms_send_rate_limit`: within `auth.sms.max_frequency` of the last code, or over `auth.rate_limit.sms_sent`).'),
    },
  }),
  magiclink: declareEndpoint({
    method: 'post',
    path: '/auth/v1/magiclink',
    ...operation('magicLink'),
    summary: 'E-mail a magic link (older entry point of /otp)',
    description: 'As `/otp` with `create_user` true. The answer is `{}` whatever the address.',
    security: PUBLIC_SECURITY,
    parameters: [redirectToParameter],
    body: { schema: Type.Object({ email, data: Type.Optional(metadata('`user_metadata` of a user signed up here.')), ...pkceFields }) },
    responses: {
      '200': ok('Accepted.', schemaRef('Empty')),
      '401': unauthorizedKey,
      '422': authError('No or an invalid e-mail (`validation_failed`).'),
      '429': tooMany,
    },
  }),
  resend: declareEndpoint({
    method: 'post',
    path: '/auth/v1/resend',
    ...operation('resend'),
    summary: 'Send a confirmation or e-mail change link again',
    description:
      '`type=signup`: a new confirmation link for an address that awaits confirmation; `type=email_change`: a new link ' +
      'to the pending new address of the account with this address. The same answer whether or not either exists. ' +
      '`type=sms`: a new code for a `phone` that awaits confirmation; `type=phone_change`: a new code to the pending new number ' +
      '(answered `{}` or `{message_id}`).',
    security: PUBLIC_SECURITY,
    parameters: [redirectToParameter],
    body: {
      schema: Type.Object({
        type: typed<'signup' | 'email_change' | 'sms' | 'phone_change'>({ type: 'string', enum: ['signup', 'email_change', 'sms', 'phone_change'] }),
        email: optionalEmail,
        phone: optionalPhone,
        redirect_to: redirectToField,
      }),
    },
    responses: {
      '200': ok('Accepted.', schemaRef('Message')),
      '400': authError('Invalid e-mail, phone number or type (`validation_failed`).'),
      '401': unauthorizedKey,
      '429': tooMany,
    },
  }),
  logout: declareEndpoint({
    method: 'post',
    path: '/auth/v1/logout',
    ...operation('logout'),
    summary: 'Sign out',
    description: 'Revokes refresh tokens: of every session (`global`, the default), this one (`local`) or the others (`others`).',
    security: USER_SECURITY,
    query: Type.Object({
      scope: Type.Optional(typed<'global' | 'local' | 'others'>({ type: 'string', enum: ['global', 'local', 'others'], description: 'Which sessions.' })),
    }),
    responses: {
      '204': { description: 'Signed out.' },
      '401': authError('No access token (`no_authorization`).'),
      '403': authError('Invalid or expired token (`bad_jwt`), user or session gone, or banned.'),
    },
  }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

/** The fields of each body as its readers hold them before checking them. */
export type SignupFields = DeclaredFields<BodyOf<typeof sessionEndpoints.signup>>;
export type TokenFields = DeclaredFields<BodyOf<typeof sessionEndpoints.token>>;
export type VerifyFields = DeclaredFields<BodyOf<typeof sessionEndpoints.verifyOtp>>;
export type OtpFields = DeclaredFields<BodyOf<typeof sessionEndpoints.otp>>;
export type MagicLinkFields = DeclaredFields<BodyOf<typeof sessionEndpoints.magiclink>>;
export type ResendFields = DeclaredFields<BodyOf<typeof sessionEndpoints.resend>>;
export type TokenQuery = QueryOf<typeof sessionEndpoints.token>;
export type VerifyLinkQuery = QueryOf<typeof sessionEndpoints.verifyLink>;
export type LogoutQuery = QueryOf<typeof sessionEndpoints.logout>;

import { Type } from '@sinclair/typebox';
import { declareEndpoint, jsonSchema, schemaRef, type BodyOf, type DeclaredFields, type EndpointDeclaration, type OpenApiObject } from '../../http/endpoint.js';
import {
  authError,
  channel,
  dateTime,
  fields,
  metadata,
  objectSchema,
  ok,
  operation,
  phone,
  PUBLIC_SECURITY,
  tooMany,
  typed,
  unauthorizedKey,
  USER_SECURITY,
} from './endpoint-parts.js';

/**
 * The signed-in user's second factors and passkeys, and signing in with a passkey, declared once
 * (runtime/http/endpoint.ts). The routes (factors.ts, passkeys.ts) read the declared fields only.
 */

const FACTOR_TYPES = ['totp', 'webauthn', 'phone'] as const;
const uuid = { type: 'string', format: 'uuid' } as const;
const factorParams = Type.Object({ factor_id: Type.String({ format: 'uuid', description: 'The factor id.' }) });
const passkeyParams = Type.Object({ passkey_id: Type.String({ format: 'uuid', description: 'The passkey id.' }) });

const noAccessToken = authError('No access token (`no_authorization`).');
const factorForbidden = authError('Invalid token (`bad_jwt`) or an anonymous user (`no_authorization`).');
const factorNotFound = authError('Not a factor of this user (`mfa_factor_not_found`).');
const passkeysOff = authError('Passkeys are switched off for the project (`passkey_disabled`).');
const passkeyNotFound = authError('Not a passkey of this user (`validation_failed`), or passkeys switched off (`passkey_disabled`).');
/** Registering, renaming and deleting a passkey: once the user has a verified MFA factor, only from an aal2 session. */
const passkeyManagerErrors = {
  '401': noAccessToken,
  '403': authError('Invalid token (`bad_jwt`), or a verified MFA factor and a session that is not aal2 (`insufficient_aal`).'),
};
/** Registering: also refused to anonymous users, as GoTrue's requireNotAnonymous. */
const passkeyRegistrarErrors = {
  ...passkeyManagerErrors,
  '403': authError('Invalid token (`bad_jwt`), an anonymous user (`no_authorization`), or a verified MFA factor and a session that is not aal2 (`insufficient_aal`).'),
};
/** The options endpoints take no fields: an empty object, or no body. */
const noFields = { schema: fields({}), required: false } as const;
const passkeyVerifyBody = (credential: string) =>
  Type.Object({ challenge_id: Type.String({ format: 'uuid', description: 'From the options answer.' }), credential: metadata(credential) });
const passkeyVerifyFailures = (unknownChallenge: string, failure: string): OpenApiObject =>
  authError(
    `Missing or malformed \`challenge_id\` or \`credential\` (\`validation_failed\`), ${unknownChallenge} (\`webauthn_challenge_not_found\`), ` +
      `an expired one (\`webauthn_challenge_expired\`), or ${failure} that does not verify (\`webauthn_verification_failed\`).`,
  );

export const mfaEndpoints = {
  enroll: declareEndpoint({
    method: 'post',
    path: '/auth/v1/factors',
    ...operation('mfaEnroll'),
    summary: 'Enroll a TOTP, WebAuthn or phone factor',
    description:
      'TOTP: returns the secret and a QR code for an authenticator app. WebAuthn (`auth.mfa.webauthn.enabled`): the first challenge registers the credential. ' +
      'Phone (`auth.mfa.phone.enabled`): each challenge texts a code to `phone`. ' +
      'The factor is `unverified` until its first challenge is verified.',
    security: USER_SECURITY,
    body: {
      schema: Type.Object({
        factor_type: typed<(typeof FACTOR_TYPES)[number]>({ type: 'string', enum: [...FACTOR_TYPES] }),
        friendly_name: Type.Optional(Type.String()),
        phone: Type.Optional(Type.String({ description: 'The number of a phone factor (E.164).', example: phone.example as string })),
        issuer: Type.Optional(Type.String({ description: "Shown by the authenticator app (default: the site URL's host)." })),
      }),
    },
    responses: {
      '200': ok(
        'The new factor.',
        objectSchema(
          {
            id: uuid,
            type: { type: 'string', enum: [...FACTOR_TYPES] },
            friendly_name: { type: 'string' },
            phone: { type: 'string', description: "A phone factor's number, as it was given." },
            totp: objectSchema({ qr_code: { type: 'string', description: 'An SVG image.' }, secret: { type: 'string' }, uri: { type: 'string' } }, ['qr_code', 'secret', 'uri']),
          },
          ['id', 'type'],
        ),
      ),
      '400': authError('Not a factor type, or a phone factor without a valid number (`validation_failed`).'),
      '401': noAccessToken,
      '403': authError('Invalid token (`bad_jwt`), an anonymous user (`no_authorization`), or a verified factor exists and the session is not aal2 (`insufficient_aal`).'),
      '422': authError(
        'Phone or WebAuthn factors switched off (`mfa_phone_enroll_not_enabled`, `mfa_webauthn_enroll_not_enabled`), a verified phone factor for the number (`mfa_verified_factor_exists`), a name in use (`mfa_factor_name_conflict`), or too many factors (`too_many_enrolled_mfa_factors`).',
      ),
    },
  }),
  challenge: declareEndpoint({
    method: 'post',
    path: '/auth/v1/factors/{factor_id}/challenge',
    ...operation('mfaChallenge'),
    summary: 'Challenge a factor',
    description:
      "A WebAuthn factor is challenged with the project's relying party (`auth.webauthn.rp_id` / `rp_origins`): as in Supabase Auth, " +
      'the `rpId` and `rpOrigins` supabase-js sends under `webauthn` do not choose it. A phone factor is texted a code (at most once per `auth.sms.max_frequency` seconds).',
    security: USER_SECURITY,
    params: factorParams,
    body: {
      schema: fields({
        webauthn: Type.Optional(fields({ rpId: Type.Optional(Type.String()), rpOrigins: Type.Optional(Type.Array(Type.String())) })),
        channel: Type.Optional(channel),
      }),
      required: false,
    },
    responses: {
      '200': ok(
        'The challenge, to verify from the same IP address.',
        objectSchema(
          {
            id: uuid,
            type: { type: 'string', enum: [...FACTOR_TYPES] },
            expires_at: { type: 'integer', description: 'Unix time (seconds).' },
            webauthn: objectSchema(
              {
                type: { type: 'string', enum: ['create', 'request'], description: '`create` registers the credential of an unverified factor, `request` asserts with it.' },
                credential_options: objectSchema({ publicKey: jsonSchema(metadata('WebAuthn PublicKeyCredentialCreationOptions or RequestOptions, as JSON.')) }, ['publicKey']),
              },
              ['type', 'credential_options'],
            ),
          },
          ['id', 'type', 'expires_at'],
        ),
      ),
      '401': noAccessToken,
      '403': factorForbidden,
      '404': factorNotFound,
      '422': authError('A WebAuthn or phone factor with those switched off (`mfa_webauthn_verify_not_enabled`, `mfa_phone_verify_not_enabled`).'),
      '429': authError('Too many requests (`over_request_rate_limit`), or a phone factor challenged again too soon (`over_sms_send_rate_limit`).'),
      '500': authError('The SMS provider refused the text (`unexpected_failure`, `error sending message`).'),
    },
  }),
  verify: declareEndpoint({
    method: 'post',
    path: '/auth/v1/factors/{factor_id}/verify',
    ...operation('mfaVerify'),
    summary: 'Verify a challenge with a TOTP code or a WebAuthn response',
    description: 'Raises the session to aal2 (a new access and refresh token); the first verification also verifies the factor.',
    security: USER_SECURITY,
    params: factorParams,
    body: {
      schema: Type.Object({
        challenge_id: Type.String({ format: 'uuid' }),
        code: Type.Optional(Type.String({ description: 'The 6-digit code (TOTP), or the code texted for a phone factor.' })),
        webauthn: Type.Optional(
          Type.Object({
            type: typed<'create' | 'request'>({
              type: 'string',
              enum: ['create', 'request'],
              description: 'As the challenge answered: `create` for the first verify of a new factor, `request` after.',
            }),
            credential_response: metadata('The PublicKeyCredential from `navigator.credentials.create()` or `.get()`, as JSON.'),
            rpId: Type.Optional(Type.String({ description: "Sent by supabase-js; the project's relying party is used." })),
            rpOrigins: Type.Optional(Type.Array(Type.String(), { description: "Sent by supabase-js; the project's origins are used." })),
          }),
        ),
      }),
    },
    responses: {
      '200': ok('The raised session.', schemaRef('Session')),
      '400': authError('Missing code, or for a WebAuthn factor a missing `webauthn`, a `type` other than `create`/`request` or no `credential_response` (`validation_failed`).'),
      '401': noAccessToken,
      '403': factorForbidden,
      '404': factorNotFound,
      '422': authError(
        'Wrong code or a WebAuthn response that does not verify (`mfa_verification_failed`), unknown or expired challenge (`mfa_factor_not_found`, `mfa_challenge_expired`), ' +
          'verified from another IP address (`mfa_ip_address_mismatch`), or a WebAuthn or phone factor with those switched off (`mfa_webauthn_verify_not_enabled`, `mfa_phone_verify_not_enabled`).',
      ),
      '429': tooMany,
    },
  }),
  unenroll: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/factors/{factor_id}',
    ...operation('mfaUnenroll'),
    summary: 'Unenroll a factor',
    description: 'A verified factor needs an aal2 session.',
    security: USER_SECURITY,
    params: factorParams,
    responses: {
      '200': ok('Unenrolled.', objectSchema({ id: uuid }, ['id'])),
      '401': noAccessToken,
      '403': factorForbidden,
      '404': factorNotFound,
      '422': authError('A verified factor from an aal1 session (`insufficient_aal`).'),
    },
  }),
  passkeyRegistrationOptions: declareEndpoint({
    method: 'post',
    path: '/auth/v1/passkeys/registration/options',
    ...operation('passkeyRegistrationOptions'),
    summary: 'Start registering a passkey for the signed-in user',
    description:
      "Creation options for a discoverable credential of the project's relying party (`auth.webauthn.rp_id` / `rp_origins`), the user's passkeys excluded; " +
      'the challenge serves one `/passkeys/registration/verify` by this user within 5 minutes. Served with `auth.passkey.enabled`.',
    security: USER_SECURITY,
    body: noFields,
    responses: {
      '200': ok('The ceremony to run in the browser.', schemaRef('PasskeyCeremony')),
      ...passkeyRegistrarErrors,
      '404': passkeysOff,
      '422': authError('10 passkeys already (`too_many_passkeys`).'),
    },
  }),
  passkeyRegistrationVerify: declareEndpoint({
    method: 'post',
    path: '/auth/v1/passkeys/registration/verify',
    ...operation('passkeyRegistrationVerify'),
    summary: 'Finish registering a passkey',
    description: 'Checks the attestation against the challenge, the relying party and an allowed origin, and stores the credential (named `Passkey`).',
    security: USER_SECURITY,
    body: { schema: passkeyVerifyBody('The `PublicKeyCredential` from `navigator.credentials.create()`, as JSON.') },
    responses: {
      '200': ok('The new passkey.', objectSchema({ id: uuid, friendly_name: { type: 'string' }, created_at: dateTime }, ['id', 'friendly_name', 'created_at'])),
      '400': passkeyVerifyFailures("an unknown, used or another user's challenge", 'an attestation'),
      ...passkeyRegistrarErrors,
      '404': passkeysOff,
      '422': authError('10 passkeys already (`too_many_passkeys`), or the credential is registered (`webauthn_credential_exists`).'),
    },
  }),
  passkeyAuthenticationOptions: declareEndpoint({
    method: 'post',
    path: '/auth/v1/passkeys/authentication/options',
    ...operation('passkeyAuthenticationOptions'),
    summary: 'Start signing in with a passkey',
    description:
      'Request options for a discoverable sign-in (no credential named); the challenge serves one `/passkeys/authentication/verify` within 5 minutes. ' +
      'Counts against `auth.rate_limit.passkey` per client IP, as in Supabase Auth.',
    security: PUBLIC_SECURITY,
    body: noFields,
    responses: {
      '200': ok('The ceremony to run in the browser.', schemaRef('PasskeyCeremony')),
      '401': unauthorizedKey,
      '404': passkeysOff,
      '429': tooMany,
    },
  }),
  passkeyAuthenticationVerify: declareEndpoint({
    method: 'post',
    path: '/auth/v1/passkeys/authentication/verify',
    ...operation('passkeyAuthenticationVerify'),
    summary: 'Finish signing in with a passkey',
    description:
      "Checks the assertion with the stored public key; its user handle must name the passkey's owner and its signature counter must move past the stored one. " +
      'Then a session as from a password, `amr` `[{ method: "passkey" }]`.',
    security: PUBLIC_SECURITY,
    body: { schema: passkeyVerifyBody('The `PublicKeyCredential` from `navigator.credentials.get()`, as JSON.') },
    responses: {
      '200': ok('A session.', schemaRef('Session')),
      '400': passkeyVerifyFailures('an unknown or used challenge', 'an assertion'),
      '401': unauthorizedKey,
      '403': authError('The e-mail is not confirmed (`email_not_confirmed`), or the user is banned (`user_banned`).'),
      '404': passkeysOff,
    },
  }),
  listPasskeys: declareEndpoint({
    method: 'get',
    path: '/auth/v1/passkeys',
    ...operation('listPasskeys'),
    summary: "The signed-in user's passkeys",
    security: USER_SECURITY,
    responses: {
      '200': ok('The passkeys, oldest first.', { type: 'array', items: schemaRef('Passkey') }),
      '401': noAccessToken,
      '403': authError('Invalid token (`bad_jwt`).'),
      '404': passkeysOff,
    },
  }),
  updatePasskey: declareEndpoint({
    method: 'patch',
    path: '/auth/v1/passkeys/{passkey_id}',
    ...operation('updatePasskey'),
    summary: "Rename one of the signed-in user's passkeys",
    security: USER_SECURITY,
    params: passkeyParams,
    body: { schema: Type.Object({ friendly_name: Type.String({ minLength: 1, maxLength: 120 }) }) },
    responses: {
      '200': ok('The renamed passkey.', schemaRef('Passkey')),
      '400': authError('A blank or too long name (`validation_failed`).'),
      ...passkeyManagerErrors,
      '404': passkeyNotFound,
    },
  }),
  deletePasskey: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/passkeys/{passkey_id}',
    ...operation('deletePasskey'),
    summary: "Delete one of the signed-in user's passkeys",
    security: USER_SECURITY,
    params: passkeyParams,
    responses: {
      '204': { description: 'Deleted.' },
      ...passkeyManagerErrors,
      '404': passkeyNotFound,
    },
  }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

/** The fields of each body as its readers hold them before checking them. */
export type EnrollFields = DeclaredFields<BodyOf<typeof mfaEndpoints.enroll>>;
export type ChallengeFields = DeclaredFields<BodyOf<typeof mfaEndpoints.challenge>>;
export type FactorVerifyFields = DeclaredFields<BodyOf<typeof mfaEndpoints.verify>>;
export type PasskeyVerifyFields = DeclaredFields<BodyOf<typeof mfaEndpoints.passkeyRegistrationVerify>>;
export type PasskeyRenameFields = DeclaredFields<BodyOf<typeof mfaEndpoints.updatePasskey>>;

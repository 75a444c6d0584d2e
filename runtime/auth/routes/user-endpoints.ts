import { Type } from '@sinclair/typebox';
import { declareEndpoint, schemaRef, type BodyOf, type DeclaredFields, type EndpointDeclaration } from '../../http/endpoint.js';
import { authError, channel, email, fields, metadata, newPassword, ok, operation, phone, pkceFields, redirectToParameter, tooMany, USER_SECURITY } from './endpoint-parts.js';

/**
 * The signed-in user's own account, declared once (runtime/http/endpoint.ts): reading and changing it,
 * and the nonce a password change may need. The routes (user.ts, reauthenticate.ts) read the declared
 * fields only.
 */

export const userEndpoints = {
  getUser: declareEndpoint({
    method: 'get',
    path: '/auth/v1/user',
    ...operation('getUser'),
    summary: 'The signed-in user',
    security: USER_SECURITY,
    responses: {
      '200': ok('The user.', schemaRef('User')),
      '401': authError('No access token (`no_authorization`).'),
      '403': authError('Invalid or expired token (`bad_jwt`), user or session gone (`user_not_found`, `session_not_found`) or banned (`user_banned`).'),
    },
  }),
  updateUser: declareEndpoint({
    method: 'put',
    path: '/auth/v1/user',
    ...operation('updateUser'),
    summary: 'Update the signed-in user',
    description:
      'A new password signs out the other devices; with `auth.update_password_require_reauthentication` on it needs the `nonce` ' +
      'mailed by `/reauthenticate` (unless the session signed in within the last 24 hours). A new `email` changes at once with ' +
      'autoconfirm; otherwise it is mailed a link (`/verify?type=email_change`) and shown as `new_email` until that is followed. ' +
      'A new `phone` changes at once with `auth.sms.autoconfirm`; otherwise it is texted a code (POST `/verify` type `phone_change`) and shown as `new_phone`.',
    security: USER_SECURITY,
    parameters: [redirectToParameter],
    body: {
      schema: fields({
        email: Type.Optional(email),
        phone: Type.Optional(phone),
        channel: Type.Optional(channel),
        password: Type.Optional(newPassword),
        nonce: Type.Optional(Type.String({ description: 'The reauthentication code, with a new password.' })),
        data: Type.Optional(metadata('Merged into `user_metadata`.')),
        ...pkceFields,
      }),
    },
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
  reauthenticate: declareEndpoint({
    method: 'get',
    path: '/auth/v1/reauthenticate',
    ...operation('reauthenticate'),
    summary: 'E-mail a nonce for a password change',
    description: 'The nonce goes with the new password to `PUT /user` when `auth.update_password_require_reauthentication` is on.',
    security: USER_SECURITY,
    responses: {
      '200': ok('Mailed.', schemaRef('Empty')),
      '400': authError('The user has no e-mail address (`validation_failed`).'),
      '401': authError('No access token (`no_authorization`).'),
      '403': authError('Invalid or expired token (`bad_jwt`), user or session gone, or banned.'),
      '422': authError('The address is not confirmed (`email_not_confirmed`).'),
      '429': authError('A nonce was mailed moments ago (`over_email_send_rate_limit`).'),
    },
  }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

/** The fields of `PUT /user` as its reader holds them before checking them. */
export type UserUpdateFields = DeclaredFields<BodyOf<typeof userEndpoints.updateUser>>;

import { Type } from '@sinclair/typebox';
import { declareEndpoint, schemaRef, type EndpointDeclaration, type OpenApiObject } from '../../http/endpoint.js';
import { authError, email, fields, metadata, newPassword, objectSchema, ok, operation, phone, redirectToField, redirectToParameter, serverError, typed } from './endpoint-parts.js';

/**
 * The admin endpoints (the service key's): users, their MFA factors and passkeys, invitations and
 * generated links, declared once (runtime/http/endpoint.ts). Their routes read the declared fields only.
 */

/** Admin endpoints take the service key, as the API key or as the Bearer token. */
export const ADMIN_SECURITY: readonly OpenApiObject[] = [{ apikey: [] }, { bearer: [] }];

/** Every admin endpoint may answer these. */
export const adminErrors: Readonly<Record<string, OpenApiObject>> = {
  '400': authError('Invalid input (`validation_failed`).'),
  '401': authError('No token (`no_authorization`).'),
  '403': authError('An invalid or expired token (`bad_jwt`), or not an admin role (`not_admin`).'),
  '500': serverError,
};

const uuid = (description: string) => Type.String({ format: 'uuid', description });
const userParams = Type.Object({ id: uuid('The user id.') });
const factorParams = Type.Object({ id: uuid('The user id.'), factor_id: uuid('The factor id.') });
const passkeyParams = Type.Object({ id: uuid('The user id.'), passkey_id: uuid('The passkey id.') });

const noUser = authError('No such user (`user_not_found`).');
const alreadyRegistered = authError('Address or number already registered (`email_exists`, `phone_exists`) or weak password.');

/** What an admin may set on a user, at creation and update alike. */
const AdminUserBody = fields({
  email: Type.Optional(email),
  phone: Type.Optional(phone),
  password: Type.Optional(newPassword),
  user_metadata: Type.Optional(metadata('Merged into the user metadata.')),
  app_metadata: Type.Optional(metadata('Merged into the app metadata.')),
  email_confirm: Type.Optional(Type.Boolean({ description: 'Confirm the e-mail address now (creation: default true).' })),
  phone_confirm: Type.Optional(Type.Boolean({ description: 'Confirm the phone number now (default false).' })),
  banned: Type.Optional(Type.Boolean({ description: 'true bans the user for 100 years; false lifts a ban.' })),
  ban_duration: Type.Optional(Type.String({ description: 'A ban of a given length, e.g. `24h`; `none` lifts it.' })),
});

export const GENERATED_LINK_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change_new', 'email_change_current'] as const;

export const adminEndpoints = {
  listUsers: declareEndpoint({
    method: 'get',
    path: '/auth/v1/admin/users',
    ...operation('adminListUsers'),
    summary: 'List users (service key)',
    security: ADMIN_SECURITY,
    query: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Page size (with offset).' })),
      offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Users to skip.' })),
      page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number (with per_page; supabase-js).' })),
      per_page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page size (default 50).' })),
    }),
    responses: {
      '200': {
        description: 'A page of users, oldest first.',
        headers: {
          'X-Total-Count': { description: 'All users.', schema: { type: 'integer' } },
          Link: { description: 'next/last pages (page/per_page paging).', schema: { type: 'string' } },
        },
        content: { 'application/json': { schema: objectSchema({ users: { type: 'array', items: schemaRef('User') }, aud: { type: 'string' } }, ['users', 'aud']) } },
      },
      ...adminErrors,
    },
  }),
  createUser: declareEndpoint({
    method: 'post',
    path: '/auth/v1/admin/users',
    ...operation('adminCreateUser'),
    summary: 'Create a user (service key)',
    description: 'The e-mail is confirmed at once unless `email_confirm` is false; a phone number only with `phone_confirm`. An e-mail, a phone or both.',
    security: ADMIN_SECURITY,
    body: { schema: AdminUserBody },
    responses: { '200': ok('The created user.', schemaRef('User')), ...adminErrors, '422': alreadyRegistered },
  }),
  getUser: declareEndpoint({
    method: 'get',
    path: '/auth/v1/admin/users/{id}',
    ...operation('adminGetUser'),
    summary: 'Get a user (service key)',
    security: ADMIN_SECURITY,
    params: userParams,
    responses: { '200': ok('The user.', schemaRef('User')), ...adminErrors, '404': noUser },
  }),
  updateUser: declareEndpoint({
    method: 'put',
    path: '/auth/v1/admin/users/{id}',
    ...operation('adminUpdateUser'),
    summary: 'Update a user (service key)',
    description: '`banned: true` blocks sign-in for 100 years; a new password signs the user out everywhere.',
    security: ADMIN_SECURITY,
    params: userParams,
    body: { schema: AdminUserBody },
    responses: { '200': ok('The updated user.', schemaRef('User')), ...adminErrors, '404': noUser, '422': alreadyRegistered },
  }),
  deleteUser: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/admin/users/{id}',
    ...operation('adminDeleteUser'),
    summary: 'Delete a user (service key)',
    security: ADMIN_SECURITY,
    params: userParams,
    responses: { '200': ok('The deleted user.', schemaRef('User')), ...adminErrors, '404': noUser },
  }),
  listFactors: declareEndpoint({
    method: 'get',
    path: '/auth/v1/admin/users/{id}/factors',
    ...operation('adminListFactors'),
    summary: "List a user's MFA factors (service key)",
    security: ADMIN_SECURITY,
    params: userParams,
    responses: { '200': ok('The factors.', { type: 'array', items: schemaRef('Factor') }), ...adminErrors, '404': noUser },
  }),
  updateFactor: declareEndpoint({
    method: 'put',
    path: '/auth/v1/admin/users/{id}/factors/{factor_id}',
    ...operation('adminUpdateFactor'),
    summary: "Rename a user's MFA factor (service key)",
    security: ADMIN_SECURITY,
    params: factorParams,
    body: { schema: fields({ friendly_name: Type.Optional(Type.String({ description: 'Empty: left as it is.' })) }) },
    responses: {
      '200': ok('The factor.', schemaRef('Factor')),
      ...adminErrors,
      '404': authError('No such user or factor (`user_not_found`, `mfa_factor_not_found`).'),
      '422': authError('The user has a factor of that name (`mfa_factor_name_conflict`).'),
    },
  }),
  deleteFactor: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/admin/users/{id}/factors/{factor_id}',
    ...operation('adminDeleteFactor'),
    summary: "Delete a user's MFA factor (service key)",
    security: ADMIN_SECURITY,
    params: factorParams,
    responses: {
      '200': ok('The deleted factor.', schemaRef('Factor')),
      ...adminErrors,
      '404': authError('No such user or factor (`user_not_found`, `mfa_factor_not_found`).'),
    },
  }),
  listPasskeys: declareEndpoint({
    method: 'get',
    path: '/auth/v1/admin/users/{id}/passkeys',
    ...operation('adminListPasskeys'),
    summary: "List a user's passkeys (service key)",
    security: ADMIN_SECURITY,
    params: userParams,
    responses: { '200': ok('The passkeys, oldest first.', { type: 'array', items: schemaRef('Passkey') }), ...adminErrors, '404': noUser },
  }),
  deletePasskey: declareEndpoint({
    method: 'delete',
    path: '/auth/v1/admin/users/{id}/passkeys/{passkey_id}',
    ...operation('adminDeletePasskey'),
    summary: "Delete a user's passkey (service key)",
    security: ADMIN_SECURITY,
    params: passkeyParams,
    responses: {
      '204': { description: 'Deleted.' },
      ...adminErrors,
      '404': authError('No such user or passkey (`user_not_found`, `validation_failed`).'),
    },
  }),
  invite: declareEndpoint({
    method: 'post',
    path: '/auth/v1/invite',
    ...operation('inviteUser'),
    summary: 'Invite a user by e-mail (service key)',
    description: 'Creates the user (unconfirmed, `invited_at` set) and mails an invite link (`/verify` type `invite`), which confirms and signs in.',
    security: ADMIN_SECURITY,
    parameters: [redirectToParameter],
    body: { schema: Type.Object({ email, data: Type.Optional(metadata('Stored as `user_metadata`.')) }) },
    responses: {
      '200': ok('The invited user.', schemaRef('User')),
      ...adminErrors,
      '422': authError('Address already registered and confirmed (`email_exists`).'),
    },
  }),
  generateLink: declareEndpoint({
    method: 'post',
    path: '/auth/v1/admin/generate_link',
    ...operation('adminGenerateLink'),
    summary: 'Generate an e-mail link without sending it (service key)',
    description:
      'The link and code a mail would carry, for the app to send itself; nothing is mailed. `signup` creates the user with `password` ' +
      '(or renews the link of an unconfirmed one); `magiclink` and `recovery` of an unknown address become a sign-up link; `invite` invites; ' +
      '`email_change_current` and `email_change_new` start a change to `new_email` and give the link of the current or of the new address ' +
      '(`email_change_current` needs `auth.secure_email_change`). The answer is the user with the link fields beside it.',
    security: ADMIN_SECURITY,
    body: {
      schema: Type.Object({
        type: typed<(typeof GENERATED_LINK_TYPES)[number]>({ type: 'string', enum: GENERATED_LINK_TYPES }),
        email,
        password: Type.Optional(Type.String({ minLength: 6, description: '`signup` of a new address.' })),
        new_email: Type.Optional(Type.String({ format: 'email', description: '`email_change_current` and `email_change_new`.' })),
        data: Type.Optional(metadata('`user_metadata` (signup, invite).')),
        redirect_to: redirectToField,
      }),
    },
    responses: {
      '200': ok('The user and the link.', {
        allOf: [
          schemaRef('User'),
          objectSchema(
            {
              action_link: { type: 'string', format: 'uri', description: 'The `/verify` link of the mail, `redirect_to` in its query.' },
              email_otp: { type: 'string', description: 'The 6-digit code of the mail.' },
              hashed_token: { type: 'string', description: 'For POST `/verify` with `token_hash`.' },
              verification_type: { type: 'string', enum: ['signup', 'invite', 'magiclink', 'recovery', 'email_change_current', 'email_change_new'] },
              redirect_to: { type: 'string', format: 'uri' },
            },
            ['action_link', 'email_otp', 'hashed_token', 'verification_type', 'redirect_to'],
          ),
        ],
      }),
      ...adminErrors,
      '404': authError('`recovery`, `email_change_current` or `email_change_new` of an unknown address (`user_not_found`).'),
      '422': authError('Address already registered (`email_exists`) or weak password.'),
    },
  }),
} as const satisfies Readonly<Record<string, EndpointDeclaration>>;

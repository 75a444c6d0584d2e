import { Type, type ObjectOptions, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { schemaRef, type EndpointDeclaration, type OpenApiObject } from '../../http/endpoint.js';

/**
 * The pieces the auth endpoints' declarations share (securities, error answers, common fields), apart
 * from the declarations themselves so that each group's module and endpoints.ts, which lists them all,
 * import them without a cycle.
 */

export const AUTH_TAG = 'Auth';

/** Public endpoints take the anon key; the user endpoints a user's access token; admin ones the service key. */
export const PUBLIC_SECURITY: readonly OpenApiObject[] = [{ apikey: [] }, { apikeyQuery: [] }];
/** No key at all. */
export const OPEN_SECURITY: readonly OpenApiObject[] = [{}];

export function authError(description: string): OpenApiObject {
  return { description, content: { 'application/json': { schema: schemaRef('AuthError') } } };
}

export const tooMany: OpenApiObject = {
  description: 'Rate limited (`over_request_rate_limit`).',
  headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
  content: { 'application/json': { schema: schemaRef('AuthError') } },
};

export const unauthorizedKey = authError('No API key (`no_api_key`) or not a key of this project (`invalid_api_key`).');

export const ok = (description: string, schema: OpenApiObject): OpenApiObject => ({ description, content: { 'application/json': { schema } } });

export const redirectToParameter: OpenApiObject = {
  name: 'redirect_to',
  in: 'query',
  required: false,
  description:
    'Where the e-mailed link leads after verification: followed only on the site URL (`auth.site_url`, else the public URL of this service) or a match of `auth.redirect_allow_list`; otherwise replaced by the site URL.',
  schema: { type: 'string', format: 'uri' },
};

export const pkceFields = {
  code_challenge: Type.Optional(
    Type.String({ minLength: 43, maxLength: 128, description: 'PKCE: the e-mailed link then redirects with `?code=`, exchanged at `/token?grant_type=pkce`.' }),
  ),
  code_challenge_method: Type.Optional(Type.Unsafe<'s256' | 'plain' | 'S256' | 'PLAIN'>({ type: 'string', enum: ['s256', 'plain'], description: 'With `code_challenge` (either case).' })),
};

export const newPassword = Type.String({ minLength: 6, description: 'At least 6 characters.' });

/** The user endpoints take a user's access token (with or without the anon key). */
export const USER_SECURITY: readonly OpenApiObject[] = [{ apikey: [], bearer: [] }, { bearer: [] }];

export const email = Type.String({ format: 'email' });
export const phone = Type.String({ description: 'E.164, `+` optional (400 `validation_failed` otherwise); stored and answered without `+`.', example: '+15555550100' });
export const redirectToField = Type.Optional(Type.String({ format: 'uri' }));

/** A JSON Schema stated as data, typed as the value its reader takes. */
export const typed = <T>(schema: OpenApiObject): TSchema & { static: T } => Type.Unsafe<T>(schema);

/** A free-form JSON object (metadata). */
export const metadata = (description: string) => typed<Record<string, unknown>>({ type: 'object', additionalProperties: true, description });

/** An object schema that states its `required` list even when empty, as the document always has. */
export function fields<const P extends TProperties>(properties: P, options: ObjectOptions = {}): TObject<P> {
  return Type.Object(properties, { required: [], ...options });
}

export const operation = (operationId: string): Pick<EndpointDeclaration, 'tags' | 'operationId'> => ({ tags: [AUTH_TAG], operationId: `auth.${operationId}` });

export const serverError = authError('Unexpected failure (`unexpected_failure`).');

/** How a code is texted. */
export const channel = typed<'sms' | 'whatsapp'>({
  type: 'string',
  enum: ['sms', 'whatsapp'],
  description: 'How the code is sent (default `sms`; `whatsapp` through Twilio or the send-SMS hook).',
});

/** The answers' JSON Schema pieces (answers are written, not read, so they are stated as data). */
export const dateTime: OpenApiObject = { type: 'string', format: 'date-time' };
export const objectSchema = (properties: Record<string, OpenApiObject>, required: readonly string[] = []): OpenApiObject => ({ type: 'object', required: [...required], properties });

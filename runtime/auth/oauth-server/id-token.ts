import type { UserRow } from '../storage/user-json.js';
import { parseScopes } from './authorize-request.js';
import { profileClaims } from './userinfo.js';

/** ID tokens live an hour, as GoTrue's. */
const ID_TOKEN_LIFETIME_SECONDS = 3600;

export interface IdTokenInput {
  readonly issuer: string;
  readonly user: UserRow;
  readonly clientId: string;
  readonly scope: string;
  readonly nonce: string | null;
  readonly now: Date;
}

/** Whether the code exchange owes the client an ID token: the `openid` scope was granted. */
export function wantsIdToken(scope: string): boolean {
  return parseScopes(scope).includes('openid');
}

/**
 * GoTrue's OIDC ID token claims (OIDC Core §2), in its order: audience the client, `auth_time`
 * the user's last sign-in, the request's nonce, and the claims of the granted scopes;
 * `email_verified` and `phone_number_verified` always present, as the spec requires.
 */
export function idTokenClaims(input: IdTokenInput): Record<string, unknown> {
  const { user } = input;
  const iat = Math.floor(input.now.getTime() / 1000);
  const scopes = new Set(parseScopes(input.scope));
  const email = scopes.has('email') && user.email ? user.email : undefined;
  const phone = scopes.has('phone') && user.phone ? user.phone : undefined;
  const profile = scopes.has('profile') ? profileClaims(user) : {};
  return {
    iss: input.issuer,
    sub: user.id,
    aud: [input.clientId],
    exp: iat + ID_TOKEN_LIFETIME_SECONDS,
    iat,
    ...(input.nonce && { nonce: input.nonce }),
    auth_time: Math.floor((user.last_sign_in_at ?? input.now).getTime() / 1000),
    ...(email !== undefined && { email }),
    email_verified: scopes.has('email') && user.email_confirmed_at !== null,
    ...(phone !== undefined && { phone_number: phone }),
    phone_number_verified: scopes.has('phone') && (user.phone_confirmed_at ?? null) !== null,
    ...(profile.name !== undefined && { name: profile.name }),
    ...(profile.picture !== undefined && { picture: profile.picture }),
    ...(scopes.has('profile') && { updated_at: Math.floor(user.updated_at.getTime() / 1000) }),
    ...(profile.preferred_username !== undefined && { preferred_username: profile.preferred_username }),
    client_id: input.clientId,
  };
}

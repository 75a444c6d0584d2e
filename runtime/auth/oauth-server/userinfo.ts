import type { UserRow } from '../storage/user-json.js';
import { parseScopes } from './authorize-request.js';

/**
 * GoTrue's `/oauth/userinfo` answer (OIDC Core §5.3): `sub` always, the rest by the scopes
 * granted to the session's client. A token of no OAuth session gets `sub` alone.
 */
export function userInfoOf(user: UserRow, sessionScopes: string | null): Record<string, unknown> {
  const info: Record<string, unknown> = { sub: user.id };
  if (sessionScopes === null) return info;
  const scopes = new Set(parseScopes(sessionScopes));
  if (scopes.has('email')) {
    if (user.email) info.email = user.email;
    if (user.email_confirmed_at !== null) info.email_verified = true;
  }
  if (scopes.has('profile')) {
    Object.assign(info, profileClaims(user), { updated_at: Math.floor(user.updated_at.getTime() / 1000), user_metadata: user.raw_user_meta_data });
  }
  if (scopes.has('phone')) {
    if (user.phone) info.phone = user.phone;
    if ((user.phone_confirmed_at ?? null) !== null) info.phone_verified = true;
  }
  return info;
}

/** The `profile` scope's name, picture and preferred_username, from user metadata as GoTrue reads it (the e-mail standing in for a name). */
export function profileClaims(user: UserRow): { name?: string; picture?: string; preferred_username?: string } {
  const metadata = user.raw_user_meta_data;
  const text = (key: string): string | undefined => (typeof metadata[key] === 'string' && metadata[key] !== '' ? (metadata[key] as string) : undefined);
  const name = text('name') ?? (user.email || undefined);
  const picture = text('picture') ?? text('avatar_url');
  const username = text('preferred_username') ?? text('username');
  return {
    ...(name !== undefined && { name }),
    ...(picture !== undefined && { picture }),
    ...(username !== undefined && { preferred_username: username }),
  };
}

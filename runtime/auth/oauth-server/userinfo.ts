import type { UserRow } from '../user-json.js';
import { parseScopes } from './authorize-request.js';

/**
 * GoTrue's `/oauth/userinfo` answer (OIDC Core §5.3): `sub` always, the rest by the scopes
 * granted to the session's client. A token of no OAuth session gets `sub` alone.
 */
export function userInfoOf(user: UserRow, sessionScopes: string | null): Record<string, unknown> {
  const info: Record<string, unknown> = { sub: user.id };
  if (sessionScopes === null) return info;
  const scopes = new Set(parseScopes(sessionScopes));
  const metadata = user.raw_user_meta_data;
  const text = (key: string): string | undefined => (typeof metadata[key] === 'string' && metadata[key] !== '' ? (metadata[key] as string) : undefined);
  if (scopes.has('email')) {
    if (user.email) info.email = user.email;
    if (user.email_confirmed_at !== null) info.email_verified = true;
  }
  if (scopes.has('profile')) {
    const name = text('name') ?? (user.email || undefined);
    if (name !== undefined) info.name = name;
    const picture = text('picture') ?? text('avatar_url');
    if (picture !== undefined) info.picture = picture;
    const username = text('preferred_username') ?? text('username');
    if (username !== undefined) info.preferred_username = username;
    info.updated_at = Math.floor(user.updated_at.getTime() / 1000);
    info.user_metadata = metadata;
  }
  if (scopes.has('phone')) {
    if (user.phone) info.phone = user.phone;
    if ((user.phone_confirmed_at ?? null) !== null) info.phone_verified = true;
  }
  return info;
}

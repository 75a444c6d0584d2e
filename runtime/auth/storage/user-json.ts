import { factorJson, type ListedFactor } from './factors.js';
import { identityJson, type IdentityRow } from './identities.js';

/** A row of auth.users as the pg driver returns it. */
export interface UserRow {
  readonly id: string;
  readonly aud: string;
  readonly role: string;
  /** Null for an anonymous user until it links an address. */
  readonly email: string | null;
  readonly encrypted_password: string | null;
  readonly email_confirmed_at: Date | null;
  readonly confirmation_sent_at: Date | null;
  readonly recovery_sent_at: Date | null;
  /** Absent (undefined) in a database bootstrapped before e-mail changes, until its first one. */
  readonly new_email?: string | null;
  readonly email_change_sent_at?: Date | null;
  /** Secure e-mail change: 1 once one of the two addresses confirmed the pending change (absent until migrated). */
  readonly email_change_confirm_status?: number;
  /** Absent in a database bootstrapped before invites and reauthentication, until migrated. */
  readonly invited_at?: Date | null;
  readonly reauthentication_sent_at?: Date | null;
  readonly last_sign_in_at: Date | null;
  readonly raw_app_meta_data: Record<string, unknown>;
  readonly raw_user_meta_data: Record<string, unknown>;
  readonly banned_until: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly is_anonymous: boolean;
  /** Phone sign-in's columns: absent in a database bootstrapped before 011_phone, until migrated. */
  readonly phone?: string | null;
  readonly phone_confirmed_at?: Date | null;
  readonly phone_change?: string | null;
  readonly phone_change_sent_at?: Date | null;
  /** The user's MFA factors where the query asked for them (users.ts), null when none. */
  readonly factors?: readonly ListedFactor[] | null;
  /** Its identities at OAuth/OIDC providers where the query asked for them (users.ts), null when none. */
  readonly identities?: readonly IdentityRow[] | null;
}

export type UserJson = Record<string, unknown> & { readonly id: string; readonly email: string };

function iso(value: Date | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : value.toISOString();
}

function providersOf(user: UserRow): readonly unknown[] | null {
  const providers = user.raw_app_meta_data.providers;
  return Array.isArray(providers) ? providers : null;
}

/** Whether the account signs in by its phone number: GoTrue gives it a phone identity once the number is its own. */
export function hasPhoneIdentity(user: UserRow): boolean {
  return (user.phone ?? null) !== null && (providersOf(user)?.includes('phone') ?? false);
}

/** Whether the account signs in by its e-mail address: every account but one made by an OAuth provider (or unlinked from e-mail). */
export function hasEmailIdentity(user: UserRow): boolean {
  const providers = user.raw_app_meta_data.providers;
  return user.email !== null && (!Array.isArray(providers) || providers.includes('email'));
}

/** GoTrue's phone identity, implied by the row as the e-mail one is. */
function phoneIdentity(user: UserRow): Record<string, unknown> {
  const confirmed = (user.phone_confirmed_at ?? null) !== null;
  return {
    identity_id: user.id,
    id: user.id,
    user_id: user.id,
    identity_data: { sub: user.id, phone: user.phone, email_verified: false, phone_verified: confirmed },
    provider: 'phone',
    last_sign_in_at: iso(user.last_sign_in_at ?? user.created_at),
    created_at: user.created_at.toISOString(),
    updated_at: user.updated_at.toISOString(),
  };
}

/** The e-mail and phone identities (implied by the row; an anonymous user has none), then those at providers. */
function identitiesOf(user: UserRow): Record<string, unknown>[] {
  const linked = (user.identities ?? []).map(identityJson);
  if (hasPhoneIdentity(user)) linked.unshift(phoneIdentity(user));
  if (!hasEmailIdentity(user)) return linked;
  return [
    {
      identity_id: user.id,
      id: user.id,
      user_id: user.id,
      identity_data: {
        sub: user.id,
        email: user.email,
        email_verified: user.email_confirmed_at !== null,
        phone_verified: false,
      },
      provider: 'email',
      last_sign_in_at: iso(user.last_sign_in_at ?? user.created_at),
      created_at: user.created_at.toISOString(),
      updated_at: user.updated_at.toISOString(),
      email: user.email,
    },
    ...linked,
  ];
}

/**
 * GoTrue's user object: keys in its order, null timestamps omitted, `phone` and
 * `email` always strings, the e-mail identity (identities live in the user row here).
 */
export function userJson(user: UserRow): UserJson {
  const json: Record<string, unknown> = {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email ?? '',
    email_confirmed_at: iso(user.email_confirmed_at),
    invited_at: iso(user.invited_at),
    phone: user.phone ?? '',
    phone_confirmed_at: iso(user.phone_confirmed_at),
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(user.email_confirmed_at ?? user.phone_confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    new_email: user.new_email ?? undefined,
    new_phone: user.phone_change ?? undefined,
    email_change_sent_at: iso(user.email_change_sent_at),
    phone_change_sent_at: iso(user.phone_change_sent_at),
    reauthentication_sent_at: iso(user.reauthentication_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    factors: user.factors === null || user.factors === undefined || user.factors.length === 0 ? undefined : user.factors.map(factorJson),
    identities: identitiesOf(user),
    created_at: user.created_at.toISOString(),
    updated_at: user.updated_at.toISOString(),
    banned_until: iso(user.banned_until),
    is_anonymous: user.is_anonymous,
  };
  for (const key of Object.keys(json)) if (json[key] === undefined) delete json[key];
  return json as UserJson;
}

/**
 * What a sign-up for an already registered address answers when confirmation is
 * on: the same shape a brand-new unconfirmed user has, with a random id, so the
 * answer does not tell whether the address is taken.
 */
export function decoyUserJson(id: string, email: string, userMetadata: Record<string, unknown>, now: Date): UserJson {
  return userJson({
    id,
    aud: 'authenticated',
    role: 'authenticated',
    email,
    encrypted_password: null,
    email_confirmed_at: null,
    confirmation_sent_at: now,
    recovery_sent_at: null,
    last_sign_in_at: null,
    raw_app_meta_data: { provider: 'email', providers: ['email'] },
    raw_user_meta_data: userMetadata,
    banned_until: null,
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  });
}

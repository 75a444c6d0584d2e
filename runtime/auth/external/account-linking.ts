import { randomUUID } from 'node:crypto';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import type { Queryable } from '../../db/transaction.js';
import { AuthError, authErrors } from '../http/errors.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { deleteOtherIdentities, findIdentity, insertIdentity, syncProviders, touchIdentity } from '../storage/identities.js';
import { consumeUserTokens } from '../storage/one-time-tokens.js';
import { hasEmailIdentity, userJson, type UserRow } from '../storage/user-json.js';
import { DuplicateEmailError, findUserByEmail, findUserById, insertUser, isBanned, updateUser } from '../storage/users.js';
import type { Claims } from './presets.js';

/** A user as a provider vouched for them: the provider's name and the identity's claims (`sub` at least). */
export interface ExternalUser {
  readonly provider: string;
  readonly claims: Claims;
}

const emailOf = (claims: Claims): string | null => (typeof claims.email === 'string' && claims.email !== '' ? claims.email : null);

async function reload(db: Queryable, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (user === null) throw authErrors.userNotFound(404);
  return user;
}

/** GoTrue's UpdateUserMetaData: what the provider says is merged into user_metadata. */
async function mergeMetadata(db: Queryable, user: UserRow, claims: Claims, now: Date): Promise<void> {
  await updateUser(db, user.id, { raw_user_meta_data: { ...user.raw_user_meta_data, ...claims } }, now);
}

/**
 * GoTrue's triggerBeforeUserCreatedExternal: when a provider's sign-in is about to make a new
 * account (no known identity, no verified address of an existing account, sign-ups on), the
 * before_user_created hook is asked with that user first, outside the transaction that creates
 * it — so a hook that limits sign-ups limits "Sign in with GitHub" too.
 */
export async function askBeforeExternalSignUp(deps: AuthDeps, external: ExternalUser, ip: string | null): Promise<void> {
  if (!hookEnabled(deps, 'before_user_created') || deps.ctx.settings['auth.disable_signup']) return;
  const db = deps.ctx.adminPool;
  const { provider, claims } = external;
  if ((await findIdentity(db, provider, String(claims.sub))) !== null) return;
  const email = emailOf(claims);
  if (email !== null && claims.email_verified === true && (await findUserByEmail(db, email)) !== null) return;
  const now = deps.now();
  const user = userJson({
    id: randomUUID(), aud: 'authenticated', role: 'authenticated', email, encrypted_password: null, email_confirmed_at: null,
    confirmation_sent_at: null, recovery_sent_at: null, last_sign_in_at: null, raw_app_meta_data: { provider, providers: [provider] },
    raw_user_meta_data: claims, banned_until: null, created_at: now, updated_at: now, is_anonymous: false,
  });
  await runHook(deps, 'before_user_created', { user }, ip);
}

/**
 * GoTrue's RemoveUnconfirmedIdentities and Confirm, for an account whose address was never
 * confirmed and that a provider now vouches for: whoever registered the address (with a
 * password, a phone, another provider) never proved it, so what they set up goes — the
 * password, the other identities (the implied e-mail and phone ones with them), their
 * user_metadata, the account's pending mail links — and the address is confirmed through the
 * provider. This is what stops a sign-up with someone else's address from taking over or
 * locking out its owner.
 */
async function confirmThroughProvider(db: Queryable, user: UserRow, external: ExternalUser, ip: string | null, now: Date): Promise<UserRow> {
  const { provider, claims } = external;
  await deleteOtherIdentities(db, user.id, provider, String(claims.sub));
  await consumeUserTokens(db, user.id, now);
  await writeAudit(db, { event: 'user_signedup', userId: user.id, ip, payload: { provider }, at: now });
  return (
    (await updateUser(
      db,
      user.id,
      {
        encrypted_password: null,
        raw_user_meta_data: { ...claims, email_verified: true },
        raw_app_meta_data: { ...user.raw_app_meta_data, provider, providers: [provider] },
        email_confirmed_at: now,
      },
      now,
    )) ?? user
  );
}

/**
 * GoTrue's createAccountFromExternalIdentity with its default linking: a known identity signs
 * its user in; else a verified address of an existing account links the identity to it; else
 * a new account is made (unless sign-ups are off). An account whose address is unconfirmed is
 * confirmed through the provider when the provider verified the address (or autoconfirm is on),
 * dropping what its registrant set up (confirmThroughProvider); otherwise GoTrue's
 * provider_email_needs_verification.
 */
export async function signInExternal(db: Queryable, deps: AuthDeps, external: ExternalUser, ip: string | null): Promise<UserRow> {
  const now = deps.now();
  const { provider, claims } = external;
  const email = emailOf(claims);
  const verified = claims.email_verified === true;
  const known = await findIdentity(db, provider, String(claims.sub));
  let user: UserRow;
  if (known !== null) {
    user = await reload(db, known.user_id);
    await touchIdentity(db, known.id, claims, now);
    await mergeMetadata(db, user, claims, now);
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { provider }, at: now });
  } else {
    const owner = email !== null && verified ? await findUserByEmail(db, email) : null;
    if (owner !== null) {
      user = owner;
      await insertIdentity(db, user.id, provider, claims, now);
      await mergeMetadata(db, user, claims, now);
      await writeAudit(db, { event: 'identity_linked', userId: user.id, ip, payload: { provider, provider_id: claims.sub }, at: now });
    } else {
      if (deps.ctx.settings['auth.disable_signup']) throw authErrors.signupDisabled();
      try {
        user = await insertUser(db, {
          email,
          passwordHash: null,
          userMetadata: claims,
          appMetadata: { provider, providers: [provider] },
          emailConfirmedAt: email !== null && (verified || deps.ctx.settings['auth.autoconfirm']) ? now : null,
          confirmationSentAt: null,
          bannedUntil: null,
          now,
        });
      } catch (error) {
        // An unverified address that another account has: GoTrue keeps the accounts apart; one address is one account here.
        if (error instanceof DuplicateEmailError) throw authErrors.emailExists();
        throw error;
      }
      await insertIdentity(db, user.id, provider, claims, now);
      await writeAudit(db, { event: 'user_signedup', userId: user.id, ip, payload: { provider }, at: now });
    }
  }
  await syncProviders(db, user.id, hasEmailIdentity(user), now);
  user = await reload(db, user.id);
  if (isBanned(user, now)) throw authErrors.userBanned(403);
  if (email !== null && user.email_confirmed_at === null) {
    if (!verified && !deps.ctx.settings['auth.autoconfirm']) {
      throw new AuthError(422, 'provider_email_needs_verification', `Unverified email with ${provider}. Verify the email with ${provider} in order to sign in`);
    }
    user = await confirmThroughProvider(db, user, external, ip, now);
  }
  return (await updateUser(db, user.id, { last_sign_in_at: now }, now)) ?? user;
}

/** GoTrue's linkIdentityToUser: the identity joins the signed-in user, unless it belongs to someone already. */
export async function linkExternal(db: Queryable, deps: AuthDeps, targetId: string, external: ExternalUser, ip: string | null): Promise<UserRow> {
  const now = deps.now();
  const { provider, claims } = external;
  const known = await findIdentity(db, provider, String(claims.sub));
  if (known !== null) {
    throw new AuthError(422, 'identity_already_exists', known.user_id === targetId ? 'Identity is already linked' : 'Identity is already linked to another user');
  }
  const target = await reload(db, targetId);
  await insertIdentity(db, target.id, provider, claims, now);
  await writeAudit(db, { event: 'identity_linked', userId: target.id, ip, payload: { provider, provider_id: claims.sub }, at: now });
  const email = emailOf(claims);
  if (target.email === null && email !== null) {
    if (claims.email_verified !== true) {
      throw new AuthError(422, 'email_not_confirmed', `Unverified email with ${provider}. Verify the email with ${provider} in order to sign in`);
    }
    try {
      await updateUser(db, target.id, { email, email_confirmed_at: now, is_anonymous: false }, now);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw authErrors.emailExists();
      throw error;
    }
  }
  await syncProviders(db, target.id, hasEmailIdentity(target), now);
  return reload(db, target.id);
}

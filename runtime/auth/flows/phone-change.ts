import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import type { Queryable } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { textCode } from './phone-otp.js';
import type { SmsChannel } from '../sms/sms-sender.js';
import type { UserRow } from '../storage/user-json.js';
import { DuplicatePhoneError, findUserByPhone, updateUser, type UserChange } from '../storage/users.js';

/** app_metadata with the phone provider among the account's providers (GoTrue's phone identity). */
function withPhoneProvider(user: UserRow): Readonly<Record<string, unknown>> {
  const providers = Array.isArray(user.raw_app_meta_data.providers) ? (user.raw_app_meta_data.providers as unknown[]) : [];
  if (providers.includes('phone')) return user.raw_app_meta_data;
  return { ...user.raw_app_meta_data, provider: user.raw_app_meta_data.provider ?? 'phone', providers: [...providers, 'phone'] };
}

/** A texted sign-up or sign-in code redeemed: the number is confirmed (GoTrue's ConfirmPhone), an anonymous user no longer anonymous. */
export async function confirmPhone(db: Queryable, user: UserRow, ip: string | null, now: Date): Promise<UserRow> {
  if ((user.phone_confirmed_at ?? null) === null) await writeAudit(db, { event: 'user_confirmed', userId: user.id, ip, payload: { provider: 'phone' }, at: now });
  const change: UserChange = { phone_confirmed_at: user.phone_confirmed_at ?? now, ...(user.is_anonymous ? { is_anonymous: false } : {}) };
  return (await updateUser(db, user.id, change, now)) ?? user;
}

async function movePhone(db: Queryable, user: UserRow, phone: string, now: Date): Promise<UserRow> {
  try {
    const change: UserChange = {
      phone,
      phone_confirmed_at: now,
      phone_change: null,
      phone_change_sent_at: null,
      raw_app_meta_data: withPhoneProvider(user),
      ...(user.is_anonymous ? { is_anonymous: false } : {}),
    };
    return (await updateUser(db, user.id, change, now)) ?? user;
  } catch (error) {
    if (error instanceof DuplicatePhoneError) throw authErrors.phoneExists();
    throw error;
  }
}

/** A phone change code redeemed: the new number becomes the account's, confirmed (GoTrue's ConfirmPhoneChange). */
export async function confirmPhoneChange(db: Queryable, user: UserRow, ip: string | null, now: Date): Promise<UserRow> {
  const changed = await movePhone(db, user, user.phone_change ?? '', now);
  await writeAudit(db, { event: 'user_modified', userId: user.id, ip, payload: { fields: ['phone'] }, at: now });
  return changed;
}

/**
 * PUT /user with a new `phone`: refused when another account has the number; with
 * auth.sms.autoconfirm the number changes at once, else a code is texted to it and the
 * change waits for POST /verify type phone_change (GoTrue's UserUpdate).
 */
export async function requestPhoneChange(
  deps: AuthDeps,
  db: Queryable,
  user: UserRow,
  phone: string,
  channel: SmsChannel,
  ip: string | null,
): Promise<UserRow> {
  const holder = await findUserByPhone(db, phone);
  if (holder !== null && holder.id !== user.id) throw authErrors.phoneExists();
  const now = deps.now();
  if (deps.ctx.settings['auth.sms'].autoconfirm) {
    const changed = await movePhone(db, user, phone, now);
    await writeAudit(db, { event: 'user_modified', userId: user.id, ip, payload: { fields: ['phone'] }, at: now });
    return changed;
  }
  await textCode(deps, db, user, phone, 'phone_change', channel, ip);
  return (await updateUser(db, user.id, {}, now)) ?? user;
}

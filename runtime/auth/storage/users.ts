import type { Queryable } from '../../db/transaction.js';
import type { UserRow } from './user-json.js';

/** A user row with its MFA factors and provider identities (null when none), as every user answer lists them. */
const USER_COLUMNS = '*, auth.user_factors(id) AS factors, auth.user_identities(id) AS identities';

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth.users WHERE lower(email) = lower($1)`, [email]);
  return rows[0] ?? null;
}

/** The account with this phone number (E.164 digits, as stored). */
export async function findUserByPhone(db: Queryable, phone: string, forUpdate = false): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth.users WHERE phone = $1${forUpdate ? ' FOR UPDATE' : ''}`, [phone]);
  return rows[0] ?? null;
}

/** The account waiting to change to this phone number (GoTrue's FindUserByPhoneChangeAndAudience). */
export async function findUserByPhoneChange(db: Queryable, phone: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth.users WHERE phone_change = $1 ORDER BY phone_change_sent_at DESC NULLS LAST LIMIT 1`, [phone]);
  return rows[0] ?? null;
}

/** The account whose pending new address this is, then the one that has it now: either may receive an e-mail change code. */
export async function findUsersByAnyEmail(db: Queryable, email: string): Promise<UserRow[]> {
  const { rows } = await db.query<UserRow>(
    `SELECT * FROM auth.users WHERE lower(new_email) = lower($1) OR lower(email) = lower($1)
     ORDER BY lower(new_email) = lower($1) DESC NULLS LAST`,
    [email],
  );
  return rows;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

export async function findUserById(db: Queryable, id: string, forUpdate = false): Promise<UserRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth.users WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** app_metadata of an account of the e-mail provider. */
export const EMAIL_APP_METADATA: Readonly<Record<string, unknown>> = { provider: 'email', providers: ['email'] };
/** app_metadata of an account signed up with its phone number. */
export const PHONE_APP_METADATA: Readonly<Record<string, unknown>> = { provider: 'phone', providers: ['phone'] };

export interface NewUser {
  /** Null for an anonymous user. */
  readonly email: string | null;
  /** A phone sign-up's number (E.164 digits). */
  readonly phone?: string | null;
  readonly phoneConfirmedAt?: Date | null;
  readonly isAnonymous?: boolean;
  readonly passwordHash: string | null;
  readonly userMetadata: Readonly<Record<string, unknown>>;
  readonly appMetadata: Readonly<Record<string, unknown>>;
  readonly emailConfirmedAt: Date | null;
  readonly confirmationSentAt: Date | null;
  readonly bannedUntil: Date | null;
  readonly now: Date;
}

export class DuplicateEmailError extends Error {
  readonly code = 'email_exists';
}

/** The phone number belongs to another account (users_phone_key). */
export class DuplicatePhoneError extends Error {
  readonly code = 'phone_exists';
}

/** A unique violation as the address it is about. */
function duplicateError(error: unknown): Error | null {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code !== '23505') return null;
  return constraint === 'users_phone_key' ? new DuplicatePhoneError('phone already registered') : new DuplicateEmailError('email already registered');
}

export async function insertUser(db: Queryable, user: NewUser): Promise<UserRow> {
  try {
    const { rows } = await db.query<UserRow>(
      `INSERT INTO auth.users (email, encrypted_password, raw_user_meta_data, raw_app_meta_data, email_confirmed_at,
                               confirmation_sent_at, banned_until, created_at, updated_at, is_anonymous, phone, phone_confirmed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11) RETURNING *`,
      [
        user.email,
        user.passwordHash,
        JSON.stringify(user.userMetadata),
        JSON.stringify(user.appMetadata),
        user.emailConfirmedAt,
        user.confirmationSentAt,
        user.bannedUntil,
        user.now,
        user.isAnonymous ?? false,
        user.phone ?? null,
        user.phoneConfirmedAt ?? null,
      ],
    );
    return rows[0] as UserRow;
  } catch (error) {
    throw duplicateError(error) ?? error;
  }
}

/** Columns a change may touch; `undefined` leaves a column as it is, `null` clears it. */
export interface UserChange {
  readonly email?: string;
  readonly encrypted_password?: string | null;
  readonly raw_user_meta_data?: Readonly<Record<string, unknown>>;
  readonly raw_app_meta_data?: Readonly<Record<string, unknown>>;
  readonly email_confirmed_at?: Date | null;
  readonly confirmation_sent_at?: Date | null;
  readonly recovery_sent_at?: Date | null;
  readonly new_email?: string | null;
  readonly email_change_sent_at?: Date | null;
  readonly email_change_confirm_status?: number;
  readonly invited_at?: Date | null;
  readonly reauthentication_sent_at?: Date | null;
  readonly last_sign_in_at?: Date | null;
  readonly banned_until?: Date | null;
  readonly is_anonymous?: boolean;
  readonly phone?: string | null;
  readonly phone_confirmed_at?: Date | null;
  readonly phone_change?: string | null;
  readonly phone_change_sent_at?: Date | null;
}

const CHANGEABLE_COLUMNS: ReadonlyArray<keyof UserChange> = [
  'email',
  'encrypted_password',
  'raw_user_meta_data',
  'raw_app_meta_data',
  'email_confirmed_at',
  'confirmation_sent_at',
  'recovery_sent_at',
  'new_email',
  'email_change_sent_at',
  'email_change_confirm_status',
  'invited_at',
  'reauthentication_sent_at',
  'last_sign_in_at',
  'banned_until',
  'is_anonymous',
  'phone',
  'phone_confirmed_at',
  'phone_change',
  'phone_change_sent_at',
];

export async function updateUser(db: Queryable, id: string, change: UserChange, now: Date): Promise<UserRow | null> {
  const values: unknown[] = [id, now];
  const sets = ['updated_at = $2'];
  for (const column of CHANGEABLE_COLUMNS) {
    const value = change[column];
    if (value === undefined) continue;
    values.push(value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value);
    sets.push(`${column} = $${values.length}`);
  }
  try {
    const { rows } = await db.query<UserRow>(`UPDATE auth.users SET ${sets.join(', ')} WHERE id = $1 RETURNING ${USER_COLUMNS}`, values);
    return rows[0] ?? null;
  } catch (error) {
    throw duplicateError(error) ?? error;
  }
}

export async function listUsers(db: Queryable, limit: number, offset: number): Promise<{ users: UserRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth.users ORDER BY created_at DESC, id LIMIT $1 OFFSET $2`, [limit, offset]),
    db.query<{ total: string }>('SELECT count(*) AS total FROM auth.users'),
  ]);
  return { users: page.rows, total: Number(count.rows[0]?.total ?? 0) };
}

export async function deleteUser(db: Queryable, id: string): Promise<UserRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<UserRow>(`DELETE FROM auth.users WHERE id = $1 RETURNING ${USER_COLUMNS}`, [id]);
  return rows[0] ?? null;
}

/** GoTrue's metadata update: shallow merge, a null value removes the key. */
export function mergeMetadata(
  current: Readonly<Record<string, unknown>>,
  patch: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  // A Map, not property assignment: a "__proto__" key from JSON must stay plain data.
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  return Object.fromEntries(merged);
}

/**
 * What an anonymous user's first address changes, as GoTrue's new e-mail identity does: the
 * e-mail provider in app_metadata and, once the address is confirmed, no longer anonymous.
 */
export function linkAnonymous(user: UserRow, confirmed: boolean): UserChange {
  if (!user.is_anonymous) return {};
  return { raw_app_meta_data: { ...user.raw_app_meta_data, provider: 'email', providers: ['email'] }, ...(confirmed ? { is_anonymous: false } : {}) };
}

export function isBanned(user: UserRow, now: Date): boolean {
  return user.banned_until !== null && user.banned_until.getTime() > now.getTime();
}

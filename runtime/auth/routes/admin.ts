import type { Request, Router } from 'express';
import { writeAudit, type AuditEvent } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { HUNDRED_YEARS_MS, parseBanDuration } from '../input/ban-duration.js';
import { inTransaction } from '../../db/transaction.js';
import { cancelPendingEmailChange } from '../flows/email-change.js';
import { AuthError, authErrors } from '../http/errors.js';
import { acceptPhone } from '../input/phone-number.js';
import { bodyOf, handle, optionalObject, queryString } from '../http/handler.js';
import { consumeUserTokens } from '../storage/one-time-tokens.js';
import { acceptNewPassword } from '../http/password-input.js';
import { clientIp, requireAdmin } from '../http/request-auth.js';
import { revokeSessions } from '../storage/sessions.js';
import { userJson, type UserRow } from '../storage/user-json.js';
import {
  DuplicateEmailError,
  DuplicatePhoneError,
  deleteUser,
  findUserById,
  insertUser,
  listUsers,
  linkAnonymous,
  mergeMetadata,
  updateUser,
  type UserChange,
} from '../storage/users.js';
import { acceptEmail, isBlank } from '../http/request-fields.js';
import type { BodyOf, DeclaredFields, QueryOf } from '../../http/endpoint.js';
import type { adminEndpoints } from './admin-endpoints.js';

type UserListQuery = QueryOf<typeof adminEndpoints.listUsers>;
/** What an admin sets on a user: creation and update take the same fields. */
type AdminUserFields = DeclaredFields<BodyOf<typeof adminEndpoints.createUser>>;

const DEFAULT_PER_PAGE = 50;

function nonNegativeInt(req: Request, name: keyof UserListQuery, minimum: number): number | undefined {
  const raw = queryString<UserListQuery>(req, name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < minimum || !Number.isSafeInteger(Number(raw))) {
    throw authErrors.validation(`${name} must be an integer of at least ${minimum}`);
  }
  return Number(raw);
}

/** The ban a request asks for: undefined = unchanged, null = lifted, a Date = banned until then. */
function requestedBan(body: AdminUserFields, now: Date): Date | null | undefined {
  if (body.ban_duration !== undefined && body.ban_duration !== null) {
    if (typeof body.ban_duration !== 'string') throw authErrors.validation('ban_duration must be a duration string such as "24h" or "none"');
    const ms = parseBanDuration(body.ban_duration);
    if (ms === null) throw authErrors.validation(`invalid format for ban duration: "${body.ban_duration}"`);
    return ms === 0 ? null : new Date(now.getTime() + ms);
  }
  if (body.banned === undefined || body.banned === null) return undefined;
  if (typeof body.banned !== 'boolean') throw authErrors.validation('banned must be a boolean');
  return body.banned ? new Date(now.getTime() + HUNDRED_YEARS_MS) : null;
}

function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw authErrors.validation(`${field} must be a boolean`);
  return value;
}

/**
 * GoTrue's admin phone update: a new number replaces the old (and any pending change), the phone
 * provider joins the account's; `phone_confirm` confirms it (an anonymous user is then no longer one).
 */
function phoneChange(user: UserRow, appMetadata: Readonly<Record<string, unknown>>, phone: string | undefined, confirm: boolean, now: Date): UserChange {
  const changes = phone !== undefined && phone !== user.phone;
  const providers = Array.isArray(appMetadata.providers) ? (appMetadata.providers as unknown[]) : [];
  return {
    ...(changes ? { phone, phone_change: null, phone_change_sent_at: null, phone_confirmed_at: confirm ? now : null } : {}),
    ...(changes && !providers.includes('phone') ? { raw_app_meta_data: { ...appMetadata, providers: [...providers, 'phone'] } } : {}),
    ...(!changes && confirm && (user.phone ?? null) !== null && (user.phone_confirmed_at ?? null) === null ? { phone_confirmed_at: now } : {}),
    ...(confirm && user.is_anonymous && (changes || (user.phone ?? null) !== null) ? { is_anonymous: false } : {}),
  };
}

export function registerAdmin(router: Router, deps: AuthDeps): void {
  router.get(
    '/admin/users',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      const limit = nonNegativeInt(req, 'limit', 1);
      const offset = nonNegativeInt(req, 'offset', 0);
      const page = nonNegativeInt(req, 'page', 1) ?? 1;
      const perPage = nonNegativeInt(req, 'per_page', 1) ?? DEFAULT_PER_PAGE;
      const offsetMode = limit !== undefined || offset !== undefined;
      const size = offsetMode ? (limit ?? DEFAULT_PER_PAGE) : perPage;
      const skip = offsetMode ? (offset ?? 0) : (page - 1) * perPage;
      const { users, total } = await listUsers(deps.ctx.adminPool, size, skip);
      res.setHeader('X-Total-Count', String(total));
      if (!offsetMode) {
        // auth-js reads the page number right after the first "=", so page comes first.
        const base = `${req.baseUrl}/admin/users`;
        const last = Math.ceil(total / perPage);
        const links = [];
        if (page < last) links.push(`<${base}?page=${page + 1}&per_page=${perPage}>; rel="next"`);
        links.push(`<${base}?page=${last}&per_page=${perPage}>; rel="last"`);
        res.setHeader('Link', links.join(', '));
      }
      res.status(200).json({ users: users.map(userJson), aud: 'authenticated' });
    }),
  );

  router.post(
    '/admin/users',
    handle(deps, async (req, res) => {
      const { role: actor } = requireAdmin(req, deps);
      const body: DeclaredFields<BodyOf<typeof adminEndpoints.createUser>> = bodyOf(req);
      if (isBlank(body.email) && isBlank(body.phone)) throw authErrors.validation('Cannot create a user without either an email or phone');
      const email = isBlank(body.email) ? null : acceptEmail(body.email);
      const phone = isBlank(body.phone) ? null : acceptPhone(body.phone);
      const phoneConfirmed = optionalBoolean(body.phone_confirm, 'phone_confirm') ?? false;
      const password =
        body.password === undefined || body.password === null ? null : acceptNewPassword(body.password, 'password must be a string');
      const userMetadata = optionalObject(body.user_metadata, 'user_metadata') ?? {};
      const appMetadata = optionalObject(body.app_metadata, 'app_metadata') ?? {};
      const now = deps.now();
      const confirmed = optionalBoolean(body.email_confirm, 'email_confirm') ?? true;
      const bannedUntil = requestedBan(body, now) ?? null;
      const passwordHash = password === null ? null : await deps.passwords.hash(password);
      const user = await inTransaction(deps.ctx.adminPool, async (db) => {
        const providers = [...(email === null ? [] : ['email']), ...(phone === null ? [] : ['phone'])];
        const created = await insertUser(db, {
          email,
          phone,
          passwordHash,
          userMetadata,
          appMetadata: { ...appMetadata, provider: providers[0], providers },
          emailConfirmedAt: confirmed && email !== null ? now : null,
          phoneConfirmedAt: phoneConfirmed ? now : null,
          confirmationSentAt: null,
          bannedUntil,
          now,
        }).catch((error: unknown) => {
          if (error instanceof DuplicatePhoneError) throw new AuthError(422, 'phone_exists', 'Phone number already registered by another user');
          throw error instanceof DuplicateEmailError ? authErrors.emailExists() : error;
        });
        await writeAudit(db, { event: 'user_created', userId: created.id, ip: clientIp(req), payload: { email, phone, actor }, at: now });
        return created;
      });
      res.status(200).json(userJson(user));
    }),
  );

  router.get(
    '/admin/users/:id',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      const user = await findUserById(deps.ctx.adminPool, String(req.params.id));
      if (user === null) throw authErrors.userNotFound(404);
      res.status(200).json(userJson(user));
    }),
  );

  router.put(
    '/admin/users/:id',
    handle(deps, async (req, res) => {
      const { role: actor } = requireAdmin(req, deps);
      const body: DeclaredFields<BodyOf<typeof adminEndpoints.updateUser>> = bodyOf(req);
      const now = deps.now();
      const password =
        body.password === undefined || body.password === null ? undefined : acceptNewPassword(body.password, 'password must be a string');
      const userMetadata = optionalObject(body.user_metadata, 'user_metadata');
      const appMetadata = optionalObject(body.app_metadata, 'app_metadata');
      const emailConfirm = optionalBoolean(body.email_confirm, 'email_confirm');
      const email = body.email === undefined || body.email === null ? undefined : acceptEmail(body.email);
      const phone = isBlank(body.phone) ? undefined : acceptPhone(body.phone);
      const phoneConfirm = optionalBoolean(body.phone_confirm, 'phone_confirm');
      const ban = requestedBan(body, now);
      const passwordHash = password === undefined ? undefined : await deps.passwords.hash(password);
      const ip = clientIp(req);
      const updated = await inTransaction(deps.ctx.adminPool, async (db) => {
        const user = await findUserById(db, String(req.params.id), true);
        if (user === null) throw authErrors.userNotFound(404);
        const emailChanges = email !== undefined && email !== user.email;
        const linked = emailChanges ? linkAnonymous(user, emailConfirm === true) : {};
        const base: UserChange = {
          ...linked,
          // The admin's address wins over one the user asked for and has not confirmed yet.
          ...(emailChanges ? { email } : {}),
          ...(emailChanges || passwordHash !== undefined ? cancelPendingEmailChange(user) : {}),
          ...(passwordHash === undefined ? {} : { encrypted_password: passwordHash }),
          ...(userMetadata === undefined ? {} : { raw_user_meta_data: mergeMetadata(user.raw_user_meta_data, userMetadata) }),
          ...(appMetadata === undefined ? {} : { raw_app_meta_data: mergeMetadata(linked.raw_app_meta_data ?? user.raw_app_meta_data, appMetadata) }),
          ...(emailConfirm === true && user.email_confirmed_at === null ? { email_confirmed_at: now } : {}),
          ...(ban === undefined ? {} : { banned_until: ban }),
        };
        const change: UserChange = { ...base, ...phoneChange(user, base.raw_app_meta_data ?? user.raw_app_meta_data, phone, phoneConfirm === true, now) };
        const row =
          (await updateUser(db, user.id, change, now).catch((error: unknown) => {
            if (error instanceof DuplicatePhoneError) throw authErrors.phoneExists();
            throw error instanceof DuplicateEmailError ? authErrors.emailExists() : error;
          })) ?? user;
        if (passwordHash !== undefined) {
          await revokeSessions(db, user.id, 'global', null, 'admin', now);
          await consumeUserTokens(db, user.id, now);
        } else if (emailChanges) {
          await consumeUserTokens(db, user.id, now, 'email_change');
        }
        const event: AuditEvent = ban === undefined ? 'user_modified' : ban === null ? 'user_unbanned' : 'user_banned';
        await writeAudit(db, {
          event,
          userId: user.id,
          ip,
          payload: { actor, fields: Object.keys(body) },
          at: now,
        });
        return row;
      });
      res.status(200).json(userJson(updated));
    }),
  );

  router.delete(
    '/admin/users/:id',
    handle(deps, async (req, res) => {
      const { role: actor } = requireAdmin(req, deps);
      const now = deps.now();
      const deleted = await inTransaction(deps.ctx.adminPool, async (db) => {
        const user = await deleteUser(db, String(req.params.id));
        if (user === null) throw authErrors.userNotFound(404);
        await writeAudit(db, { event: 'user_deleted', userId: user.id, ip: clientIp(req), payload: { email: user.email, actor }, at: now });
        return user;
      });
      res.status(200).json(userJson(deleted));
    }),
  );
}

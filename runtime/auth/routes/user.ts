import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { cancelPendingEmailChange, requestEmailChange } from '../flows/email-change.js';
import { authErrors } from '../http/errors.js';
import type { LogoutQuery } from './session-endpoints.js';
import type { UserUpdateFields } from './user-endpoints.js';
import { bodyOf, enforceRateLimit, handle, optionalObject, queryString } from '../http/handler.js';
import { mailEmailChange } from '../flows/mail-out.js';
import { consumeUserTokens } from '../storage/one-time-tokens.js';
import { acceptNewPassword } from '../http/password-input.js';
import { acceptPkceParams } from '../credentials/pkce.js';
import { consumeNonce, nonceRequired, reauthenticationErrors } from '../flows/reauthentication.js';
import { clientIp, requireUser } from '../http/request-auth.js';
import { revokeSessions, type LogoutScope } from '../storage/sessions.js';
import { userJson } from '../storage/user-json.js';
import { mergeMetadata, updateUser, type UserChange } from '../storage/users.js';
import { acceptEmail, acceptRedirect, isBlank } from '../http/request-fields.js';
import { acceptPhone } from '../input/phone-number.js';
import { requestPhoneChange } from '../flows/phone-change.js';
import { acceptChannel, phoneEnabled } from '../flows/phone-otp.js';

/** The requested new address, normalised; undefined when none was sent (GoTrue ignores "") or it is the current one. */
function acceptNewEmail(raw: unknown, current: string | null): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const email = acceptEmail(raw);
  return email === current?.toLowerCase() ? undefined : email;
}

/** The requested new number (E.164, as stored); undefined when none was sent or it is the current one (GoTrue's UserUpdate). */
function acceptNewPhone(deps: AuthDeps, raw: unknown, current: string | null): string | undefined {
  if (isBlank(raw)) return undefined;
  const phone = acceptPhone(raw);
  if (phone === current) return undefined;
  if (!phoneEnabled(deps)) throw authErrors.phoneDisabled(422, 'Phone logins are disabled');
  return phone;
}

function acceptScope(value: string | undefined): LogoutScope {
  if (value === undefined || value === '' || value === 'global') return 'global';
  if (value === 'local' || value === 'others') return value;
  throw authErrors.validation(`Unsupported logout scope "${value}"`);
}

export function registerUser(router: Router, deps: AuthDeps): void {
  router.get(
    '/user',
    handle(deps, async (req, res) => {
      const { user } = await requireUser(req, deps);
      res.status(200).json(userJson(user));
    }),
  );

  router.put(
    '/user',
    handle(deps, async (req, res) => {
      const { user, session } = await requireUser(req, deps);
      await enforceRateLimit(req, deps, 'user');
      const raw = bodyOf(req);
      // A field the endpoint refuses (admins set it through /admin/users), so not one it declares.
      if (raw.app_metadata !== undefined) throw authErrors.notAdmin();
      const body: UserUpdateFields = raw;
      const newEmail = acceptNewEmail(body.email, user.email);
      const newPhone = acceptNewPhone(deps, body.phone, user.phone ?? null);
      const channel = newPhone === undefined ? 'sms' : acceptChannel(deps, body.channel);
      const redirectTo = newEmail === undefined ? null : acceptRedirect(req, deps);
      const pkce = acceptPkceParams(body);
      const data = optionalObject(body.data, 'data');
      // An anonymous user links an address first (or with the password): a password alone would sign in nobody.
      if (user.is_anonymous && !isBlank(body.password) && isBlank(body.email) && isBlank(body.phone)) throw authErrors.anonymousPasswordWithoutEmail();
      let passwordHash: string | undefined;
      let nonce: string | null = null;
      if (body.password !== undefined && body.password !== null) {
        if (nonceRequired(deps.ctx.settings, session, deps.now())) {
          if (isBlank(body.nonce)) throw reauthenticationErrors.needed();
          nonce = String(body.nonce);
        }
        const password = acceptNewPassword(body.password, 'Password update requires a password');
        if (user.encrypted_password !== null && (await deps.passwords.compare(password, user.encrypted_password))) {
          throw authErrors.samePassword();
        }
        passwordHash = await deps.passwords.hash(password);
      }
      const change: UserChange = {
        ...(data === undefined ? {} : { raw_user_meta_data: mergeMetadata(user.raw_user_meta_data, data) }),
        ...(passwordHash === undefined ? {} : { encrypted_password: passwordHash, ...cancelPendingEmailChange(user) }),
      };
      const now = deps.now();
      const ip = clientIp(req);
      const outcome = await inTransaction(deps.ctx.adminPool, async (db) => {
        if (nonce !== null) await consumeNonce(db, user.id, nonce, now);
        const row = (await updateUser(db, user.id, change, now)) ?? user;
        if (passwordHash !== undefined) {
          // A new password signs out every other device and voids pending links.
          await revokeSessions(db, user.id, session === null ? 'global' : 'others', session?.id ?? null, 'password', now);
          await consumeUserTokens(db, user.id, now);
          await writeAudit(db, { event: 'user_updated_password', userId: user.id, ip, payload: { via: 'user' }, at: now });
        }
        if (data !== undefined) await writeAudit(db, { event: 'user_modified', userId: user.id, ip, payload: { fields: ['user_metadata'] }, at: now });
        const phoned = newPhone === undefined ? row : await requestPhoneChange(deps, db, row, newPhone, channel, ip);
        if (newEmail === undefined) return { user: phoned, token: null, currentToken: null };
        const { settings } = deps.ctx;
        return requestEmailChange(db, phoned, { newEmail, immediate: settings['auth.autoconfirm'], secure: settings['auth.secure_email_change'], pkce, ip, now });
      });
      if (newEmail !== undefined) {
        mailEmailChange(deps, { account: user.email ?? '', newEmail, token: outcome.token, currentToken: outcome.currentToken, redirectTo });
      }
      res.status(200).json(userJson(outcome.user));
    }),
  );

  router.post(
    '/logout',
    handle(deps, async (req, res) => {
      const scope = acceptScope(queryString<LogoutQuery>(req, 'scope'));
      const { user, session } = await requireUser(req, deps);
      const now = deps.now();
      await inTransaction(deps.ctx.adminPool, async (db) => {
        // GoTrue: a token without a session signs the user out everywhere, whatever the scope.
        const revoked = await revokeSessions(db, user.id, session === null ? 'global' : scope, session?.id ?? null, 'logout', now);
        await writeAudit(db, { event: 'logout', userId: user.id, ip: clientIp(req), payload: { scope, sessions_revoked: revoked }, at: now });
      });
      res.status(204).end();
    }),
  );
}

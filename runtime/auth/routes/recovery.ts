import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { cancelPendingEmailChange } from '../flows/email-change.js';
import { authErrors } from '../http/errors.js';
import { bodyOf, enforceRateLimit, handle, inBackground } from '../http/handler.js';
import { createFlowState } from '../storage/flow-state.js';
import { mailLink } from '../flows/mail-out.js';
import { consumeUserTokens, findOneTimeToken, issueOneTimeToken } from '../storage/one-time-tokens.js';
import { acceptNewPassword } from '../http/password-input.js';
import { acceptPkceParams } from '../credentials/pkce.js';
import { clientIp, requireApiKey } from '../http/request-auth.js';
import { revokeSessions } from '../storage/sessions.js';
import { findUserByEmail, findUserById, updateUser } from '../storage/users.js';
import type { BodyOf, DeclaredFields } from '../../http/endpoint.js';
import type { authEndpoints } from './endpoints.js';
import { acceptEmail, acceptRedirect } from '../http/request-fields.js';

export const RECOVER_MESSAGE = 'If an account with this e-mail address exists, a password recovery link has been sent to it';
export const RESET_MESSAGE = 'Your password has been reset; sign in with the new password';

export function registerRecovery(router: Router, deps: AuthDeps): void {
  router.post(
    '/recover',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'recover');
      const body: DeclaredFields<BodyOf<typeof authEndpoints.recover>> = bodyOf(req);
      const email = acceptEmail(body.email);
      const pkce = acceptPkceParams(body);
      const redirectTo = acceptRedirect(req, deps);
      const ip = clientIp(req);
      const now = deps.now();
      // Looked up after the answer has gone: neither content nor timing tells whether the address exists.
      inBackground(deps, 'password recovery', async () => {
        const token = await inTransaction(deps.ctx.adminPool, async (db) => {
          const user = await findUserByEmail(db, email);
          if (user === null) return null;
          await updateUser(db, user.id, { recovery_sent_at: now }, now);
          await writeAudit(db, { event: 'user_recovery_requested', userId: user.id, ip, payload: { email }, at: now });
          const flowStateId = pkce === null ? null : await createFlowState(db, user.id, 'recovery', pkce, now);
          return issueOneTimeToken(db, user.id, 'recovery', now, { flowStateId });
        });
        if (token !== null) mailLink(deps, { kind: 'recovery', to: email, issued: token, redirectTo });
      });
      res.status(200).json({ message: RECOVER_MESSAGE });
    }),
  );

  router.post(
    '/reset',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'verify');
      const body: DeclaredFields<BodyOf<typeof authEndpoints.reset>> = bodyOf(req);
      if (typeof body.token !== 'string' || body.token === '') throw authErrors.validation('Reset requires the recovery token');
      const password = acceptNewPassword(body.password, 'Reset requires a new password');
      const passwordHash = await deps.passwords.hash(password);
      const now = deps.now();
      const ip = clientIp(req);
      await inTransaction(deps.ctx.adminPool, async (db) => {
        const found = await findOneTimeToken(db, body.token, 'recovery', now, true);
        if (found === null) throw authErrors.otpExpired();
        const user = await findUserById(db, found.userId, true);
        if (user === null) throw authErrors.otpExpired();
        // Following the recovery link proved the address, as GoTrue's recovery confirms it too.
        await updateUser(
          db,
          user.id,
          { encrypted_password: passwordHash, email_confirmed_at: user.email_confirmed_at ?? now, ...cancelPendingEmailChange(user) },
          now,
        );
        await consumeUserTokens(db, user.id, now);
        const revoked = await revokeSessions(db, user.id, 'global', null, 'password', now);
        await writeAudit(db, { event: 'user_updated_password', userId: user.id, ip, payload: { via: 'reset', sessions_revoked: revoked }, at: now });
      });
      res.status(200).json({ message: RESET_MESSAGE });
    }),
  );
}

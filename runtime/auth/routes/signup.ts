import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import type { SignupFields } from './session-endpoints.js';
import { bodyOf, enforceRateLimit, handle, optionalObject } from '../http/handler.js';
import { mailLink } from '../flows/mail-out.js';
import { createFlowState } from '../storage/flow-state.js';
import { issueOneTimeToken, type IssuedOneTimeToken } from '../storage/one-time-tokens.js';
import { acceptPkceParams, type PkceChallenge } from '../credentials/pkce.js';
import { acceptNewPassword } from '../http/password-input.js';
import { signUpAnonymously } from './anonymous.js';
import { signUpWithPhone } from './phone-signup.js';
import { clientIp, requireApiKey } from '../http/request-auth.js';
import { openSession } from '../storage/sessions.js';
import { sessionJson } from '../http/session-response.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { acceptEmail, acceptRedirect, isBlank } from '../http/request-fields.js';
import { decoyUserJson, userJson } from '../storage/user-json.js';
import { DuplicateEmailError, EMAIL_APP_METADATA, findUserByEmail, insertUser, updateUser } from '../storage/users.js';

/** A confirmation link, ending a PKCE flow when the client started one. */
async function issueConfirmation(db: Queryable, userId: string, pkce: PkceChallenge | null, now: Date): Promise<IssuedOneTimeToken> {
  const flowStateId = pkce === null ? null : await createFlowState(db, userId, 'email/signup', pkce, now);
  return issueOneTimeToken(db, userId, 'confirmation', now, { flowStateId });
}

export function registerSignup(router: Router, deps: AuthDeps): void {
  router.post(
    '/signup',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      const body: SignupFields = bodyOf(req);
      // GoTrue's order: no address at all is an anonymous sign-in, with its own switch and rate limit.
      if (isBlank(body.email) && isBlank(body.phone)) {
        await signUpAnonymously(req, res, deps, body);
        return;
      }
      await enforceRateLimit(req, deps, 'signup');
      if (deps.ctx.settings['auth.disable_signup']) throw authErrors.signupDisabled();
      const password = acceptNewPassword(body.password, 'Signup requires a valid password');
      if (!isBlank(body.email) && !isBlank(body.phone)) {
        throw authErrors.validation('Only an email address or phone number should be provided on signup.');
      }
      if (isBlank(body.email)) {
        await signUpWithPhone(req, res, deps, body, password);
        return;
      }
      const email = acceptEmail(body.email);
      const pkce = acceptPkceParams(body);
      const data = optionalObject(body.data, 'data') ?? {};
      const redirectTo = acceptRedirect(req, deps);
      const ip = clientIp(req);
      // Hashed before the lookup so a taken address costs the same time as a new one.
      const passwordHash = await deps.passwords.hash(password);
      const now = deps.now();
      // GoTrue asks the hook before creating a user, outside the transaction that creates it; a taken address is no new user.
      if (hookEnabled(deps, 'before_user_created') && (await findUserByEmail(deps.ctx.adminPool, email)) === null) {
        await runHook(deps, 'before_user_created', { user: decoyUserJson(randomUUID(), email, data, now) }, ip);
      }

      if (deps.ctx.settings['auth.autoconfirm']) {
        const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
          const created = await insertUser(db, {
            email,
            passwordHash,
            userMetadata: data,
            appMetadata: EMAIL_APP_METADATA,
            emailConfirmedAt: now,
            confirmationSentAt: null,
            bannedUntil: null,
            now,
          }).catch((error: unknown) => {
            throw error instanceof DuplicateEmailError ? authErrors.userAlreadyExists() : error;
          });
          const user = (await updateUser(db, created.id, { last_sign_in_at: now }, now)) ?? created;
          const opened = await openSession(db, user.id, 'password', now);
          await writeAudit(db, { event: 'user_signedup', userId: user.id, ip, payload: { email, autoconfirmed: true }, at: now });
          await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: 'signup' }, at: now });
          return { user, ...opened };
        });
        const session = await sessionJson(deps, issued.user, issued.session, issued.refreshToken);
        res.status(200).json({ ...session, session });
        return;
      }

      const outcome = await inTransaction(deps.ctx.adminPool, async (db) => {
        const existing = await findUserByEmail(db, email);
        if (existing !== null) {
          await writeAudit(db, { event: 'user_repeated_signup', userId: existing.id, ip, payload: { email }, at: now });
          if (existing.email_confirmed_at !== null) return { created: null, token: null };
          // Still unconfirmed: the owner may have lost the first mail, so a fresh link goes out.
          await updateUser(db, existing.id, { confirmation_sent_at: now }, now);
          return { created: null, token: await issueConfirmation(db, existing.id, pkce, now) };
        }
        const created = await insertUser(db, {
          email,
          passwordHash,
          userMetadata: data,
          appMetadata: EMAIL_APP_METADATA,
          emailConfirmedAt: null,
          confirmationSentAt: now,
          bannedUntil: null,
          now,
        });
        await writeAudit(db, { event: 'user_signedup', userId: created.id, ip, payload: { email }, at: now });
        await writeAudit(db, { event: 'user_confirmation_requested', userId: created.id, ip, payload: { email }, at: now });
        return { created, token: await issueConfirmation(db, created.id, pkce, now) };
      }).catch((error: unknown) => {
        // Lost a race with a concurrent sign-up of the same address: answer as for a taken one.
        if (error instanceof DuplicateEmailError) return { created: null, token: null };
        throw error;
      });
      if (outcome.token !== null) mailLink(deps, { kind: 'confirmation', to: email, issued: outcome.token, redirectTo });
      const user = outcome.created !== null ? userJson(outcome.created) : decoyUserJson(randomUUID(), email, data, now);
      res.status(200).json({ user, session: null });
    }),
  );
}

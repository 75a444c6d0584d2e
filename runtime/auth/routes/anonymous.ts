import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { SignupFields } from './session-endpoints.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { enforceRateLimit, optionalObject } from '../http/handler.js';
import { clientIp } from '../http/request-auth.js';
import { openSession } from '../storage/sessions.js';
import { sessionJson } from '../http/session-response.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { userJson } from '../storage/user-json.js';
import { insertUser, updateUser } from '../storage/users.js';

/**
 * GoTrue's anonymous sign-in (supabase-js `signInAnonymously`): `POST /signup` with neither
 * e-mail nor phone. Refused unless the project enables it, then counted against its own
 * hourly limit, then refused when sign-ups are off; else a user with no address, no
 * identity and empty app_metadata, `is_anonymous` in its row and its tokens, signed in.
 */
export async function signUpAnonymously(req: Request, res: Response, deps: AuthDeps, body: SignupFields): Promise<void> {
  if (!deps.ctx.settings['auth.anonymous_users']) throw authErrors.anonymousDisabled();
  await enforceRateLimit(req, deps, 'anonymous');
  if (deps.ctx.settings['auth.disable_signup']) throw authErrors.signupDisabled();
  const data = optionalObject(body.data, 'data') ?? {};
  const ip = clientIp(req);
  const now = deps.now();
  if (hookEnabled(deps, 'before_user_created')) {
    const user = userJson({
      id: randomUUID(), aud: 'authenticated', role: 'authenticated', email: null, encrypted_password: null, email_confirmed_at: null,
      confirmation_sent_at: null, recovery_sent_at: null, last_sign_in_at: null, raw_app_meta_data: {}, raw_user_meta_data: data,
      banned_until: null, created_at: now, updated_at: now, is_anonymous: true,
    });
    await runHook(deps, 'before_user_created', { user }, ip);
  }
  const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const created = await insertUser(db, {
      email: null,
      isAnonymous: true,
      passwordHash: null,
      userMetadata: data,
      appMetadata: {},
      emailConfirmedAt: null,
      confirmationSentAt: null,
      bannedUntil: null,
      now,
    });
    const user = (await updateUser(db, created.id, { last_sign_in_at: now }, now)) ?? created;
    const opened = await openSession(db, user.id, 'anonymous', now);
    await writeAudit(db, { event: 'user_signedup', userId: user.id, ip, payload: { provider: 'anonymous' }, at: now });
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: 'anonymous' }, at: now });
    return { user, ...opened };
  });
  res.status(200).json(await sessionJson(deps, issued.user, issued.session, issued.refreshToken));
}

import type { Router } from 'express';
import { writeAudit } from '../audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { authErrors } from '../errors.js';
import { bodyOf, enforceRateLimit, handle, inBackground, queryString } from '../http.js';
import { mailLink } from '../mail-out.js';
import { issueOneTimeToken } from '../one-time-tokens.js';
import { clientIp, requireApiKey } from '../request-auth.js';
import { findUserByEmail, updateUser } from '../users.js';
import { acceptEmail, acceptRedirect } from './signup.js';

export const RESEND_MESSAGE = 'If this e-mail address awaits confirmation, a new confirmation link has been sent to it';

/** auth-js `resend({type: 'signup', email})`: a fresh confirmation link for an unconfirmed address, answered like /recover. */
export function registerResend(router: Router, deps: AuthDeps): void {
  router.post(
    '/resend',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'resend');
      const body = bodyOf(req);
      if (body.type !== 'signup') throw authErrors.validation('Resend supports only type signup');
      const email = acceptEmail(body.email);
      const redirectTo = acceptRedirect(deps, queryString(req, 'redirect_to') ?? body.redirect_to);
      const ip = clientIp(req);
      const now = deps.now();
      inBackground(deps, 'confirmation resend', async () => {
        const token = await inTransaction(deps.ctx.adminPool, async (db) => {
          const user = await findUserByEmail(db, email);
          if (user === null || user.email_confirmed_at !== null) return null;
          await updateUser(db, user.id, { confirmation_sent_at: now }, now);
          await writeAudit(db, { event: 'user_confirmation_requested', userId: user.id, ip, payload: { email, via: 'resend' }, at: now });
          return issueOneTimeToken(db, user.id, 'confirmation', now);
        });
        if (token !== null) mailLink(deps, { kind: 'confirmation', to: email, token, redirectTo });
      });
      res.status(200).json({ message: RESEND_MESSAGE });
    }),
  );
}

import type { Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { handle } from '../http/handler.js';
import { mailNonce } from '../flows/mail-out.js';
import { issueNonce } from '../flows/reauthentication.js';
import { clientIp, requireUser } from '../http/request-auth.js';
import { findUserById } from '../storage/users.js';
import { textNonce } from '../flows/phone-otp.js';

/**
 * auth-js `reauthenticate()`: mails the signed-in user a nonce for a sensitive change, or, as
 * GoTrue, texts it to a user with a phone number and no address; answers {}.
 */
export function registerReauthenticate(router: Router, deps: AuthDeps): void {
  router.get(
    '/reauthenticate',
    handle(deps, async (req, res) => {
      const { user } = await requireUser(req, deps);
      const email = user.email ?? '';
      const phone = user.phone ?? '';
      // An anonymous user has nowhere to receive a nonce.
      if (email === '' && phone === '') throw authErrors.validation('Reauthentication requires the user to have an email or a phone number');
      const now = deps.now();
      const ip = clientIp(req);
      const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
        const locked = (await findUserById(db, user.id, true)) ?? user;
        const nonce = await issueNonce(db, locked, deps.ctx.settings, ip, now);
        // Texted inside the transaction, as GoTrue sends it: a refused text leaves no nonce.
        if (email === '') await textNonce(deps, locked, phone, nonce.code, ip);
        return nonce;
      });
      if (email !== '') mailNonce(deps, email, issued);
      res.status(200).json({});
    }),
  );
}

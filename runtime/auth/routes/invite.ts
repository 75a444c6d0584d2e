import type { Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { bodyOf, handle, optionalObject } from '../http/handler.js';
import { invite } from '../flows/invites.js';
import { mailLink } from '../flows/mail-out.js';
import { clientIp, requireAdmin } from '../http/request-auth.js';
import { userJson } from '../storage/user-json.js';
import { acceptEmail, acceptRedirect } from '../http/request-fields.js';
import type { BodyOf, DeclaredFields } from '../../http/endpoint.js';
import type { adminEndpoints } from './admin-endpoints.js';

/** auth-js `auth.admin.inviteUserByEmail(email, {data, redirectTo})`: mails an invite link and answers the user. */
export function registerInvite(router: Router, deps: AuthDeps): void {
  router.post(
    '/invite',
    handle(deps, async (req, res) => {
      const { role: actor } = requireAdmin(req, deps);
      const body: DeclaredFields<BodyOf<typeof adminEndpoints.invite>> = bodyOf(req);
      const email = acceptEmail(body.email);
      const data = optionalObject(body.data, 'data') ?? {};
      const redirectTo = acceptRedirect(req, deps);
      const invitation = await inTransaction(deps.ctx.adminPool, (db) =>
        invite(db, { email, data, actor, ip: clientIp(req), now: deps.now() }),
      );
      mailLink(deps, { kind: 'invite', to: email, issued: invitation.issued, redirectTo });
      res.status(200).json(userJson(invitation.user));
    }),
  );
}

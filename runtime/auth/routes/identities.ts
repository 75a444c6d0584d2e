import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AuthError, authErrors } from '../http/errors.js';
import { handle } from '../http/handler.js';
import { deleteIdentity, syncProviders } from '../storage/identities.js';
import { clientIp, requireUser } from '../http/request-auth.js';
import { hasEmailIdentity } from '../storage/user-json.js';
import { findUserById, isUuid } from '../storage/users.js';

export const manualLinkingDisabled = (): AuthError => authErrors.disabled(404, 'manual_linking_disabled', 'Manual linking is disabled');

/** GoTrue's DeleteIdentity (supabase-js unlinkIdentity), with `auth.manual_linking` on. */
export function registerIdentities(router: Router, deps: AuthDeps): void {
  router.delete(
    '/user/identities/:identity_id',
    handle(deps, async (req, res) => {
      const { user } = await requireUser(req, deps);
      if (!deps.ctx.settings['auth.manual_linking']) throw manualLinkingDisabled();
      const identityId = req.params.identity_id;
      if (!isUuid(identityId)) throw new AuthError(404, 'validation_failed', 'identity_id must be an UUID');
      const now = deps.now();
      await inTransaction(deps.ctx.adminPool, async (db) => {
        const current = await findUserById(db, user.id, true);
        if (current === null) throw authErrors.userNotFound(404);
        const linked = current.identities ?? [];
        const hasEmail = hasEmailIdentity(current);
        if (linked.length + (hasEmail ? 1 : 0) <= 1) {
          throw new AuthError(422, 'single_identity_not_deletable', 'User must have at least 1 identity after unlinking');
        }
        const identity = linked.find((row) => row.id === identityId);
        const isEmailIdentity = hasEmail && identityId === current.id;
        if (identity === undefined && !isEmailIdentity) throw new AuthError(422, 'identity_not_found', "Identity doesn't exist");
        if (identity !== undefined) await deleteIdentity(db, identity.id);
        await writeAudit(db, {
          event: 'identity_unlinked',
          userId: current.id,
          ip: clientIp(req),
          payload: { identity_id: identityId, provider: identity?.provider ?? 'email', provider_id: identity?.provider_id ?? current.id },
          at: now,
        });
        await syncProviders(db, current.id, hasEmail && !isEmailIdentity, now);
      });
      res.status(200).json({});
    }),
  );
}

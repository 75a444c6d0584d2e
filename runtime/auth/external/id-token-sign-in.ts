import type { Request } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { authErrors } from '../http/errors.js';
import { idTokenClaimsError, idTokenProvider } from '../flows/id-token-grant.js';
import { requireUser } from '../http/request-auth.js';
import { openSession } from '../storage/sessions.js';
import { sessionJson, type SessionJson } from '../http/session-response.js';
import { askBeforeExternalSignUp, linkExternal, signInExternal } from './account-linking.js';
import { idTokenClaims } from './presets.js';

/**
 * POST /token?grant_type=id_token (supabase-js signInWithIdToken): an ID token the app got from
 * an OpenID Connect provider itself, checked against the provider's published keys, issuer,
 * audience (the configured client ids) and nonce, then signed in (or, with link_identity, linked
 * to the signed-in user) as the redirect flow would.
 */
export async function idTokenGrant(deps: AuthDeps, req: Request, body: Record<string, unknown>, ip: string | null): Promise<SessionJson> {
  const found = idTokenProvider(body, deps.ctx.settings['auth.external']);
  if (!('provider' in found)) throw found;
  const linking = body.link_identity === true;
  let targetId: string | null = null;
  if (linking) {
    if ((req.get('authorization') ?? '') === '') throw authErrors.validation('Linking requires a valid user access token in Authorization');
    targetId = (await requireUser(req, deps)).user.id;
  }
  let payload;
  try {
    payload = await deps.oidc.verify(found.issuer, String(body.id_token));
  } catch (error) {
    if ((error as { status?: number }).status === 500) throw error;
    throw authErrors.validation('Bad ID token');
  }
  const refusal = idTokenClaimsError(payload, found.clientIds, typeof body.nonce === 'string' ? body.nonce : '');
  if (refusal !== null) throw refusal;
  const external = { provider: found.provider, claims: idTokenClaims(payload) };
  if (targetId === null) await askBeforeExternalSignUp(deps, external, ip);
  const now = deps.now();
  const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const user = targetId === null ? await signInExternal(db, deps, external, ip) : await linkExternal(db, deps, targetId, external, ip);
    const opened = await openSession(db, user.id, 'oauth', now);
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: 'id_token', provider: found.provider, session_id: opened.session.id }, at: now });
    return { user, ...opened };
  });
  return await sessionJson(deps, issued.user, issued.session, issued.refreshToken);
}

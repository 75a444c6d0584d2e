import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { normaliseEmail } from '../input/email-address.js';
import { AuthError, authErrors, OAuthProtocolError } from '../http/errors.js';
import { exchangeAuthCode, type ExchangedFlow } from '../storage/flow-state.js';
import type { TokenFields, TokenQuery } from './session-endpoints.js';
import { bodyOf, enforceRateLimit, handle, queryString } from '../http/handler.js';
import { DUMMY_PASSWORD_HASH } from '../credentials/passwords.js';
import { clientIp, requireApiKey } from '../http/request-auth.js';
import { openSession, refreshSession, revokeSessions, type RefreshOutcome } from '../storage/sessions.js';
import { attemptDecisionFrom } from '../hooks/hook-output.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { sessionJson } from '../http/session-response.js';
import { idTokenGrant } from '../external/id-token-sign-in.js';
import { findUserByEmail, findUserById, findUserByPhone, isBanned, updateUser } from '../storage/users.js';
import { formatPhone } from '../../settings/phone-format.js';
import { phoneEnabled } from '../flows/phone-otp.js';
import { isBlank } from '../http/request-fields.js';
import { metrics } from '../../metrics.js';

const GRANT_KINDS: ReadonlySet<string> = new Set(['password', 'refresh_token', 'pkce', 'id_token', 'web3']);

const PASSWORD_HOOK_REJECTION = 'Further password verification attempts will be rejected.';

/** GoTrue's password verification attempt hook: told every attempt on an account with a password, it may refuse it. */
async function passwordHook(deps: AuthDeps, userId: string, valid: boolean, ip: string | null, now: Date): Promise<void> {
  if (!hookEnabled(deps, 'password_verification_attempt')) return;
  const decision = attemptDecisionFrom(await runHook(deps, 'password_verification_attempt', { user_id: userId, valid }, ip));
  if (!decision.reject) return;
  if (decision.shouldLogoutUser) await revokeSessions(deps.ctx.adminPool, userId, 'global', null, 'logout', now);
  await writeAudit(deps.ctx.adminPool, { event: 'login_failed', userId, ip, payload: { reason: 'password_verification_hook' }, at: now });
  throw new AuthError(400, 'invalid_credentials', decision.message === '' ? PASSWORD_HOOK_REJECTION : decision.message);
}

async function passwordGrant(deps: AuthDeps, body: TokenFields, ip: string | null): Promise<object> {
  if (!isBlank(body.email) && !isBlank(body.phone)) {
    throw authErrors.validation('Only an email address or phone number should be provided on login.');
  }
  const byPhone = isBlank(body.email);
  if (byPhone) {
    if (isBlank(body.phone)) throw authErrors.validation('missing email or phone');
    if (!phoneEnabled(deps)) throw authErrors.phoneDisabled(422, 'Phone logins are disabled');
  }
  const email = byPhone ? null : normaliseEmail(body.email);
  // GoTrue only formats the number here (no E.164 check): a malformed one finds nobody.
  const phone = byPhone ? formatPhone(String(body.phone)) : null;
  const password = typeof body.password === 'string' ? body.password : '';
  const user = phone !== null ? await findUserByPhone(deps.ctx.adminPool, phone) : email === null ? null : await findUserByEmail(deps.ctx.adminPool, email);
  // Unknown addresses and password-less accounts still pay for one bcrypt compare.
  const hash = user?.encrypted_password ?? DUMMY_PASSWORD_HASH;
  const matches = (await deps.passwords.compare(password, hash)) && user !== null && user.encrypted_password !== null;
  const now = deps.now();
  if (user !== null && user.encrypted_password !== null && !(matches && isBanned(user, now))) await passwordHook(deps, user.id, matches, ip, now);
  if (!matches || user === null) {
    await writeAudit(deps.ctx.adminPool, {
      event: 'login_failed',
      userId: user?.id ?? null,
      ip,
      payload: phone !== null ? { phone, reason: 'invalid_credentials' } : { email: email ?? String(body.email), reason: 'invalid_credentials' },
      at: now,
    });
    throw authErrors.invalidCredentials();
  }
  // Checked only after a correct password, so neither state leaks to a guesser.
  if (isBanned(user, now)) {
    await writeAudit(deps.ctx.adminPool, { event: 'login_failed', userId: user.id, ip, payload: { reason: 'user_banned' }, at: now });
    throw authErrors.userBanned(400);
  }
  if (byPhone && (user.phone_confirmed_at ?? null) === null) {
    await writeAudit(deps.ctx.adminPool, { event: 'login_failed', userId: user.id, ip, payload: { reason: 'phone_not_confirmed' }, at: now });
    throw authErrors.phoneNotConfirmed();
  }
  if (!byPhone && user.email_confirmed_at === null) {
    await writeAudit(deps.ctx.adminPool, { event: 'login_failed', userId: user.id, ip, payload: { reason: 'email_not_confirmed' }, at: now });
    throw authErrors.emailNotConfirmed();
  }
  const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const signedIn = (await updateUser(db, user.id, { last_sign_in_at: now }, now)) ?? user;
    const opened = await openSession(db, user.id, 'password', now);
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: 'password', session_id: opened.session.id }, at: now });
    return { user: signedIn, ...opened };
  });
  return await sessionJson(deps, issued.user, issued.session, issued.refreshToken);
}

async function refreshGrant(deps: AuthDeps, body: TokenFields, ip: string | null): Promise<object> {
  const presented = body.refresh_token;
  if (typeof presented !== 'string' || presented.length < 12 || presented.length > 256) {
    throw authErrors.validation('Refresh token is not valid');
  }
  const outcome = await refreshSession(
    deps.ctx.adminPool,
    presented,
    deps.ctx.settings['auth.refresh_reuse_interval'],
    deps.now(),
    ip,
  );
  if ('refreshToken' in outcome) {
    return await sessionJson(deps, outcome.user, outcome.session, outcome.refreshToken, 'token_refresh');
  }
  throw refreshFailure(outcome);
}

/** GoTrue's answer to a refresh that rotated nothing; `/oauth/token` answers its clients the same. */
export function refreshFailure(outcome: Exclude<RefreshOutcome, { refreshToken: string }>): AuthError {
  switch (outcome.kind) {
    case 'not_found':
      return authErrors.refreshTokenNotFound();
    case 'banned':
      return authErrors.userBanned(400, 'Invalid Refresh Token: User Banned');
    case 'session_revoked':
      return authErrors.sessionNotFound(400);
    case 'already_used':
      return authErrors.refreshTokenAlreadyUsed();
    case 'client_mismatch':
      if (outcome.sessionClientId === null) return new OAuthProtocolError('invalid_client', 'Client authentication not allowed for non-OAuth session');
      return new OAuthProtocolError('invalid_client', "Client does not match the session's OAuth client");
  }
}

/** auth-js exchangeCodeForSession: the code a PKCE mail link redirected with, and the verifier the client kept. */
async function pkceGrant(deps: AuthDeps, body: TokenFields, ip: string | null): Promise<object> {
  if (isBlank(body.auth_code) || isBlank(body.code_verifier)) {
    throw authErrors.validation('invalid request: both auth code and code verifier should be non-empty');
  }
  const now = deps.now();
  const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const flow = await exchangeAuthCode(db, String(body.auth_code), String(body.code_verifier), now);
    const user = await findUserById(db, flow.userId, true);
    if (user === null) throw authErrors.userNotFound(404);
    if (isBanned(user, now)) throw authErrors.userBanned(400);
    const signedIn = (await updateUser(db, user.id, { last_sign_in_at: now }, now)) ?? user;
    const opened = await openSession(db, user.id, flow.method, now);
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: flow.method, via: 'pkce', session_id: opened.session.id }, at: now });
    return { user: signedIn, flow, ...opened };
  });
  return { ...(await sessionJson(deps, issued.user, issued.session, issued.refreshToken)), ...providerTokens(issued.flow) };
}

/** GoTrue's provider_token / provider_refresh_token of an OAuth flow's session (omitted when empty). */
function providerTokens(flow: ExchangedFlow): Record<string, string> {
  const tokens: Record<string, string> = {};
  if (flow.providerToken !== null && flow.providerToken !== '') tokens.provider_token = flow.providerToken;
  if (flow.providerRefreshToken !== null && flow.providerRefreshToken !== '') tokens.provider_refresh_token = flow.providerRefreshToken;
  return tokens;
}

export function registerToken(router: Router, deps: AuthDeps): void {
  router.post(
    '/token',
    handle(
      deps,
      async (req, res) => {
        requireApiKey(req, deps);
        await enforceRateLimit(req, deps, 'token');
        // The document states the grants supabase-js uses (query `grant_type`, their bodies); GoTrue also takes the grant
        // type in the body, and the id_token grant reads fields of its own (flows/id-token-grant.ts).
        const raw = bodyOf(req);
        const body: TokenFields = raw;
        const grantType = queryString<TokenQuery>(req, 'grant_type') ?? (typeof raw.grant_type === 'string' ? raw.grant_type : undefined);
        const ip = clientIp(req);
        const grant = async (): Promise<object> => {
          if (grantType === 'password') return passwordGrant(deps, body, ip);
          if (grantType === 'refresh_token') return refreshGrant(deps, body, ip);
          if (grantType === 'pkce') return pkceGrant(deps, body, ip);
          if (grantType === 'id_token') return idTokenGrant(deps, req, raw, ip);
          if (grantType === 'web3') throw authErrors.disabled(422, 'web3_provider_disabled', 'Web3 provider is disabled');
          throw new AuthError(400, 'invalid_credentials', 'unsupported_grant_type');
        };
        // The kind is a label only when it is a grant this API knows: a client cannot make new series.
        const kind = grantType !== undefined && GRANT_KINDS.has(grantType) ? grantType : 'other';
        let session: object;
        try {
          session = await grant();
        } catch (error) {
          metrics.signIn(deps.ctx.ref, kind, 'failure');
          throw error;
        }
        metrics.signIn(deps.ctx.ref, kind, 'success');
        res.status(200).json(session);
      },
      503,
    ),
  );
}

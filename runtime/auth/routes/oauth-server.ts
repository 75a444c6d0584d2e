import express, { type Request, type Response, type Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import { issuerOf, type AuthDeps } from '../auth-deps.js';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import { AuthError, authErrors, OAuthProtocolError } from '../http/errors.js';
import { bodyOf, enforceRateLimit, handle, queryString } from '../http/handler.js';
import {
  approveAuthorization,
  findActiveConsent,
  insertAuthorization,
  listGrants,
  lockApprovedByCode,
  lockAuthorization,
  markAuthorization,
  revokeConsent,
  setAuthorizationUser,
  spendAuthorization,
  upsertConsent,
  type AuthorizationRow,
} from '../oauth-server/authorizations.js';
import { SUPPORTED_SCOPES, checkAuthorizeRequest, consentCovers, consentPageUrl, errorRedirect, parseScopes, successRedirect } from '../oauth-server/authorize-request.js';
import { clientAuthenticationProblem, clientCredentialsOf } from '../oauth-server/client-credentials.js';
import { findClient, type OAuthClientRow } from '../oauth-server/clients.js';
import { idTokenClaims, wantsIdToken } from '../oauth-server/id-token.js';
import { userInfoOf } from '../oauth-server/userinfo.js';
import { signAccessToken } from '../../tokens/jwt.js';
import { verifierMatches } from '../credentials/pkce.js';
import { allowedRedirect } from '../flows/redirects.js';
import { checkPresentApiKey, clientIp, requireUser } from '../http/request-auth.js';
import { sessionJson } from '../http/session-response.js';
import { openSession, refreshSession, revokeOAuthClientSessions, revokeSessions } from '../storage/sessions.js';
import { findUserById, isBanned, isUuid } from '../storage/users.js';
import { refreshFailure } from './token.js';
import { fieldList, type BodyOf, type DeclaredFields, type QueryOf } from '../../http/endpoint.js';
import type { oauthEndpoints } from './oauth-endpoints.js';

type TokenBody = DeclaredFields<BodyOf<typeof oauthEndpoints.token>>;

/** The parameters of `/oauth/authorize`, all of them read (each as Go's `Query().Get`: first value, else empty). */
const AUTHORIZE_PARAMETERS = fieldList<QueryOf<typeof oauthEndpoints.authorize>>()([
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'resource',
  'code_challenge',
  'code_challenge_method',
  'nonce',
]);

/**
 * The project as an OAuth 2.1 authorization server (Supabase Auth's oauthserver): the
 * authorization code flow with PKCE (`/oauth/authorize`, the consent API auth-js's
 * `auth.oauth` calls, `/oauth/token`), the user's grants, and `/oauth/userinfo`.
 * Mounted only with `auth.oauth_server.enabled`.
 */

const authorizationNotFound = (): AuthError => new AuthError(404, 'oauth_authorization_not_found', 'authorization not found');
const invalidClientCredentials = (message: string): AuthError => new AuthError(400, 'invalid_credentials', message);

/** The consent API is called from the consent page, which lives on the site URL: a browser's Origin must be allowed there. */
function checkOrigin(req: Request, deps: AuthDeps): void {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== '' && allowedRedirect(deps.redirects, origin) === null) {
    throw authErrors.validation('unauthorized request origin');
  }
}

function queryOf(req: Request): Record<string, string> {
  return Object.fromEntries(AUTHORIZE_PARAMETERS.map((name) => [name, queryString(req, name) ?? '']));
}

async function authorize(req: Request, res: Response, deps: AuthDeps): Promise<void> {
  checkPresentApiKey(req, deps);
  const query = queryOf(req);
  if (query.client_id === '') throw authErrors.validation('client_id is required');
  if (query.redirect_uri === '') throw authErrors.validation('redirect_uri is required');
  if (!isUuid(query.client_id)) throw new AuthError(400, 'oauth_client_not_found', 'invalid client_id format');
  const client = await findClient(deps.ctx.adminPool, query.client_id!);
  if (client === null) throw new AuthError(400, 'oauth_client_not_found', 'invalid client_id');
  // Exact match (RFC 6749 §3.1.2.3); a redirect URI not registered is never redirected to.
  if (!client.redirect_uris.includes(query.redirect_uri!)) throw authErrors.validation('invalid redirect_uri');
  const checked = checkAuthorizeRequest(query);
  if ('problem' in checked) {
    res.redirect(302, errorRedirect(query.redirect_uri!, 'invalid_request', checked.problem, query.state!));
    return;
  }
  const authorization = await insertAuthorization(deps.ctx.adminPool, client.id, checked.request, deps.now());
  const path = deps.ctx.settings['auth.oauth_server.authorization_path'];
  if (path === '') {
    res.redirect(302, errorRedirect(query.redirect_uri!, 'server_error', 'oauth authorization path not configured', query.state!));
    return;
  }
  res.redirect(302, consentPageUrl(deps.redirects.siteUrl, path, authorization.authorization_id));
}

type PendingLookup = { kind: 'found'; authorization: AuthorizationRow } | { kind: 'expired' };

/** The pending request of `authorizationId`, locked; an expired one is marked so (and reported after the commit). */
async function lockPending(db: Queryable, authorizationId: string, now: Date, notPending: string): Promise<PendingLookup> {
  const authorization = await lockAuthorization(db, authorizationId);
  if (authorization === null) throw authorizationNotFound();
  if (authorization.expires_at.getTime() < now.getTime()) {
    await markAuthorization(db, authorization.id, 'expired');
    return { kind: 'expired' };
  }
  if (authorization.status !== 'pending') throw authErrors.validation(notPending);
  return { kind: 'found', authorization };
}

function redirectOf(authorization: AuthorizationRow, code: string): { redirect_url: string } {
  return { redirect_url: successRedirect(authorization.redirect_uri, code, authorization.state ?? '') };
}

async function authorizationDetails(req: Request, res: Response, deps: AuthDeps): Promise<void> {
  checkOrigin(req, deps);
  const { user } = await requireUser(req, deps);
  const now = deps.now();
  const outcome = await inTransaction(deps.ctx.adminPool, async (db) => {
    const lookup = await lockPending(db, String(req.params.authorization_id), now, 'authorization request cannot be processed');
    if (lookup.kind === 'expired') return lookup;
    const { authorization } = lookup;
    if (authorization.user_id === null) {
      await setAuthorizationUser(db, authorization.id, user.id);
      const consent = await findActiveConsent(db, user.id, authorization.client_id);
      // A consent that already covers every scope asked for answers at once, as GoTrue.
      if (consent !== null && consentCovers(consent.scopes, authorization.scope)) {
        return { kind: 'approved' as const, redirect: redirectOf(authorization, await approveAuthorization(db, authorization.id, now)) };
      }
    } else if (authorization.user_id !== user.id) {
      throw authorizationNotFound();
    }
    return { kind: 'pending' as const, authorization, client: await findClient(db, authorization.client_id) };
  });
  if (outcome.kind === 'expired') throw authorizationNotFound();
  if (outcome.kind === 'approved') {
    res.status(200).json(outcome.redirect);
    return;
  }
  const { authorization, client } = outcome;
  if (client === null) throw authorizationNotFound();
  res.status(200).json({
    authorization_id: authorization.authorization_id,
    redirect_uri: authorization.redirect_uri,
    client: clientDetails(client.id, client),
    user: { id: user.id, ...(user.email && { email: user.email }) },
    scope: authorization.scope,
  });
}

/** GoTrue's client summary on the consent page and in the user's grants: empty texts left out. */
function clientDetails(id: string, client: Pick<OAuthClientRow, 'client_name' | 'client_uri' | 'logo_uri'>): Record<string, string> {
  return {
    id,
    ...(client.client_name && { name: client.client_name }),
    ...(client.client_uri && { uri: client.client_uri }),
    ...(client.logo_uri && { logo_uri: client.logo_uri }),
  };
}

async function consent(req: Request, res: Response, deps: AuthDeps): Promise<void> {
  checkOrigin(req, deps);
  const { user } = await requireUser(req, deps);
  const body: DeclaredFields<BodyOf<typeof oauthEndpoints.consent>> = bodyOf(req);
  const action = body.action;
  if (action !== 'approve' && action !== 'deny') throw authErrors.validation("action must be 'approve' or 'deny'");
  const now = deps.now();
  const outcome = await inTransaction(deps.ctx.adminPool, async (db) => {
    const lookup = await lockPending(db, String(req.params.authorization_id), now, 'authorization request is no longer pending');
    if (lookup.kind === 'expired') return lookup;
    const { authorization } = lookup;
    if (authorization.user_id !== user.id) throw authorizationNotFound();
    if (action === 'approve') {
      const code = await approveAuthorization(db, authorization.id, now);
      await upsertConsent(db, user.id, authorization.client_id, parseScopes(authorization.scope).join(' '), now);
      return { kind: 'answered' as const, answer: redirectOf(authorization, code) };
    }
    await markAuthorization(db, authorization.id, 'denied');
    return {
      kind: 'answered' as const,
      answer: { redirect_url: errorRedirect(authorization.redirect_uri, 'access_denied', 'User denied the request', authorization.state ?? '') },
    };
  });
  if (outcome.kind === 'expired') throw authorizationNotFound();
  res.status(200).json(outcome.answer);
}

/** RFC 6749 §2.3 client authentication, before anything else the token endpoint reads. */
async function authenticateClient(req: Request, deps: AuthDeps, body: TokenBody): Promise<OAuthClientRow> {
  const read = clientCredentialsOf(req.get('authorization'), body);
  if ('problem' in read) throw invalidClientCredentials(`Invalid client credentials: ${read.problem}`);
  const { credentials } = read;
  if (!isUuid(credentials.clientId)) throw invalidClientCredentials('Invalid client_id format');
  const client = await findClient(deps.ctx.adminPool, credentials.clientId);
  if (client === null) throw invalidClientCredentials('Invalid client credentials');
  const problem = clientAuthenticationProblem(client, credentials);
  if (problem !== null) throw invalidClientCredentials(problem);
  return client;
}

function text(body: TokenBody, name: keyof TokenBody): string {
  const value = body[name];
  return typeof value === 'string' ? value : '';
}

/** The OAuth token response: no user object, unlike GoTrue's own `/token`. */
function tokenResponse(session: { access_token: string; token_type: string; expires_in: number; refresh_token: string }): Record<string, unknown> {
  return { access_token: session.access_token, token_type: session.token_type, expires_in: session.expires_in, refresh_token: session.refresh_token };
}

async function authorizationCodeGrant(req: Request, deps: AuthDeps, client: OAuthClientRow, body: TokenBody): Promise<Record<string, unknown>> {
  const code = text(body, 'code');
  if (code === '') throw new OAuthProtocolError('invalid_request', 'code is required for authorization_code grant');
  const now = deps.now();
  const ip = clientIp(req);
  const outcome = await inTransaction(deps.ctx.adminPool, async (db) => {
    const authorization = await lockApprovedByCode(db, code);
    if (authorization === null) throw new OAuthProtocolError('invalid_grant', 'Invalid authorization code');
    if (authorization.session_id !== null) {
      await revokeReplayed(db, authorization, authorization.session_id, ip, now);
      return { kind: 'replayed' as const };
    }
    if (authorization.expires_at.getTime() < now.getTime()) throw new OAuthProtocolError('invalid_grant', 'Authorization code has expired');
    if (authorization.client_id !== client.id) throw new OAuthProtocolError('invalid_grant', 'Authorization code was not issued for this client');
    const resource = text(body, 'resource');
    if (resource !== '' && resource !== (authorization.resource ?? '')) {
      throw new OAuthProtocolError('invalid_grant', 'Authorization code resource does not match the resource parameter');
    }
    const redirectUri = text(body, 'redirect_uri');
    if (redirectUri !== '' && redirectUri !== authorization.redirect_uri) throw new OAuthProtocolError('invalid_grant', 'Invalid redirect_uri');
    const verifier = text(body, 'code_verifier');
    if (verifier === '') throw new OAuthProtocolError('invalid_grant', 'PKCE verification failed: code_verifier is required when PKCE challenge is present');
    if (!verifierMatches({ challenge: authorization.code_challenge, method: authorization.code_challenge_method }, verifier)) {
      throw new OAuthProtocolError('invalid_grant', 'PKCE verification failed: code challenge does not match previously saved code verifier');
    }
    if (authorization.user_id === null) throw new OAuthProtocolError('invalid_grant', 'Authorization code has no associated user');
    const user = await findUserById(db, authorization.user_id);
    if (user === null) throw new OAuthProtocolError('invalid_grant', 'User not found for authorization code');
    if (isBanned(user, now)) throw new OAuthProtocolError('access_denied', 'User is banned');
    // GoTrue signs ID tokens with an asymmetric key only; refused before the code is spent (GoTrue spends it first).
    if (wantsIdToken(authorization.scope) && deps.ctx.keyring.signing === null) throw new AuthError(500, 'unexpected_failure', 'Error generating ID token');
    const opened = await openSession(db, user.id, 'oauth_provider/authorization_code', now, { clientId: client.id, scopes: authorization.scope });
    await writeAudit(db, {
      event: 'login',
      userId: user.id,
      ip,
      payload: { provider_type: 'oauth_provider_authorization_code', client_id: client.id, session_id: opened.session.id },
      at: now,
    });
    await spendAuthorization(db, authorization.id, opened.session.id);
    return { kind: 'issued' as const, user, authorization, ...opened };
  });
  // Committed, so the revocation stands, and then refused as any unknown code (GoTrue deletes a spent code).
  if (outcome.kind === 'replayed') throw new OAuthProtocolError('invalid_grant', 'Invalid authorization code');
  const issued = outcome;
  const tokens = tokenResponse(await sessionJson(deps, issued.user, issued.session, issued.refreshToken));
  if (!wantsIdToken(issued.authorization.scope)) return tokens;
  const claims = idTokenClaims({ issuer: issuerOf(deps), user: issued.user, clientId: client.id, scope: issued.authorization.scope, nonce: issued.authorization.nonce, now });
  return { ...tokens, id_token: signAccessToken(deps.ctx.keyring, claims) };
}

/**
 * A spent code presented again: OAuth 2.1 §4.1.2 and RFC 6749 §10.5 have the server revoke
 * the tokens already issued from it, as the code may have leaked. Its exchange opened one
 * session; the access tokens and every refresh token of that session end with it.
 */
async function revokeReplayed(db: Queryable, authorization: AuthorizationRow, sessionId: string, ip: string | null, now: Date): Promise<void> {
  const userId = authorization.user_id;
  if (userId === null || (await revokeSessions(db, userId, 'local', sessionId, 'code_replay', now)) === 0) return;
  await writeAudit(db, {
    event: 'token_revoked',
    userId,
    ip,
    payload: { action: 'authorization_code_replayed', client_id: authorization.client_id, session_id: sessionId },
    at: now,
  });
}

async function refreshTokenGrant(req: Request, deps: AuthDeps, client: OAuthClientRow, body: TokenBody): Promise<Record<string, unknown>> {
  const presented = text(body, 'refresh_token');
  if (presented === '') throw new OAuthProtocolError('invalid_request', 'refresh_token is required for refresh_token grant');
  const outcome = await refreshSession(deps.ctx.adminPool, presented, deps.ctx.settings['auth.refresh_reuse_interval'], deps.now(), clientIp(req), client.id);
  if (!('refreshToken' in outcome)) throw refreshFailure(outcome);
  return tokenResponse(await sessionJson(deps, outcome.user, outcome.session, outcome.refreshToken, 'token_refresh'));
}

async function token(req: Request, res: Response, deps: AuthDeps): Promise<void> {
  checkPresentApiKey(req, deps);
  await enforceRateLimit(req, deps, 'token');
  const body: TokenBody = bodyOf(req);
  const client = await authenticateClient(req, deps, body);
  const grantType = text(body, 'grant_type');
  if (grantType === '') throw new OAuthProtocolError('invalid_request', 'grant_type is required');
  if (!(client.grant_types as readonly string[]).includes(grantType)) {
    throw new OAuthProtocolError('unsupported_grant_type', `Client is not allowed to use grant type: ${grantType}`);
  }
  const answer =
    grantType === 'authorization_code'
      ? await authorizationCodeGrant(req, deps, client, body)
      : grantType === 'refresh_token'
        ? await refreshTokenGrant(req, deps, client, body)
        : null;
  if (answer === null) throw new OAuthProtocolError('unsupported_grant_type', `Unsupported grant type: ${grantType}`);
  res.status(200).json(answer);
}

async function revokeGrant(req: Request, res: Response, deps: AuthDeps): Promise<void> {
  const { user } = await requireUser(req, deps);
  const clientId = queryString<QueryOf<typeof oauthEndpoints.revokeGrant>>(req, 'client_id') ?? '';
  if (clientId === '') throw authErrors.validation('client_id query parameter is required');
  if (!isUuid(clientId)) throw authErrors.validation('invalid client_id format');
  const now = deps.now();
  await inTransaction(deps.ctx.adminPool, async (db) => {
    if (!(await revokeConsent(db, user.id, clientId, now))) throw new AuthError(404, 'oauth_consent_not_found', 'No active grant found for this client');
    // Withdrawing the grant ends the client's sessions of this user: its refresh tokens stop working.
    await revokeOAuthClientSessions(db, clientId, user.id, now);
    await writeAudit(db, { event: 'token_revoked', userId: user.id, ip: clientIp(req), payload: { oauth_client_id: clientId, action: 'revoke_oauth_grant' }, at: now });
  });
  res.status(204).end();
}

/** How long clients may cache the discovery document (GoTrue's Cache-Control). */
const DISCOVERY_MAX_AGE_SECONDS = 600;

/** RFC 8414 metadata, which GoTrue also serves as the OpenID configuration; ID tokens are signed with the project's asymmetric key only. */
function discoveryDocument(deps: AuthDeps): Record<string, unknown> {
  const issuer = issuerOf(deps);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    ...(deps.ctx.settings['auth.oauth_server.allow_dynamic_registration'] && { registration_endpoint: `${issuer}/oauth/clients/register` }),
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256', 'plain'],
    id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    claims_supported: ['sub', 'aud', 'iss', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'phone_number', 'phone_number_verified', 'name', 'picture', 'preferred_username', 'updated_at'],
  };
}

export function registerOAuthServer(router: Router, deps: AuthDeps): void {
  router.get(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${DISCOVERY_MAX_AGE_SECONDS}`);
    res.status(200).json(discoveryDocument(deps));
  });
  router.get('/oauth/authorize', handle(deps, (req, res) => authorize(req, res, deps)));
  router.get('/oauth/authorizations/:authorization_id', handle(deps, (req, res) => authorizationDetails(req, res, deps)));
  router.post('/oauth/authorizations/:authorization_id/consent', handle(deps, (req, res) => consent(req, res, deps)));
  // OAuth clients send the token request form-encoded (RFC 6749 §4.1.3); JSON is read too, as GoTrue.
  router.post('/oauth/token', express.urlencoded({ extended: false, limit: '64kb' }), handle(deps, (req, res) => token(req, res, deps), 503));
  router.get(
    '/oauth/userinfo',
    handle(deps, async (req, res) => {
      const { user, session } = await requireUser(req, deps);
      res.status(200).json(userInfoOf(user, session?.scopes ?? null));
    }),
  );
  router.get(
    '/user/oauth/grants',
    handle(deps, async (req, res) => {
      const { user } = await requireUser(req, deps);
      const grants = await listGrants(deps.ctx.adminPool, user.id);
      res.status(200).json(grants.map((grant) => ({ client: clientDetails(grant.client_id, grant), scopes: parseScopes(grant.scopes), granted_at: grant.granted_at })));
    }),
  );
  router.delete('/user/oauth/grants', handle(deps, (req, res) => revokeGrant(req, res, deps)));
}

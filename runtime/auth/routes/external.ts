import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AuthError, authErrors } from '../http/errors.js';
import { askBeforeExternalSignUp, linkExternal, signInExternal } from '../external/account-linking.js';
import { authorizationUrl, enabledProvider, exchangeProviderCode } from '../external/provider-flow.js';
import { AUTH_CODE_LIFETIME_SECONDS, completeOAuthFlow, createOAuthFlow, deleteFlow, findOAuthFlow } from '../storage/flow-state.js';
import { handle, queryString } from '../http/handler.js';
import { acceptPkceParams } from '../credentials/pkce.js';
import { redirectWithFragment, redirectWithQuery, resolveRedirect } from '../flows/redirects.js';
import { checkPresentApiKey, clientIp, requireUser } from '../http/request-auth.js';
import { openSession } from '../storage/sessions.js';
import { sessionJson } from '../http/session-response.js';
import { isUuid } from '../storage/users.js';
import { manualLinkingDisabled } from './identities.js';
import { unsupportedProvider } from './unsupported.js';
import type { BodyOf, QueryOf } from '../../http/endpoint.js';
import type { externalEndpoints } from './external-endpoints.js';

type SignInQuery = QueryOf<typeof externalEndpoints.authorize>;
type LinkQuery = QueryOf<typeof externalEndpoints.linkIdentity>;
/** The flow's parameters: both `/authorize` and `/user/identities/authorize` declare each. */
type FlowParameter = keyof SignInQuery & keyof LinkQuery;
/** What the provider sends back: the query and the posted form declare each. */
type CallbackParameter = keyof QueryOf<typeof externalEndpoints.callback> & keyof BodyOf<typeof externalEndpoints.callbackForm>;

/**
 * Sign-in through an OAuth/OIDC provider as GoTrue's external.go runs it: /authorize sends the
 * browser to the provider with a flow_state id as `state`; /callback exchanges the provider's
 * code, signs the user in (or links the identity) and sends the browser to the app — with the
 * session in the fragment (implicit) or an auth code for /token?grant_type=pkce.
 */

/** GoTrue's oauthErrorMap: an HTTP status to the OAuth error the redirect carries. */
const OAUTH_ERRORS: Readonly<Record<number, string>> = { 400: 'invalid_request', 401: 'unauthorized_client', 403: 'access_denied', 500: 'server_error', 503: 'temporarily_unavailable' };
const ACCESS_DENIED_CODES = new Set(['signup_disabled', 'user_banned', 'provider_email_needs_verification']);

/** GoTrue's redirectErrors: the error in the query and, with the `sb` marker, in the fragment. */
function errorRedirect(target: string, error: AuthError | { error: string; description: string }): string {
  const fields: Record<string, string> =
    error instanceof AuthError
      ? { error: ACCESS_DENIED_CODES.has(error.code) ? 'access_denied' : (OAUTH_ERRORS[error.status] ?? 'server_error'), error_code: error.code, error_description: error.message }
      : { error: error.error, error_description: error.description };
  return redirectWithFragment(redirectWithQuery(target, fields), fields);
}

const FLOW_EXPIRY_MS = AUTH_CODE_LIFETIME_SECONDS * 1000;

async function startFlow(deps: AuthDeps, req: Request, linkingTargetId: string | null): Promise<string> {
  const flowParameter = (name: FlowParameter): string | undefined => queryString(req, name);
  const name = (flowParameter('provider') ?? '').toLowerCase();
  const provider = enabledProvider(deps, name);
  if (provider === null) throw authErrors.validation(unsupportedProvider(name));
  const pkce = acceptPkceParams({ code_challenge: flowParameter('code_challenge'), code_challenge_method: flowParameter('code_challenge_method') });
  const referrer = resolveRedirect(deps.redirects, [flowParameter('redirect_to'), req.get('referer')]);
  const state = await createOAuthFlow(deps.ctx.adminPool, { provider: name, pkce, referrer, linkingTargetId }, deps.now());
  const scopes = (flowParameter('scopes') ?? '').split(/\s+/).filter((scope) => scope !== '');
  return authorizationUrl(deps, provider, state, scopes);
}

async function callback(deps: AuthDeps, req: Request, res: Response): Promise<void> {
  const params: Record<string, unknown> = req.method === 'POST' && typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : req.query;
  const param = (name: CallbackParameter): string => (typeof params[name] === 'string' ? (params[name] as string) : '');
  const siteUrl = deps.redirects.siteUrl;
  const state = param('state');
  const refuse = (error: AuthError): void => res.redirect(303, errorRedirect(siteUrl, error));
  if (state === '') return refuse(new AuthError(400, 'bad_oauth_callback', 'OAuth state parameter missing'));
  if (!isUuid(state)) return refuse(new AuthError(400, 'bad_oauth_state', 'OAuth state parameter is invalid'));
  const flow = await findOAuthFlow(deps.ctx.adminPool, state);
  if (flow === null) return refuse(new AuthError(400, 'bad_oauth_state', 'OAuth state not found or expired'));
  const now = deps.now();
  if (flow.created_at.getTime() + FLOW_EXPIRY_MS < now.getTime()) return refuse(new AuthError(400, 'bad_oauth_state', 'OAuth state has expired'));
  if (flow.code_challenge !== null && flow.user_id !== null) return refuse(new AuthError(400, 'flow_state_already_used', 'State has already been used'));
  const target = flow.referrer ?? siteUrl;
  try {
    if (param('error') !== '') {
      res.redirect(302, errorRedirect(target, { error: param('error'), description: param('error_description') }));
      return;
    }
    if (param('code') === '') throw new AuthError(400, 'bad_oauth_callback', 'OAuth callback with missing authorization code missing');
    const provider = enabledProvider(deps, flow.provider_type);
    if (provider === null) throw new AuthError(400, 'oauth_provider_not_supported', `Unsupported provider: ${unsupportedProvider(flow.provider_type)}`);
    const tokens = await exchangeProviderCode(deps, provider, param('code'));
    const ip = clientIp(req);
    if (flow.linking_target_id === null) await askBeforeExternalSignUp(deps, tokens.user, ip);
    const location = await inTransaction(deps.ctx.adminPool, async (db) => {
      const current = await findOAuthFlow(db, flow.id);
      if (current === null || current.user_id !== null) throw new AuthError(400, 'flow_state_already_used', 'State has already been used');
      const user =
        flow.linking_target_id === null ? await signInExternal(db, deps, tokens.user, ip) : await linkExternal(db, deps, flow.linking_target_id, tokens.user, ip);
      if (flow.code_challenge !== null) {
        const code = await completeOAuthFlow(db, flow.id, user.id, { access: tokens.accessToken, refresh: tokens.refreshToken }, now);
        return redirectWithQuery(target, { code });
      }
      await deleteFlow(db, flow.id);
      const opened = await openSession(db, user.id, 'oauth', now);
      const session = await sessionJson(deps, user, opened.session, opened.refreshToken);
      return redirectWithFragment(target, {
        access_token: session.access_token,
        expires_at: String(session.expires_at),
        expires_in: String(session.expires_in),
        provider_token: tokens.accessToken,
        ...(tokens.refreshToken === '' ? {} : { provider_refresh_token: tokens.refreshToken }),
        refresh_token: session.refresh_token,
        token_type: session.token_type,
      });
    });
    res.redirect(302, location);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    res.redirect(302, errorRedirect(target, error));
  }
}

export function registerExternal(router: Router, deps: AuthDeps): void {
  // Opened by a browser, so like /verify it needs no key (a wrong one is still refused).
  router.get('/authorize', (req: Request, res: Response, next: NextFunction) => {
    if (enabledProvider(deps, (queryString<SignInQuery>(req, 'provider') ?? '').toLowerCase()) === null) {
      next();
      return;
    }
    handle(deps, async () => {
      checkPresentApiKey(req, deps);
      res.redirect(302, await startFlow(deps, req, null));
    })(req, res, next);
  });

  const callbackHandler = handle(deps, (req, res) => callback(deps, req, res));
  router.get('/callback', callbackHandler);
  // Apple (response_mode=form_post) posts the code back as a form.
  router.post('/callback', express.urlencoded({ extended: false, limit: '64kb' }), callbackHandler);

  router.get(
    '/user/identities/authorize',
    handle(deps, async (req, res) => {
      const { user } = await requireUser(req, deps);
      if (!deps.ctx.settings['auth.manual_linking']) throw manualLinkingDisabled();
      const url = await startFlow(deps, req, user.id);
      if (queryString<LinkQuery>(req, 'skip_http_redirect') === 'true') res.status(200).json({ url });
      else res.redirect(302, url);
    }),
  );
}

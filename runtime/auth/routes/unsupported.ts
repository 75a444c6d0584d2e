import type { Request, Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { authErrors } from '../http/errors.js';
import { handle, queryString } from '../http/handler.js';
import { checkPresentApiKey, requireAdmin, requireApiKey } from '../http/request-auth.js';
import { OAUTH_PROVIDERS } from '../http/settings-json.js';
import type { QueryOf } from '../../http/endpoint.js';
import type { externalEndpoints } from './external-endpoints.js';

/**
 * Supabase Auth endpoints of features Gantry does not have (SSO) or has
 * switched off for the project (passkeys, the OAuth 2.1 server), answered as Supabase
 * Auth answers with each feature switched off, so clients get its error codes
 * rather than a 404 that looks like a wrong URL.
 */

/** `/authorize` knows these besides the ones `/settings` lists. */
const OTHER_OAUTH_PROVIDERS = ['x', 'vercel_marketplace'];
const KNOWN_OAUTH_PROVIDERS: ReadonlySet<string> = new Set([...OAUTH_PROVIDERS, ...OTHER_OAUTH_PROVIDERS]);

const samlDisabled = () => authErrors.disabled(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
const passkeysDisabled = () => authErrors.disabled(404, 'passkey_disabled', 'Passkeys are disabled');
const oauthServerDisabled = () => authErrors.disabled(404, 'feature_disabled', 'OAuth server is disabled');

/** GoTrue's refusal of a provider that is unknown or not enabled. */
export function unsupportedProvider(name: string): string {
  if (name.startsWith('custom:')) return 'Unsupported provider: custom OAuth providers are disabled';
  if (KNOWN_OAUTH_PROVIDERS.has(name)) return 'Unsupported provider: provider is not enabled';
  return `Unsupported provider: Provider ${name} could not be found`;
}

export function registerUnsupported(router: Router, deps: AuthDeps): void {
  const refuse = (check: (req: Request) => unknown, answer: (req: Request) => Promise<never> | never) =>
    handle(deps, async (req) => {
      await check(req);
      await answer(req);
    });
  const apiKey = (req: Request) => requireApiKey(req, deps);

  // Opened by a browser, so like /verify it needs no key (a wrong one is still refused).
  router.get(
    '/authorize',
    refuse(
      (req) => checkPresentApiKey(req, deps),
      (req) => {
        throw authErrors.validation(unsupportedProvider((queryString<QueryOf<typeof externalEndpoints.authorize>>(req, 'provider') ?? '').toLowerCase()));
      },
    ),
  );
  router.all(['/sso', '/sso/saml/metadata', '/sso/saml/acs'], refuse(apiKey, () => {
    throw samlDisabled();
  }));
  if (!deps.ctx.settings['auth.passkey.enabled']) {
    router.all(['/passkeys', '/passkeys/*rest'], refuse(apiKey, () => {
      throw passkeysDisabled();
    }));
  }
  if (!deps.ctx.settings['auth.oauth_server.enabled']) {
    router.all(['/admin/oauth/*rest'], refuse((req) => requireAdmin(req, deps), () => {
      throw oauthServerDisabled();
    }));
    router.all(['/oauth/*rest', '/user/oauth/*rest', '/.well-known/oauth-authorization-server'], refuse(apiKey, () => {
      throw oauthServerDisabled();
    }));
  }
}

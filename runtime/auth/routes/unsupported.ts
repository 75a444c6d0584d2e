import type { Request, Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { authErrors } from '../errors.js';
import { bodyOf, handle, queryString } from '../http.js';
import { checkPresentApiKey, requireAdmin, requireApiKey, requireUser } from '../request-auth.js';
import { OAUTH_PROVIDERS } from '../settings-json.js';
import { findUserById, isUuid } from '../users.js';

/**
 * Supabase Auth endpoints of features Gantry does not have (OAuth, SSO, MFA,
 * phone, passkeys, identity linking), answered as Supabase
 * Auth answers with each feature switched off, so clients get its error codes
 * rather than a 404 that looks like a wrong URL.
 */

/** `/authorize` knows these besides the ones `/settings` lists. */
const OTHER_OAUTH_PROVIDERS = ['x', 'vercel_marketplace'];
const KNOWN_OAUTH_PROVIDERS: ReadonlySet<string> = new Set([...OAUTH_PROVIDERS, ...OTHER_OAUTH_PROVIDERS]);

const samlDisabled = () => authErrors.disabled(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
const passkeysDisabled = () => authErrors.disabled(404, 'passkey_disabled', 'Passkeys are disabled');
const oauthServerDisabled = () => authErrors.disabled(404, 'feature_disabled', 'OAuth server is disabled');
const manualLinkingDisabled = () => authErrors.disabled(404, 'manual_linking_disabled', 'Manual linking is disabled');

function unsupportedProvider(name: string): string {
  if (name.startsWith('custom:')) return 'Unsupported provider: custom OAuth providers are disabled';
  if (KNOWN_OAUTH_PROVIDERS.has(name)) return 'Unsupported provider: provider is not enabled';
  return `Unsupported provider: Provider ${name} could not be found`;
}

const MFA_ENROLL_DISABLED: Readonly<Record<string, readonly [string, string]>> = {
  totp: ['mfa_totp_enroll_not_enabled', 'MFA enroll is disabled for TOTP'],
  phone: ['mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone'],
  webauthn: ['mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn'],
};

/** No user has a factor: GoTrue's loadFactor answers for an id it cannot find. */
function factorNotFound(req: Request): never {
  if (!isUuid(req.params.factor_id)) throw authErrors.disabled(404, 'validation_failed', 'factor_id must be an UUID');
  throw authErrors.disabled(404, 'mfa_factor_not_found', 'Factor not found');
}

async function adminUser(req: Request, deps: AuthDeps): Promise<void> {
  requireAdmin(req, deps);
  if ((await findUserById(deps.ctx.adminPool, String(req.params.id))) === null) throw authErrors.userNotFound(404);
}

export function registerUnsupported(router: Router, deps: AuthDeps): void {
  const refuse = (check: (req: Request) => unknown, answer: (req: Request) => Promise<never> | never) =>
    handle(deps, async (req) => {
      await check(req);
      await answer(req);
    });
  const apiKey = (req: Request) => requireApiKey(req, deps);
  const user = (req: Request) => requireUser(req, deps);

  // Opened by a browser, so like /verify it needs no key (a wrong one is still refused).
  router.get(
    '/authorize',
    refuse(
      (req) => checkPresentApiKey(req, deps),
      (req) => {
        throw authErrors.validation(unsupportedProvider((queryString(req, 'provider') ?? '').toLowerCase()));
      },
    ),
  );
  router.all(['/sso', '/sso/saml/metadata', '/sso/saml/acs'], refuse(apiKey, () => {
    throw samlDisabled();
  }));
  router.all(['/passkeys', '/passkeys/*rest'], refuse(apiKey, () => {
    throw passkeysDisabled();
  }));
  router.all(['/oauth/*rest', '/.well-known/oauth-authorization-server'], refuse(apiKey, () => {
    throw oauthServerDisabled();
  }));

  router.get('/user/identities/authorize', refuse(user, () => {
    throw manualLinkingDisabled();
  }));
  router.delete('/user/identities/:identity_id', refuse(user, () => {
    throw manualLinkingDisabled();
  }));
  router.post('/factors', refuse(user, (req) => {
    const factorType = bodyOf(req).factor_type;
    const disabled = typeof factorType === 'string' ? MFA_ENROLL_DISABLED[factorType] : undefined;
    if (disabled === undefined) throw authErrors.validation('factor_type needs to be totp, phone, or webauthn');
    throw authErrors.disabled(422, disabled[0], disabled[1]);
  }));
  router.post(['/factors/:factor_id/challenge', '/factors/:factor_id/verify'], refuse(user, factorNotFound));
  router.delete('/factors/:factor_id', refuse(user, factorNotFound));

  router.get(
    '/admin/users/:id/factors',
    handle(deps, async (req, res) => {
      await adminUser(req, deps);
      res.status(200).json([]);
    }),
  );
  router.all('/admin/users/:id/factors/:factor_id', refuse((req) => adminUser(req, deps), factorNotFound));
}

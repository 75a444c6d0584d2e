import type { Request, Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { authErrors } from '../errors.js';
import { bodyOf, handle, queryString } from '../http.js';
import { checkPresentApiKey, requireAdmin, requireApiKey, requireUser } from '../request-auth.js';
import { OAUTH_PROVIDERS } from '../settings-json.js';
import { findUserByEmail } from '../users.js';
import { acceptEmail, isBlank } from './signup.js';

/**
 * Supabase Auth endpoints of features Gantry does not have (OAuth, SSO,
 * magic links, phone, passkeys, identity linking, invites), answered as Supabase
 * Auth answers with each feature switched off, so clients get its error codes
 * rather than a 404 that looks like a wrong URL.
 */

/** `/authorize` knows these besides the ones `/settings` lists. */
const OTHER_OAUTH_PROVIDERS = ['x', 'vercel_marketplace'];
const KNOWN_OAUTH_PROVIDERS: ReadonlySet<string> = new Set([...OAUTH_PROVIDERS, ...OTHER_OAUTH_PROVIDERS]);

const magicLinkDisabled = () => authErrors.disabled(422, 'email_provider_disabled', 'Login with magic link is disabled');
const samlDisabled = () => authErrors.disabled(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
const passkeysDisabled = () => authErrors.disabled(404, 'passkey_disabled', 'Passkeys are disabled');
const oauthServerDisabled = () => authErrors.disabled(404, 'feature_disabled', 'OAuth server is disabled');
const manualLinkingDisabled = () => authErrors.disabled(404, 'manual_linking_disabled', 'Manual linking is disabled');

function unsupportedProvider(name: string): string {
  if (name.startsWith('custom:')) return 'Unsupported provider: custom OAuth providers are disabled';
  if (KNOWN_OAUTH_PROVIDERS.has(name)) return 'Unsupported provider: provider is not enabled';
  return `Unsupported provider: Provider ${name} could not be found`;
}

/** /otp: GoTrue's checks in its order, then the magic-link or SMS answer with both switched off. */
async function otp(req: Request, deps: AuthDeps): Promise<never> {
  const body = bodyOf(req);
  const email = body.email;
  const phone = body.phone;
  if (!isBlank(email) && !isBlank(phone)) throw authErrors.validation('Only an email address or phone number should be provided');
  if (!isBlank(email) && !isBlank(body.channel)) throw authErrors.validation('Channel should only be specified with Phone OTP');
  if (deps.ctx.settings['auth.disable_signup'] && body.create_user !== false && !isBlank(email)) {
    if ((await findUserByEmail(deps.ctx.adminPool, acceptEmail(email))) === null) {
      throw authErrors.disabled(422, 'otp_disabled', 'Signups not allowed for otp');
    }
  }
  if (!isBlank(email)) throw magicLinkDisabled();
  if (!isBlank(phone)) throw authErrors.disabled(400, 'phone_provider_disabled', 'Unsupported phone provider');
  throw authErrors.validation('One of email or phone must be set');
}

export function registerUnsupported(router: Router, deps: AuthDeps): void {
  const refuse = (check: (req: Request) => unknown, answer: (req: Request) => Promise<never> | never) =>
    handle(deps, async (req) => {
      await check(req);
      await answer(req);
    });
  const apiKey = (req: Request) => requireApiKey(req, deps);
  const user = (req: Request) => requireUser(req, deps);
  const admin = (req: Request) => requireAdmin(req, deps);

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
  router.post('/otp', refuse(apiKey, (req) => otp(req, deps)));
  router.post('/magiclink', refuse(apiKey, () => {
    throw magicLinkDisabled();
  }));
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

  router.post('/invite', refuse(admin, () => {
    throw authErrors.disabled(404, 'feature_disabled', 'Invites are disabled');
  }));
  router.post('/admin/generate_link', refuse(admin, () => {
    throw authErrors.disabled(404, 'feature_disabled', 'Generating links is disabled');
  }));
}

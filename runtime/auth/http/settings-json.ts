import type { ProjectSettings } from '../../platform/project-context.js';
import { phoneProviderEnabled } from '../sms/phone-provider.js';

/** Every OAuth provider Supabase Auth lists under `external`, in its order; those with a preset here can be enabled. */
export const OAUTH_PROVIDERS = [
  'apple', 'azure', 'bitbucket', 'discord', 'facebook', 'snapchat', 'figma', 'fly', 'github', 'gitlab', 'google',
  'keycloak', 'kakao', 'linkedin', 'linkedin_oidc', 'notion', 'spotify', 'slack', 'slack_oidc', 'workos', 'twitch',
  'twitter',
] as const;

/**
 * GoTrue's `GET /settings`, every field as it holds here: the e-mail provider and,
 * when switched on, anonymous sign-ins, passkeys, phone (with an SMS sender) and the OAuth providers enabled; SAML does not exist.
 * Settings GoTrue keeps out of this answer follow under its configuration names,
 * so a client can tell them too.
 */
export function settingsJson(settings: ProjectSettings): Record<string, unknown> {
  const external: Record<string, boolean> = { anonymous_users: settings['auth.anonymous_users'] };
  for (const provider of OAUTH_PROVIDERS) external[provider] = settings['auth.external'][provider]?.enabled ?? false;
  Object.assign(external, { email: true, phone: phoneProviderEnabled(settings), zoom: false });
  return {
    external,
    disable_signup: settings['auth.disable_signup'],
    mailer_autoconfirm: settings['auth.autoconfirm'],
    phone_autoconfirm: settings['auth.sms'].autoconfirm,
    sms_provider: settings['auth.sms'].provider,
    saml_enabled: false,
    saml_private_key_next_configured: false,
    passkeys_enabled: settings['auth.passkey.enabled'],
    mailer_otp_exp: settings['auth.otp_expiry'],
    security_update_password_require_reauthentication: settings['auth.update_password_require_reauthentication'],
  };
}

import type { AuthDeps } from '../auth/auth-deps.js';

/**
 * The WebAuthn relying party of a project: the domain its credentials are scoped to
 * (`auth.webauthn.rp_id`) and the web origins allowed to run its ceremonies
 * (`auth.webauthn.rp_origins`), as GoTrue's WEBAUTHN_RP_ID / WEBAUTHN_RP_ORIGINS.
 * Unset, both follow the site URL (else PUBLIC_URL), where the app's pages live.
 */

export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origins: readonly string[];
}

/** A registrable domain or host name as WebAuthn takes it: lower-case labels, no scheme, port or path. */
export function isRpId(value: string): boolean {
  return value.length <= 253 && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(value);
}

/** An origin exactly as a browser writes it in clientDataJSON: scheme, host and port only. */
export function isRpOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
}

export function relyingParty(rpId: string, rpOrigins: readonly string[], siteUrl: string, publicUrl: string, name: string): RelyingParty {
  const fallback = new URL(siteUrl !== '' && isHttp(siteUrl) ? siteUrl : publicUrl);
  return {
    id: rpId !== '' ? rpId : fallback.hostname,
    name,
    origins: rpOrigins.length > 0 ? rpOrigins : [fallback.origin],
  };
}

function isHttp(url: string): boolean {
  return URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol);
}

/** The relying party of the project a router serves, named after the project. */
export function projectRelyingParty(deps: AuthDeps): RelyingParty {
  const { settings, config, ref } = deps.ctx;
  return relyingParty(settings['auth.webauthn.rp_id'], settings['auth.webauthn.rp_origins'], settings['auth.site_url'], config.publicUrl, ref);
}

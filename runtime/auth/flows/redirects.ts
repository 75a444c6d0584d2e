/**
 * Where mail links send the user, decided as Supabase Auth decides it: a
 * `redirect_to` (else the Referer) is followed only when it is on the site URL's
 * host or matches the project's allow-list; anything else is replaced by the site
 * URL, never followed and never an error.
 */
import { compileRedirectGlob } from '../../settings/redirect-glob.js';

export interface RedirectPolicy {
  /** The project's `auth.site_url`, or PUBLIC_URL when none is set. */
  readonly siteUrl: string;
  /** Where an unusable redirect goes: the configured site URL, or null for Gantry's own pages. */
  readonly fallback: string | null;
  readonly allowList: readonly ((url: string) => boolean)[];
}

export function redirectPolicy(siteUrlSetting: string, allowList: readonly string[], publicUrl: string): RedirectPolicy {
  return {
    siteUrl: siteUrlSetting === '' ? publicUrl : siteUrlSetting,
    fallback: siteUrlSetting === '' ? null : siteUrlSetting,
    allowList: allowList.map(compileRedirectGlob),
  };
}

const LOCALHOST_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

function isLocalhost(hostname: string): boolean {
  return LOCALHOST_NAMES.has(hostname) || hostname.endsWith('.localhost');
}

const IPV4 = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Go's net.ParseIP then IsLoopback, on a WHATWG-serialised host: null when it is not an IP literal. */
function ipLiteralIsLoopback(hostname: string): boolean | null {
  const v4 = IPV4.exec(hostname);
  if (v4 !== null) return v4[1] === '127';
  if (!hostname.startsWith('[')) return null;
  return hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

const REGULAR_HOSTNAME = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;

/** Schemes that run or embed content where they land: never a redirect target, whatever the allow-list says. */
const NEVER_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** WHATWG's special schemes: a browser reads `\` as `/` in them and rewrites their hosts. */
const SPECIAL_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);

/**
 * For a special scheme, whether the text names the host a browser goes to, as written:
 * `scheme://host` with no backslash anywhere (`https:evil`, `https:/\evil` and
 * `https://evil\@allowed` are refused, as GoTrue's Go parser refuses them) and no host a
 * browser would rewrite into another one (percent-escapes, `2130706433` for 127.0.0.1).
 * Hosts differing only in case, or written in Unicode (IDN), are the same host.
 */
function namesItsHost(raw: string, url: URL): boolean {
  if (raw.includes('\\')) return false;
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]+)/.exec(raw)?.[1];
  if (authority === undefined) return false;
  const host = authority.replace(/:\d*$/, '');
  if (host.includes('%')) return false;
  return /[^\x00-\x7f]/.test(host) || host.toLowerCase() === url.hostname;
}

/**
 * Supabase Auth's IsRedirectURLValid, judged on the URL as a browser parses it (WHATWG):
 * the answer is that parsed URL, serialised, which is what the Location and mail links
 * carry (never the text as given); null when not allowed. Stricter than GoTrue where the
 * text could mislead: a URL with userinfo (`https://allowed@evil`, `https://evil@allowed`)
 * is refused, so are script and data schemes, relative and scheme-relative URLs.
 */
export function allowedRedirect(policy: RedirectPolicy, raw: string): string | null {
  // GoTrue's rule: no control character or space anywhere (a browser strips tabs and newlines, hiding what it reads).
  if (raw === '' || /[\u0000-\u0020\u007f]/.test(raw) || !URL.canParse(raw)) return null;
  const url = new URL(raw);
  if (NEVER_SCHEMES.has(url.protocol) || url.username !== '' || url.password !== '') return null;
  if (SPECIAL_SCHEMES.has(url.protocol) && !namesItsHost(raw, url)) return null;
  const site = URL.canParse(policy.siteUrl) ? new URL(policy.siteUrl) : null;
  if (site !== null && site.hostname === url.hostname && site.protocol === url.protocol && (site.port === url.port || isLocalhost(url.hostname))) {
    return url.href;
  }
  const loopback = ipLiteralIsLoopback(url.hostname);
  if (loopback !== null) return loopback ? url.href : null;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && !REGULAR_HOSTNAME.test(url.hostname)) return null;
  // The allow-list is matched, without the fragment, on the text as given (GoTrue) and on the browser's form of it.
  const candidates = [raw.split('#')[0] as string, url.href.split('#')[0] as string];
  return policy.allowList.some((matches) => candidates.some(matches)) ? url.href : null;
}

/** The first allowed candidate (redirect_to, then Referer) as a browser reads it, else the policy's fallback. */
export function resolveRedirect(policy: RedirectPolicy, candidates: readonly unknown[]): string | null {
  for (const candidate of candidates) {
    const allowed = typeof candidate === 'string' ? allowedRedirect(policy, candidate) : null;
    if (allowed !== null) return allowed;
  }
  return policy.fallback;
}

/** GoTrue's implicit-flow redirect: parameters in the fragment, keys sorted, `sb` marker. */
export function redirectWithFragment(url: string, params: Readonly<Record<string, string>>): string {
  const fragment = new URLSearchParams(
    Object.entries({ ...params, sb: '' }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ).toString();
  const base = url.split('#')[0] as string;
  return `${base}#${fragment}`;
}

/** GoTrue's PKCE redirect: parameters in the query (a fragment, if any, is kept). */
export function redirectWithQuery(url: string, params: Readonly<Record<string, string>>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}

export type LinkType = 'signup' | 'invite' | 'magiclink' | 'recovery' | 'email_change';

export function verifyLink(publicUrl: string, ref: string, token: string, type: LinkType, redirectTo: string | null): string {
  const query = new URLSearchParams({ token, type });
  if (redirectTo !== null) query.set('redirect_to', redirectTo);
  return `${publicUrl}/v1/${ref}/auth/v1/verify?${query.toString()}`;
}

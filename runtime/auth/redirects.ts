/**
 * Where mail links send the user, decided as Supabase Auth decides it: a
 * `redirect_to` (else the Referer) is followed only when it is on the site URL's
 * host or matches the project's allow-list; anything else is replaced by the site
 * URL, never followed and never an error.
 */
import { compileRedirectGlob } from './redirect-glob.js';

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

interface UrlParts {
  readonly scheme: string;
  readonly hostname: string;
  readonly port: string;
}

/**
 * Scheme, host and port as Go's net/url reads them from the text as given: the
 * WHATWG parser would rewrite hosts (`2130706433` becomes `127.0.0.1`, case is
 * folded), and the allow-list rules are about what the client sent.
 */
function urlParts(raw: string): UrlParts | null {
  if (/[\u0000-\u001f\u007f]/.test(raw)) return null;
  const beforeFragment = raw.split('#')[0] as string;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(beforeFragment);
  const rest = scheme === null ? beforeFragment : beforeFragment.slice(scheme[0].length);
  let hostPort = '';
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split(/[/?]/)[0] as string;
    hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  }
  let hostname = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon !== -1 && /^:\d*$/.test(hostPort.slice(colon))) {
    hostname = hostPort.slice(0, colon);
    port = hostPort.slice(colon + 1);
  }
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { scheme: scheme === null ? '' : (scheme[1] as string).toLowerCase(), hostname, port };
}

const LOCALHOST_NAMES = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '::']);

function isLocalhost(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return LOCALHOST_NAMES.has(name) || name.endsWith('.localhost');
}

const OCTET = '(0|[1-9]\\d{0,2})';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/** Go's net.ParseIP then IsLoopback: null when the host is not an IP literal. */
function ipLiteralIsLoopback(hostname: string): boolean | null {
  const v4 = IPV4.exec(hostname.replace(/^::ffff:/i, ''));
  if (v4 !== null) {
    const octets = v4.slice(1).map(Number);
    if (octets.some((octet) => octet > 255)) return null;
    return octets[0] === 127;
  }
  if (!hostname.includes(':') || !/^[0-9a-f:.]+$/i.test(hostname)) return null;
  try {
    return new URL(`http://[${hostname}]/`).hostname === '[::1]';
  } catch {
    return null;
  }
}

const REGULAR_HOSTNAME = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;

/** Supabase Auth's IsRedirectURLValid, on a URL a browser can also parse. */
export function isRedirectAllowed(policy: RedirectPolicy, raw: string): boolean {
  if (raw === '' || !URL.canParse(raw)) return false;
  const base = urlParts(policy.siteUrl);
  const target = urlParts(raw);
  if (base === null || target === null) return false;
  if (
    base.hostname === target.hostname &&
    base.scheme === target.scheme &&
    (base.port === target.port || isLocalhost(target.hostname))
  ) {
    return true;
  }
  if (/^[0-9]+$/.test(target.hostname)) return false;
  const loopback = ipLiteralIsLoopback(target.hostname);
  if (loopback !== null) return loopback;
  if ((target.scheme === 'http' || target.scheme === 'https') && !REGULAR_HOSTNAME.test(target.hostname)) return false;
  const withoutFragment = raw.split('#')[0] as string;
  return policy.allowList.some((matches) => matches(withoutFragment));
}

/** The first allowed candidate (redirect_to, then Referer), else the policy's fallback. */
export function resolveRedirect(policy: RedirectPolicy, candidates: readonly unknown[]): string | null {
  for (const candidate of candidates) {
    if (typeof candidate === 'string' && isRedirectAllowed(policy, candidate)) return candidate;
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

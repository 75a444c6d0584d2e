import { isIP } from 'node:net';
import { addressBlockReason, type AddressPolicy } from './address-policy.js';
import { blockedError, FetchError } from './errors.js';

/** `[::1]` -> `::1`: URL keeps the brackets of IPv6 literals in `hostname`. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The checks that need no network: an absolute http(s) URL without credentials, whose host, if it
 * is an IP literal, is an allowed address. Hostnames are checked when they are resolved, at
 * connect time. Use it to validate `audio_url` and webhook URLs at the API edge, too.
 */
export function checkOutboundUrl(raw: string | URL, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('invalid_url', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('invalid_url', `scheme ${url.protocol.slice(0, -1)} is not allowed; use http or https`);
  }
  if (url.username || url.password) throw new FetchError('invalid_url', 'URLs with credentials are not allowed');
  const host = bareHost(url);
  if (isIP(host)) {
    const reason = addressBlockReason(host, policy);
    if (reason) throw blockedError(host, reason);
  }
  return url;
}

/** Where a redirect leads, checked like a fresh URL; an https -> http downgrade is refused. */
export function redirectTarget(from: URL, location: string, policy: AddressPolicy): URL {
  const next = checkOutboundUrl(new URL(location, from), policy);
  if (from.protocol === 'https:' && next.protocol === 'http:') {
    throw new FetchError('invalid_url', 'redirect from https to http refused');
  }
  return next;
}

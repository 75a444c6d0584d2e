import { guardedRequest, readBody, type GuardOptions } from '../../outbound/guarded-request.js';
import { checkOutboundUrl } from '../../outbound/outbound-url.js';
import { AuthError } from '../http/errors.js';

/** Provider answers (discovery, keys, tokens, user info) are small; a larger one is not a provider's. */
const MAX_PROVIDER_RESPONSE_BYTES = 1 << 20;

/** A provider could not be reached or answered with something unusable: a server-side failure, as GoTrue reports it. */
export function providerFailure(message: string): AuthError {
  return new AuthError(500, 'unexpected_failure', message);
}

export interface ProviderRequest {
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  /** application/x-www-form-urlencoded, as OAuth token endpoints take it. */
  readonly form?: Readonly<Record<string, string>>;
}

/**
 * One JSON request to a provider through the SSRF guard (runtime/outbound): public addresses
 * only unless the host allows private ones (AUTH_ALLOW_PRIVATE_PROVIDER_URLS), no redirects.
 */
async function providerBody(url: string, request: ProviderRequest, guard: GuardOptions): Promise<unknown> {
  let target: URL;
  try {
    target = checkOutboundUrl(url, guard);
  } catch (error) {
    throw providerFailure(`provider URL refused: ${(error as Error).message}`);
  }
  const body = request.form === undefined ? undefined : new URLSearchParams(request.form).toString();
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'gantry-auth', ...request.headers };
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  let text = '';
  let status = 0;
  try {
    const response = await guardedRequest(target, { method: request.method, headers, ...(body === undefined ? {} : { body }) }, guard);
    status = response.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of readBody(response.body, guard)) {
      size += chunk.length;
      if (size > MAX_PROVIDER_RESPONSE_BYTES) throw new Error('response too large');
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    throw providerFailure(`provider request failed: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw providerFailure(`provider answered ${status} without JSON`);
  }
  if (status < 200 || status > 299 || typeof parsed !== 'object' || parsed === null) throw providerFailure(`provider answered ${status}`);
  return parsed;
}

export async function providerJson(url: string, request: ProviderRequest, guard: GuardOptions): Promise<Record<string, unknown>> {
  const parsed = await providerBody(url, request, guard);
  if (Array.isArray(parsed)) throw providerFailure('provider answered with a list where an object was expected');
  return parsed as Record<string, unknown>;
}

/** The same for endpoints that answer with a JSON array (GitHub's and GitLab's e-mail lists). */
export async function providerJsonList(url: string, request: ProviderRequest, guard: GuardOptions): Promise<unknown[]> {
  const parsed = await providerBody(url, request, guard);
  if (!Array.isArray(parsed)) throw providerFailure('provider answered with an object where a list was expected');
  return parsed;
}

import type { Request } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { normaliseEmail } from '../input/email-address.js';
import { authErrors } from './errors.js';
import { queryString } from './handler.js';
import { resolveRedirect } from '../flows/redirects.js';

/** Go decodes a JSON null or a missing field as "". */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

export function acceptEmail(value: unknown): string {
  if (isBlank(value)) throw authErrors.validation('missing email or phone');
  const email = normaliseEmail(value);
  if (email === null) throw authErrors.validation('Unable to validate email address: invalid format');
  return email;
}

/**
 * Supabase Auth's GetReferrer: `redirect_to` (header, query, then body), else the
 * Referer, whichever is allowed first; else the site URL. Never an error.
 */
export function acceptRedirect(req: Request, deps: AuthDeps): string | null {
  const body: unknown = req.body;
  const fromBody = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).redirect_to : undefined;
  const given = req.get('redirect_to') || queryString(req, 'redirect_to') || fromBody;
  return resolveRedirect(deps.redirects, [given, req.get('referer')]);
}

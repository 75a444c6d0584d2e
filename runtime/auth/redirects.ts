/**
 * `redirect_to` is honoured only on the origin of PUBLIC_URL, so a mail link can
 * never bounce a user's fresh tokens to someone else's site.
 */

export type RedirectCheck = { readonly ok: true; readonly url: string | null } | { readonly ok: false };

export function checkRedirect(raw: unknown, publicUrl: string): RedirectCheck {
  if (raw === undefined || raw === '') return { ok: true, url: null };
  if (typeof raw !== 'string') return { ok: false };
  let target: URL;
  try {
    target = new URL(raw);
  } catch {
    return { ok: false };
  }
  return target.origin === new URL(publicUrl).origin ? { ok: true, url: target.href } : { ok: false };
}

/** GoTrue's implicit-flow redirect: parameters in the fragment, keys sorted, `sb` marker. */
export function redirectWithFragment(url: string, params: Readonly<Record<string, string>>): string {
  const fragment = new URLSearchParams(
    Object.entries({ ...params, sb: '' }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ).toString();
  const base = url.split('#')[0] as string;
  return `${base}#${fragment}`;
}

export type LinkType = 'signup' | 'recovery' | 'email_change';

export function verifyLink(publicUrl: string, ref: string, token: string, type: LinkType, redirectTo: string | null): string {
  const query = new URLSearchParams({ token, type });
  if (redirectTo !== null) query.set('redirect_to', redirectTo);
  return `${publicUrl}/v1/${ref}/auth/v1/verify?${query.toString()}`;
}

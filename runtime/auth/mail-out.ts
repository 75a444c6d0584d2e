import { renderMail, type MailKind } from '../mail/render.js';
import type { AuthDeps } from './auth-deps.js';
import { inBackground } from './http.js';
import { ONE_TIME_TOKEN_LIFETIME_SECONDS } from './one-time-tokens.js';
import { verifyLink } from './redirects.js';

/** Sends a confirmation or recovery mail after the response has gone out. */
export function mailLink(deps: AuthDeps, kind: MailKind, to: string, token: string, redirectTo: string | null): void {
  const link = verifyLink(deps.ctx.config.publicUrl, deps.ctx.ref, token, kind === 'confirmation' ? 'signup' : 'recovery', redirectTo);
  const rendered = renderMail(kind, {
    email: to,
    projectRef: deps.ctx.ref,
    link,
    validHours: ONE_TIME_TOKEN_LIFETIME_SECONDS[kind] / 3600,
  });
  inBackground(deps, `${kind} mail`, () => deps.mailer.send({ ...rendered, ref: deps.ctx.ref, kind, to }));
}

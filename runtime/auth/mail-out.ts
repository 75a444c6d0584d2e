import { renderMail, type MailKind } from '../mail/render.js';
import type { AuthDeps } from './auth-deps.js';
import { inBackground } from './http.js';
import { ONE_TIME_TOKEN_LIFETIME_SECONDS } from './one-time-tokens.js';
import { verifyLink, type LinkType } from './redirects.js';

const LINK_TYPE: Readonly<Record<MailKind, LinkType>> = {
  confirmation: 'signup',
  recovery: 'recovery',
  email_change: 'email_change',
};

export interface LinkMail {
  readonly kind: MailKind;
  /** The recipient: the account's address, or the new one for an e-mail change. */
  readonly to: string;
  readonly token: string;
  readonly redirectTo: string | null;
  /** The account's current address when the mail goes to another one (e-mail change); '' for an anonymous account's first. */
  readonly accountEmail?: string;
}

/** Sends a mail with a verify link after the response has gone out. */
export function mailLink(deps: AuthDeps, mail: LinkMail): void {
  const { kind, to } = mail;
  const link = verifyLink(deps.ctx.config.publicUrl, deps.ctx.ref, mail.token, LINK_TYPE[kind], mail.redirectTo);
  const rendered = renderMail(kind, {
    email: mail.accountEmail ?? to,
    ...(mail.accountEmail === undefined ? {} : { newEmail: to }),
    projectRef: deps.ctx.ref,
    link,
    validHours: ONE_TIME_TOKEN_LIFETIME_SECONDS[kind] / 3600,
  });
  inBackground(deps, `${kind} mail`, () => deps.mailer.send({ ...rendered, ref: deps.ctx.ref, kind, to }));
}

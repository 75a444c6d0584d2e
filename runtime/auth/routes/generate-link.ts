import type { Router } from 'express';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction, type Queryable } from '../../db/transaction.js';
import { requestEmailChange } from '../flows/email-change.js';
import { AuthError, authErrors } from '../http/errors.js';
import { bodyOf, handle, optionalObject } from '../http/handler.js';
import { insertUnconfirmed, invite } from '../flows/invites.js';
import { issueOneTimeToken, type IssuedOneTimeToken } from '../storage/one-time-tokens.js';
import { acceptNewPassword } from '../http/password-input.js';
import { allowedRedirect, verifyLink, type LinkType } from '../flows/redirects.js';
import { clientIp, requireAdmin } from '../http/request-auth.js';
import { userJson, type UserRow } from '../storage/user-json.js';
import { findUserByEmail, mergeMetadata, updateUser } from '../storage/users.js';
import { acceptEmail, acceptRedirect } from '../http/request-fields.js';
import type { BodyOf, DeclaredFields } from '../../http/endpoint.js';
import type { adminEndpoints, GENERATED_LINK_TYPES } from './admin-endpoints.js';

type GeneratedType = (typeof GENERATED_LINK_TYPES)[number];
type LinkBody = DeclaredFields<BodyOf<typeof adminEndpoints.generateLink>>;

const LINK_TYPE: Readonly<Record<GeneratedType, LinkType>> = {
  signup: 'signup',
  invite: 'invite',
  magiclink: 'magiclink',
  recovery: 'recovery',
  email_change_current: 'email_change',
  email_change_new: 'email_change',
};

interface Generated {
  readonly user: UserRow;
  readonly issued: IssuedOneTimeToken;
  readonly type: GeneratedType;
}

interface LinkRequest {
  readonly type: string;
  readonly email: string;
  readonly body: LinkBody;
  /** Hashed before the transaction: bcrypt is slow. */
  readonly passwordHash: string | null;
  readonly actor: string;
  readonly ip: string | null;
  readonly now: Date;
}

/** A confirmation link for a new account with this password, or for the unconfirmed one the address has. */
async function signupLink(db: Queryable, existing: UserRow | null, request: LinkRequest): Promise<Generated> {
  const { now } = request;
  const data = optionalObject(request.body.data, 'data') ?? {};
  if (existing !== null && existing.email_confirmed_at !== null) throw authErrors.emailExists();
  let user: UserRow;
  if (existing !== null) {
    user = (await updateUser(db, existing.id, { raw_user_meta_data: mergeMetadata(existing.raw_user_meta_data, data), confirmation_sent_at: now }, now)) ?? existing;
  } else {
    user = await insertUnconfirmed(db, request.email, request.passwordHash, data, now);
    await writeAudit(db, { event: 'user_signedup', userId: user.id, ip: request.ip, payload: { email: request.email, actor: request.actor }, at: now });
  }
  return { user, issued: await issueOneTimeToken(db, user.id, 'confirmation', now), type: 'signup' };
}

/** A magic link or a recovery link of an account. */
async function signInLink(deps: AuthDeps, db: Queryable, user: UserRow, type: 'magiclink' | 'recovery', request: LinkRequest): Promise<Generated> {
  const { now } = request;
  const updated = (await updateUser(db, user.id, { recovery_sent_at: now }, now)) ?? user;
  await writeAudit(db, { event: 'user_recovery_requested', userId: user.id, ip: request.ip, payload: { email: user.email, via: type, actor: request.actor }, at: now });
  const lifetimeSeconds = type === 'magiclink' ? deps.ctx.settings['auth.otp_expiry'] : undefined;
  return { user: updated, issued: await issueOneTimeToken(db, user.id, type, now, { lifetimeSeconds }), type };
}

/**
 * One of the two links of an e-mail change to `new_email` (GoTrue's email_change_current and
 * email_change_new); nothing is mailed. The current address's needs secure e-mail change.
 */
async function emailChangeLink(
  deps: AuthDeps,
  db: Queryable,
  user: UserRow,
  type: 'email_change_current' | 'email_change_new',
  request: LinkRequest,
): Promise<Generated> {
  const secure = deps.ctx.settings['auth.secure_email_change'];
  if (type === 'email_change_current' && !secure) throw authErrors.validation('Enable secure email change to generate link for current email');
  const newEmail = acceptEmail(request.body.new_email);
  const only = type === 'email_change_new' ? 'email_change' : 'email_change_current';
  const change = await requestEmailChange(db, user, { newEmail, immediate: false, secure, only, pkce: null, ip: request.ip, now: request.now });
  return { user: change.user, issued: (change.token ?? change.currentToken) as IssuedOneTimeToken, type };
}

/** GoTrue's adminGenerateLink switch, in its order: a magic link for an unknown address becomes a sign-up link. */
async function generate(deps: AuthDeps, db: Queryable, request: LinkRequest): Promise<Generated> {
  const user = await findUserByEmail(db, request.email);
  const { type } = request;
  if (user === null && (type === 'recovery' || type === 'email_change_current' || type === 'email_change_new')) {
    throw new AuthError(404, 'user_not_found', 'User with this email not found');
  }
  switch (type) {
    case 'signup':
      return signupLink(db, user, request);
    case 'magiclink':
    case 'recovery':
      return user === null ? signupLink(db, null, request) : signInLink(deps, db, user, type, request);
    case 'invite': {
      const data = optionalObject(request.body.data, 'data') ?? {};
      const invitation = await invite(db, { email: request.email, data, actor: request.actor, ip: request.ip, now: request.now });
      return { ...invitation, type: 'invite' };
    }
    case 'email_change_current':
    case 'email_change_new':
      return emailChangeLink(deps, db, user as UserRow, type, request);
    default:
      throw authErrors.validation(`Invalid email action link type requested: ${type}`);
  }
}

/**
 * auth-js `auth.admin.generateLink`: the link and code a mail would carry, for the
 * app to send itself; nothing is mailed. The answer is the user object with
 * action_link, email_otp, hashed_token, verification_type and redirect_to beside it.
 */
export function registerGenerateLink(router: Router, deps: AuthDeps): void {
  router.post(
    '/admin/generate_link',
    handle(deps, async (req, res) => {
      const { role: actor } = requireAdmin(req, deps);
      const body: LinkBody = bodyOf(req);
      const email = acceptEmail(body.email);
      const type = typeof body.type === 'string' ? body.type : '';
      const requested = body.redirect_to;
      // GoTrue's referrer: always a URL (the site URL, here PUBLIC_URL when none is set), in the answer and in action_link.
      const redirectTo = (typeof requested === 'string' ? allowedRedirect(deps.redirects, requested) : null) ?? acceptRedirect(req, deps) ?? deps.redirects.siteUrl;
      const needsPassword = type === 'signup' && (await findUserByEmail(deps.ctx.adminPool, email)) === null;
      const passwordHash = needsPassword ? await deps.passwords.hash(acceptNewPassword(body.password, 'Signup requires a valid password')) : null;
      const request: LinkRequest = { type, email, body, passwordHash, actor, ip: clientIp(req), now: deps.now() };
      const generated = await inTransaction(deps.ctx.adminPool, (db) => generate(deps, db, request));
      res.status(200).json({
        ...userJson(generated.user),
        action_link: verifyLink(deps.ctx.config.publicUrl, deps.ctx.ref, generated.issued.token, LINK_TYPE[generated.type], redirectTo),
        email_otp: generated.issued.code,
        hashed_token: generated.issued.token,
        verification_type: generated.type,
        redirect_to: redirectTo,
      });
    }),
  );
}

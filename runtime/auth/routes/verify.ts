import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import type { PoolClient } from 'pg';
import Handlebars from 'handlebars';
import { writeAudit } from '../storage/audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AuthError, authErrors } from '../http/errors.js';
import type { VerifyFields, VerifyLinkQuery } from './session-endpoints.js';
import { bodyOf, enforceRateLimit, handle, queryString } from '../http/handler.js';
import { signJwt } from '../../tokens/jwt.js';
import { issueAuthCode } from '../storage/flow-state.js';
import {
  consumeUserTokens,
  findOneTimeToken,
  findOneTimeTokenByCode,
  isPkceLinkToken,
  type OneTimeTokenType,
  type ValidOneTimeToken,
} from '../storage/one-time-tokens.js';
import { MIN_PASSWORD_LENGTH } from '../credentials/passwords.js';
import { redirectWithFragment, redirectWithQuery } from '../flows/redirects.js';
import { checkPresentApiKey, clientIp, requireApiKey } from '../http/request-auth.js';
import { openSession, type AmrMethod } from '../storage/sessions.js';
import { sessionJson, type SessionJson } from '../http/session-response.js';
import type { UserRow } from '../storage/user-json.js';
import { findUserByEmail, findUserById, findUserByPhone, findUserByPhoneChange, findUsersByAnyEmail, isBanned, updateUser } from '../storage/users.js';
import { acceptPhone } from '../input/phone-number.js';
import { confirmPhone, confirmPhoneChange } from '../flows/phone-change.js';
import { matchesTestOtp, type PhoneOtpType } from '../flows/phone-otp.js';
import { confirmEmailChange, type ChangeTokenType } from '../flows/email-change.js';
import { acceptRedirect, isBlank } from '../http/request-fields.js';
import { normaliseEmail } from '../input/email-address.js';

/** What a redeemed token does; `email` (either a sign-up or a magic-link code) resolves to one of these. */
type EmailVerifyType = 'signup' | 'invite' | 'magiclink' | 'recovery' | 'email_change';
type VerifyType = EmailVerifyType | PhoneOtpType;
type RequestedType = EmailVerifyType | 'email';

interface ResetPageVariables {
  readonly valid: boolean;
  readonly email?: string;
  readonly token?: string;
  readonly resetUrl?: string;
  readonly apiKeyJson?: string;
  readonly minLength: number;
  readonly message?: string;
}

interface MessagePageVariables {
  readonly title: string;
  readonly message: string;
  readonly error: boolean;
}

function template<T>(name: string): Handlebars.TemplateDelegate<T> {
  return Handlebars.compile<T>(readFileSync(path.resolve(import.meta.dirname, '../../../templates/auth', name), 'utf8'));
}

const resetPage = template<ResetPageVariables>('reset-password.html.hbs');
const messagePage = template<MessagePageVariables>('message.html.hbs');

const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
} as const;

const REQUESTED_TYPES: ReadonlySet<string> = new Set(['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email']);

/** GoTrue's VerifyParams.Validate: a type is required; which types exist is each path's question. */
function acceptType(value: unknown): string {
  if (isBlank(value)) throw authErrors.validation('Verify requires a verification type');
  return String(value);
}

function isRequestedType(type: string): type is RequestedType {
  return REQUESTED_TYPES.has(type);
}

/** A link token (token_hash) of a type no e-mail link has, as GoTrue's verifyTokenHash answers it. */
function linkType(type: string): RequestedType {
  if (isRequestedType(type)) return type;
  throw authErrors.validation('Invalid email verification type');
}

/** GoTrue keeps invites in the confirmation slot and checks both sign-up and magic-link tokens for `email`. */
const TOKEN_TYPES: Readonly<Record<RequestedType, readonly OneTimeTokenType[]>> = {
  signup: ['confirmation'],
  invite: ['confirmation'],
  email: ['confirmation', 'magiclink'],
  magiclink: ['magiclink'],
  recovery: ['recovery'],
  email_change: ['email_change', 'email_change_current'],
};
const CONSUMED_TYPE: Readonly<Record<VerifyType, OneTimeTokenType>> = {
  signup: 'confirmation',
  invite: 'confirmation',
  magiclink: 'magiclink',
  recovery: 'recovery',
  email_change: 'email_change',
  sms: 'sms',
  phone_change: 'phone_change',
};
// GoTrue opens every verified session with amr "otp"; recovery and e-mail change stay tellable apart here.
const AMR: Readonly<Record<VerifyType, AmrMethod>> = {
  signup: 'otp',
  invite: 'otp',
  magiclink: 'otp',
  recovery: 'recovery',
  email_change: 'email_change',
  sms: 'otp',
  phone_change: 'otp',
};

function isPhoneType(type: VerifyType): type is PhoneOtpType {
  return type === 'sms' || type === 'phone_change';
}

function effectiveType(requested: RequestedType, found: ValidOneTimeToken): EmailVerifyType {
  if (requested !== 'email') return requested;
  return found.type === 'magiclink' ? 'magiclink' : 'signup';
}

/** A token found valid, with its user locked for the change. */
interface Redeemable {
  readonly user: UserRow;
  readonly type: VerifyType;
  /** Which token it was: an e-mail change tells the new address's from the current one's. */
  readonly tokenType: OneTimeTokenType;
  readonly flowStateId: string | null;
}

async function lockUser(db: PoolClient, found: ValidOneTimeToken | null, requested: RequestedType, invalid: () => AuthError, now: Date): Promise<Redeemable> {
  if (found === null) throw invalid();
  const user = await findUserById(db, found.userId, true);
  if (user === null) throw invalid();
  if (isBanned(user, now)) throw authErrors.userBanned(403);
  return { user, type: effectiveType(requested, found), tokenType: found.type, flowStateId: found.flowStateId };
}

/** A link token (GET /verify `token`, POST /verify `token_hash`). */
async function byLink(db: PoolClient, requested: RequestedType, token: unknown, now: Date): Promise<Redeemable> {
  const found = await findOneTimeToken(db, token, TOKEN_TYPES[requested], now, true);
  return lockUser(db, found, requested, authErrors.otpExpired, now);
}

/** An e-mail change code is checked against the address it was mailed to: the new one's, or the current one's. */
function codeTypes(requested: RequestedType, user: UserRow, email: string): readonly OneTimeTokenType[] {
  if (requested !== 'email_change') return TOKEN_TYPES[requested];
  if (user.new_email?.toLowerCase() === email) return ['email_change'];
  return user.email?.toLowerCase() === email ? ['email_change_current'] : [];
}

/** A mailed code with the address it went to (the new one, or the current, for an e-mail change). */
async function byCode(db: PoolClient, requested: RequestedType, email: string, code: string, now: Date): Promise<Redeemable> {
  const candidates = requested === 'email_change' ? await findUsersByAnyEmail(db, email) : [await findUserByEmail(db, email)];
  for (const user of candidates) {
    if (user === null) continue;
    const found = await findOneTimeTokenByCode(db, user.id, code, codeTypes(requested, user, email), now);
    if (found !== null) return lockUser(db, found, requested, authErrors.otpInvalid, now);
  }
  throw authErrors.otpInvalid();
}

/** What consuming a token did; `done` false: the first of a secure e-mail change's two confirmations. */
interface Consumed {
  readonly user: UserRow;
  readonly done: boolean;
}

/**
 * Consumes the token: the e-mail is confirmed either way (following the link
 * proves the address); an e-mail change link also sets the new address, with
 * secure e-mail change once both addresses have confirmed.
 */
async function consume(deps: AuthDeps, db: PoolClient, found: Redeemable, ip: string | null, now: Date): Promise<Consumed> {
  if (found.type === 'email_change') {
    const used: ChangeTokenType = found.tokenType === 'email_change_current' ? 'email_change_current' : 'email_change';
    const confirmed = await confirmEmailChange(db, found.user, used, deps.ctx.settings['auth.secure_email_change'], ip, now);
    return { user: confirmed.user, done: confirmed.changed };
  }
  await consumeUserTokens(db, found.user.id, now, CONSUMED_TYPE[found.type]);
  if (found.type === 'sms') return { user: await confirmPhone(db, found.user, ip, now), done: true };
  if (found.type === 'phone_change') return { user: await confirmPhoneChange(db, found.user, ip, now), done: true };
  return { user: found.user, done: true };
}

/**
 * A texted code for a phone: `sms` checked against the number's account, `phone_change`
 * against the account waiting to move to it, as GoTrue's verifyUserAndToken; the project's
 * test OTP for the number is good without a stored code.
 */
async function byPhoneCode(deps: AuthDeps, db: PoolClient, type: PhoneOtpType, phone: string, code: string, now: Date): Promise<Redeemable> {
  const candidate = type === 'sms' ? await findUserByPhone(db, phone) : await findUserByPhoneChange(db, phone);
  const user = candidate === null ? null : await findUserById(db, candidate.id, true);
  if (user === null) throw authErrors.otpInvalid();
  if (isBanned(user, now)) throw authErrors.userBanned(403);
  if (!matchesTestOtp(deps, phone, code) && (await findOneTimeTokenByCode(db, user.id, code, type, now)) === null) throw authErrors.otpInvalid();
  return { user, type, tokenType: type, flowStateId: null };
}

/** GoTrue's answer when one address of a secure e-mail change has confirmed and the other has yet to. */
const SINGLE_CONFIRMATION_ACCEPTED = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';

/** GoTrue's JSON for it: `code` is the status as a string. */
function singleConfirmationJson(): { readonly msg: string; readonly code: string } {
  return { msg: SINGLE_CONFIRMATION_ACCEPTED, code: '200' };
}

type Locate = (db: PoolClient) => Promise<Redeemable>;

interface Redeemed {
  readonly type: VerifyType;
  /** Null: one of two e-mail change confirmations, no session yet. */
  readonly session: SessionJson | null;
}

/** Redeems the token and opens a session with it. */
async function redeem(deps: AuthDeps, locate: Locate, ip: string | null): Promise<Redeemed> {
  const now = deps.now();
  const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const found = await locate(db);
    const { user, done } = await consume(deps, db, found, ip, now);
    if (!done) return null;
    const phone = isPhoneType(found.type);
    const updated =
      (await updateUser(db, user.id, phone ? { last_sign_in_at: now } : { email_confirmed_at: user.email_confirmed_at ?? now, last_sign_in_at: now }, now)) ?? user;
    const opened = await openSession(db, user.id, AMR[found.type], now);
    if (!phone && user.email_confirmed_at === null) await writeAudit(db, { event: 'user_confirmed', userId: user.id, ip, payload: { via: found.type }, at: now });
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: AMR[found.type], via: found.type, session_id: opened.session.id }, at: now });
    return { type: found.type, user: updated, ...opened };
  });
  if (issued === null) return { type: 'email_change', session: null };
  return { type: issued.type, session: await sessionJson(deps, issued.user, issued.session, issued.refreshToken) };
}

/** POST /verify: `token_hash` alone, or a mailed or texted `token` (code) with its `email` or `phone`, as GoTrue's VerifyParams.Validate. */
function locateFromBody(deps: AuthDeps, body: VerifyFields, requested: string, now: Date): Locate {
  const hasToken = !isBlank(body.token);
  if (hasToken === !isBlank(body.token_hash)) throw authErrors.validation('Verify requires either a token or a token hash');
  if (!hasToken) {
    if (!isBlank(body.email) || !isBlank(body.phone) || !isBlank(body.redirect_to)) {
      throw authErrors.validation('Only the token_hash and type should be provided');
    }
    const type = linkType(requested);
    return (db) => byLink(db, type, body.token_hash, now);
  }
  if (isBlank(body.email) && !isBlank(body.phone)) {
    const phone = acceptPhone(body.phone);
    const code = String(body.token);
    // Any other type finds no account by an empty address in GoTrue: a wrong code.
    if (requested !== 'sms' && requested !== 'phone_change') return () => Promise.reject(authErrors.otpInvalid());
    return (db) => byPhoneCode(deps, db, requested, phone, code, now);
  }
  if (isBlank(body.email) || !isBlank(body.phone)) {
    throw authErrors.validation('Only an email address or phone number should be provided on verify');
  }
  const email = normaliseEmail(body.email);
  if (email === null) throw new AuthError(422, 'validation_failed', 'Invalid email format');
  const code = String(body.token);
  // Any other type (sms, phone_change, a typo) finds no e-mail code: GoTrue answers it as a wrong code.
  if (!isRequestedType(requested)) return () => Promise.reject(authErrors.otpInvalid());
  return (db) => byCode(db, requested, email, code, now);
}

/** GoTrue's prepErrorRedirectURL: in the fragment, and for a PKCE link in the query too. */
function redirectError(res: Response, redirectTo: string, error: AuthError, pkce: boolean): void {
  const oauthError = error.status === 403 ? 'access_denied' : error.status >= 500 ? 'server_error' : 'invalid_request';
  const params = { error: oauthError, error_code: error.code, error_description: error.message };
  res.redirect(303, redirectWithFragment(pkce ? redirectWithQuery(redirectTo, params) : redirectTo, params));
}

/** GoTrue's prepRedirectURL: the message in the fragment, and for a PKCE link in the query too. */
function redirectMessage(res: Response, redirectTo: string, message: string, pkce: boolean): void {
  const target = new URL(pkce ? redirectWithQuery(redirectTo, { message }) : redirectTo);
  target.hash = new URLSearchParams({ message }).toString();
  res.redirect(303, target.href);
}

/**
 * A PKCE link: the token is redeemed (the address confirmed, the change made) but
 * the session waits for POST /token grant_type=pkce with the code and the verifier.
 * Null: the first of a secure e-mail change's two confirmations, no code yet.
 */
async function redeemForCode(deps: AuthDeps, type: RequestedType, token: string, ip: string | null): Promise<string | null> {
  const now = deps.now();
  return inTransaction(deps.ctx.adminPool, async (db) => {
    const found = await byLink(db, type, token, now);
    if (found.flowStateId === null) throw new AuthError(422, 'flow_state_not_found', 'No valid flow state found for user.');
    const { user, done } = await consume(deps, db, found, ip, now);
    if (!done) return null;
    if (user.email_confirmed_at === null) {
      await updateUser(db, user.id, { email_confirmed_at: now }, now);
      await writeAudit(db, { event: 'user_confirmed', userId: user.id, ip, payload: { via: found.type }, at: now });
    }
    return issueAuthCode(db, found.flowStateId, now);
  });
}

async function verifyPkceLink(res: Response, deps: AuthDeps, type: RequestedType, token: string, redirectTo: string, ip: string | null): Promise<void> {
  let code: string | null;
  try {
    code = await redeemForCode(deps, type, token, ip);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    redirectError(res, redirectTo, error, true);
    return;
  }
  if (code === null) redirectMessage(res, redirectTo, SINGLE_CONFIRMATION_ACCEPTED, true);
  else res.redirect(303, redirectWithQuery(redirectTo, { code }));
}

function wantsHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

function sendPage(res: Response, status: number, html: string): void {
  res.set(PAGE_HEADERS).status(status).type('html').send(html);
}

/**
 * A person who opened the confirmation link in a browser without redirect_to gets
 * a page, not raw tokens; no session is opened because no client would keep it.
 */
async function confirmForBrowser(res: Response, deps: AuthDeps, type: 'signup' | 'email_change', token: string, ip: string | null): Promise<void> {
  const now = deps.now();
  let consumed: Consumed;
  try {
    consumed = await inTransaction(deps.ctx.adminPool, async (db) => {
      const result = await consume(deps, db, await byLink(db, type, token, now), ip, now);
      if (type === 'signup') {
        await updateUser(db, result.user.id, { email_confirmed_at: result.user.email_confirmed_at ?? now }, now);
        await writeAudit(db, { event: 'user_confirmed', userId: result.user.id, ip, at: now });
      }
      return result;
    });
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    sendPage(res, error.status, messagePage({ title: 'Confirmation failed', message: error.message, error: true }));
    return;
  }
  const page =
    type === 'signup'
      ? { title: 'E-mail address confirmed', message: 'Your e-mail address is confirmed. You can sign in now.' }
      : consumed.done
        ? { title: 'E-mail address changed', message: `Your account's e-mail address is now ${consumed.user.email ?? ''}. Use it to sign in from now on.` }
        : { title: 'Confirmation accepted', message: SINGLE_CONFIRMATION_ACCEPTED };
  sendPage(res, 200, messagePage({ ...page, error: false }));
}

/** The recovery link opened without redirect_to: a reset form for browsers, a validity answer for JSON clients. */
async function showRecovery(req: Request, res: Response, deps: AuthDeps, token: string): Promise<void> {
  const found = await findOneTimeToken(deps.ctx.adminPool, token, 'recovery', deps.now());
  const user = found === null ? null : await findUserById(deps.ctx.adminPool, found.userId);
  const html = wantsHtml(req);
  if (user === null) {
    if (!html) throw authErrors.otpExpired();
    sendPage(res, 403, resetPage({ valid: false, minLength: MIN_PASSWORD_LENGTH, message: authErrors.otpExpired().message }));
    return;
  }
  if (!html) {
    res.status(200).json({ message: 'Recovery token is valid: POST it with a new password to /reset', type: 'recovery', valid: true });
    return;
  }
  const iat = Math.floor(deps.now().getTime() / 1000);
  // The page calls /reset from the browser, which needs a key; a short-lived anon one is enough.
  const pageKey = signJwt(deps.ctx.jwtSecret, { role: 'anon', iss: 'gantry', ref: deps.ctx.ref, iat, exp: iat + 3600 });
  sendPage(
    res,
    200,
    resetPage({
      valid: true,
      email: user.email ?? '',
      token,
      resetUrl: `${req.baseUrl}/reset`,
      apiKeyJson: JSON.stringify(pageKey).replace(/</g, '\\u003c'),
      minLength: MIN_PASSWORD_LENGTH,
    }),
  );
}

export function registerVerify(router: Router, deps: AuthDeps): void {
  // The target of mail links: opened by a mail client, so it needs no API key (a wrong one is still refused).
  router.get(
    '/verify',
    handle(deps, async (req, res) => {
      checkPresentApiKey(req, deps);
      await enforceRateLimit(req, deps, 'verify');
      const token = queryString<VerifyLinkQuery>(req, 'token');
      const requested = acceptType(queryString<VerifyLinkQuery>(req, 'type'));
      if (token === undefined || token === '') throw authErrors.validation('Verify requires a token or a token hash');
      const redirectTo = acceptRedirect(req, deps);
      const ip = clientIp(req);
      if (!isRequestedType(requested)) {
        // GoTrue finds the link first, so a type no link has is an error it redirects with.
        const error = authErrors.validation('Invalid email verification type');
        if (redirectTo === null) throw error;
        redirectError(res, redirectTo, error, isPkceLinkToken(token));
        return;
      }
      const type = requested;
      if (isPkceLinkToken(token)) {
        await verifyPkceLink(res, deps, type, token, redirectTo ?? deps.redirects.siteUrl, ip);
        return;
      }
      if (redirectTo === null && type === 'recovery') {
        await showRecovery(req, res, deps, token);
        return;
      }
      if (redirectTo === null && (type === 'signup' || type === 'email_change') && wantsHtml(req)) {
        await confirmForBrowser(res, deps, type, token, ip);
        return;
      }
      let redeemed: Redeemed;
      try {
        redeemed = await redeem(deps, (db) => byLink(db, type, token, deps.now()), ip);
      } catch (error) {
        if (redirectTo !== null && error instanceof AuthError) {
          redirectError(res, redirectTo, error, false);
          return;
        }
        throw error;
      }
      const { session } = redeemed;
      if (session === null) {
        if (redirectTo === null) res.status(200).json(singleConfirmationJson());
        else redirectMessage(res, redirectTo, SINGLE_CONFIRMATION_ACCEPTED, false);
        return;
      }
      if (redirectTo === null) {
        res.status(200).json(session);
        return;
      }
      res.redirect(
        303,
        redirectWithFragment(redirectTo, {
          access_token: session.access_token,
          expires_at: String(session.expires_at),
          expires_in: String(session.expires_in),
          refresh_token: session.refresh_token,
          token_type: session.token_type,
          type: redeemed.type,
        }),
      );
    }),
  );

  // auth-js verifyOtp: {type, token_hash} (the link's token) or {type, email, token} (the mailed code).
  router.post(
    '/verify',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'verify');
      const body: VerifyFields = bodyOf(req);
      const type = acceptType(body.type);
      const locate = locateFromBody(deps, body, type, deps.now());
      const { session } = await redeem(deps, locate, clientIp(req));
      res.status(200).json(session ?? singleConfirmationJson());
    }),
  );
}

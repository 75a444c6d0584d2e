import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import type { PoolClient } from 'pg';
import Handlebars from 'handlebars';
import { writeAudit } from '../audit.js';
import type { AuthDeps } from '../auth-deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AuthError, authErrors } from '../errors.js';
import { bodyOf, enforceRateLimit, handle, queryString } from '../http.js';
import { signJwt } from '../jwt.js';
import { consumeUserTokens, findOneTimeToken, type OneTimeTokenType } from '../one-time-tokens.js';
import { MIN_PASSWORD_LENGTH } from '../passwords.js';
import { redirectWithFragment } from '../redirects.js';
import { checkPresentApiKey, clientIp, requireApiKey } from '../request-auth.js';
import { openSession, type AmrMethod } from '../sessions.js';
import { sessionJson, type SessionJson } from '../session-response.js';
import type { UserRow } from '../user-json.js';
import { findUserById, isBanned, updateUser } from '../users.js';
import { confirmEmailChange } from '../email-change.js';
import { acceptRedirect } from './signup.js';

type VerifyType = 'signup' | 'recovery' | 'email_change';

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

function acceptType(value: unknown): VerifyType {
  if (value === 'signup' || value === 'email') return 'signup';
  if (value === 'recovery' || value === 'email_change') return value;
  if (value === undefined || value === '') throw authErrors.validation('Verify requires a verification type');
  throw authErrors.validation('Verify requires a verification type of signup, recovery or email_change');
}

const TOKEN_TYPE: Readonly<Record<VerifyType, OneTimeTokenType>> = { signup: 'confirmation', recovery: 'recovery', email_change: 'email_change' };
const AMR: Readonly<Record<VerifyType, AmrMethod>> = { signup: 'otp', recovery: 'recovery', email_change: 'email_change' };

/**
 * Consumes a link token: the e-mail is confirmed either way (following the link
 * proves the address); an e-mail change link also sets the new address.
 */
async function consume(db: PoolClient, type: VerifyType, token: unknown, ip: string | null, now: Date): Promise<UserRow> {
  const found = await findOneTimeToken(db, token, TOKEN_TYPE[type], now, true);
  if (found === null) throw authErrors.otpExpired();
  const user = await findUserById(db, found.userId, true);
  if (user === null) throw authErrors.otpExpired();
  if (isBanned(user, now)) throw authErrors.userBanned(403);
  if (type === 'email_change') return confirmEmailChange(db, user, ip, now);
  await consumeUserTokens(db, user.id, now, TOKEN_TYPE[type]);
  return user;
}

/** Redeems the token and opens a session with it. */
async function redeem(deps: AuthDeps, type: VerifyType, token: unknown, ip: string | null): Promise<SessionJson> {
  const now = deps.now();
  const issued = await inTransaction(deps.ctx.adminPool, async (db) => {
    const user = await consume(db, type, token, ip, now);
    const updated =
      (await updateUser(db, user.id, { email_confirmed_at: user.email_confirmed_at ?? now, last_sign_in_at: now }, now)) ?? user;
    const opened = await openSession(db, user.id, AMR[type], now);
    if (type === 'signup') await writeAudit(db, { event: 'user_confirmed', userId: user.id, ip, at: now });
    await writeAudit(db, { event: 'login', userId: user.id, ip, payload: { method: AMR[type], session_id: opened.session.id }, at: now });
    return { user: updated, ...opened };
  });
  return sessionJson(deps, issued.user, issued.session, issued.refreshToken);
}

function redirectError(res: Response, redirectTo: string, error: AuthError): void {
  const oauthError = error.status === 403 ? 'access_denied' : error.status >= 500 ? 'server_error' : 'invalid_request';
  res.redirect(303, redirectWithFragment(redirectTo, { error: oauthError, error_code: error.code, error_description: error.message }));
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
  let email: string;
  try {
    email = await inTransaction(deps.ctx.adminPool, async (db) => {
      const user = await consume(db, type, token, ip, now);
      if (type === 'signup') {
        await updateUser(db, user.id, { email_confirmed_at: user.email_confirmed_at ?? now }, now);
        await writeAudit(db, { event: 'user_confirmed', userId: user.id, ip, at: now });
      }
      return user.email ?? '';
    });
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    sendPage(res, error.status, messagePage({ title: 'Confirmation failed', message: error.message, error: true }));
    return;
  }
  const page =
    type === 'signup'
      ? { title: 'E-mail address confirmed', message: 'Your e-mail address is confirmed. You can sign in now.' }
      : { title: 'E-mail address changed', message: `Your account's e-mail address is now ${email}. Use it to sign in from now on.` };
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
      const token = queryString(req, 'token');
      const type = acceptType(queryString(req, 'type'));
      if (token === undefined || token === '') throw authErrors.validation('Verify requires a token');
      const redirectTo = acceptRedirect(req, deps);
      const ip = clientIp(req);
      if (redirectTo === null && type === 'recovery') {
        await showRecovery(req, res, deps, token);
        return;
      }
      if (redirectTo === null && type !== 'recovery' && wantsHtml(req)) {
        await confirmForBrowser(res, deps, type, token, ip);
        return;
      }
      let session: SessionJson;
      try {
        session = await redeem(deps, type, token, ip);
      } catch (error) {
        if (redirectTo !== null && error instanceof AuthError) {
          redirectError(res, redirectTo, error);
          return;
        }
        throw error;
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
          type,
        }),
      );
    }),
  );

  // auth-js verifyOtp({type, token_hash}): the link's token posted as token_hash.
  router.post(
    '/verify',
    handle(deps, async (req, res) => {
      requireApiKey(req, deps);
      await enforceRateLimit(req, deps, 'verify');
      const body = bodyOf(req);
      const type = acceptType(body.type);
      const token = body.token_hash ?? body.token;
      if (typeof token !== 'string' || token === '') throw authErrors.validation('Verify requires a token or a token_hash');
      res.status(200).json(await redeem(deps, type, token, clientIp(req)));
    }),
  );
}

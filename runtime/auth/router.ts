import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { createLogger } from '../logger.js';
import type { ProjectContext } from '../platform/project-context.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import type { AuthDeps, AuthLog } from './auth-deps.js';
import { API_VERSION_2024, API_VERSION_HEADER, AuthError, authErrors, wantsVersionedErrors } from './http/errors.js';
import { sendAuthError } from './http/handler.js';
import { settingsJson } from './http/settings-json.js';
import { jsonBody } from './http/json-body.js';
import { sharedPasswordPool, type PasswordPool } from './credentials/passwords.js';
import { rateLimitsFrom } from './flows/rate-limits.js';
import { redirectPolicy } from './flows/redirects.js';
import { OidcDirectory } from './external/oidc.js';
import { registerAdmin } from './routes/admin.js';
import { registerExternal } from './routes/external.js';
import { registerGenerateLink } from './routes/generate-link.js';
import { registerIdentities } from './routes/identities.js';
import { registerInvite } from './routes/invite.js';
import { registerFactors } from './routes/factors.js';
import { registerJwks } from './routes/jwks.js';
import { registerOAuthClients } from './routes/oauth-clients.js';
import { registerOAuthServer } from './routes/oauth-server.js';
import { registerOtp } from './routes/otp.js';
import { registerPasskeys } from './routes/passkeys.js';
import { registerReauthenticate } from './routes/reauthenticate.js';
import { registerRecovery } from './routes/recovery.js';
import { registerResend } from './routes/resend.js';
import { registerSignup } from './routes/signup.js';
import { registerToken } from './routes/token.js';
import { registerUser } from './routes/user.js';
import { registerUnsupported } from './routes/unsupported.js';
import { registerVerify } from './routes/verify.js';

export interface AuthRouterOptions {
  /** The clock; tests move it to expire tokens. */
  readonly now?: () => Date;
  readonly mailer?: Mailer;
  readonly log?: AuthLog;
  readonly passwords?: PasswordPool;
}

/**
 * The GoTrue-compatible auth API of one project, mounted by the host at
 * `/v1/<ref>/auth/v1`. Uses `ctx.adminPool` for the project's `auth` schema.
 */
export function createAuthRouter(ctx: ProjectContext, options: AuthRouterOptions = {}): Router {
  const log = options.log ?? createLogger();
  const deps: AuthDeps = {
    ctx,
    now: options.now ?? (() => new Date()),
    mailer: options.mailer ?? createMailer(ctx.config, log),
    passwords: options.passwords ?? sharedPasswordPool(),
    // The host builds a new router when the project's settings change, so reading them once is enough.
    rateLimits: rateLimitsFrom(ctx.settings),
    redirects: redirectPolicy(ctx.settings['auth.site_url'], ctx.settings['auth.redirect_allow_list'], ctx.config.publicUrl),
    log,
    oidc: new OidcDirectory({ allowPrivate: ctx.config.authAllowPrivateProviderUrls }),
  };
  const router = express.Router();

  router.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    if (wantsVersionedErrors(req.get(API_VERSION_HEADER))) res.setHeader(API_VERSION_HEADER, API_VERSION_2024);
    next();
  });
  router.use(jsonBody());

  router.get('/health', (_req, res) => {
    res.status(200).json({ version: 'gantry', name: 'GoTrue', description: 'Gantry auth: a GoTrue-compatible API' });
  });
  router.get('/settings', (_req, res) => {
    res.status(200).json(settingsJson(ctx.settings));
  });

  registerJwks(router, deps);
  registerSignup(router, deps);
  registerToken(router, deps);
  registerVerify(router, deps);
  registerRecovery(router, deps);
  registerOtp(router, deps);
  registerResend(router, deps);
  registerUser(router, deps);
  registerReauthenticate(router, deps);
  registerAdmin(router, deps);
  registerInvite(router, deps);
  registerGenerateLink(router, deps);
  registerFactors(router, deps);
  registerPasskeys(router, deps);
  registerIdentities(router, deps);
  registerExternal(router, deps);
  if (ctx.settings['auth.oauth_server.enabled']) {
    registerOAuthClients(router, deps);
    registerOAuthServer(router, deps);
  }
  registerUnsupported(router, deps);

  router.use((req: Request, res: Response) => {
    sendAuthError(req, res, authErrors.notFound());
  });
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof AuthError) {
      sendAuthError(req, res, error);
      return;
    }
    log.error({ err: error, ref: ctx.ref }, 'auth request failed');
    sendAuthError(req, res, authErrors.unexpected());
  });
  return router;
}

import type { ProjectContext } from '../platform/project-context.js';
import type { Mailer } from '../mail/mailer.js';
import type { PasswordPool } from './credentials/passwords.js';
import type { RateLimitConfig } from './flows/rate-limits.js';
import type { RedirectPolicy } from './flows/redirects.js';
import type { OidcDirectory } from './external/oidc.js';

export interface AuthLog {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Everything a route handler needs; built once per project router. */
export interface AuthDeps {
  readonly ctx: ProjectContext;
  /** Injected so expiry can be tested without waiting. */
  readonly now: () => Date;
  readonly mailer: Mailer;
  readonly passwords: PasswordPool;
  readonly rateLimits: RateLimitConfig;
  readonly redirects: RedirectPolicy;
  readonly log: AuthLog;
  /** OpenID Connect discovery and keys of the project's providers, cached per router. */
  readonly oidc: OidcDirectory;
}

/** The `iss` of access tokens: where this project's auth lives. */
export function issuerOf(deps: AuthDeps): string {
  return `${deps.ctx.config.publicUrl}/v1/${deps.ctx.ref}/auth/v1`;
}

import { amrClaims } from '../credentials/amr.js';
import type { AuthDeps } from '../auth-deps.js';
import { issuerOf } from '../auth-deps.js';
import { customClaimsFrom } from '../hooks/hook-output.js';
import { hookEnabled, runHook } from '../hooks/run-hook.js';
import { signAccessToken, type AccessTokenClaims } from '../../tokens/jwt.js';
import type { SessionRow } from '../storage/sessions.js';
import { userJson, type UserJson, type UserRow } from '../storage/user-json.js';

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

export interface SessionJson {
  readonly access_token: string;
  readonly token_type: 'bearer';
  readonly expires_in: number;
  readonly expires_at: number;
  readonly refresh_token: string;
  readonly user: UserJson;
}

/**
 * GoTrue's token response; the access token carries what auth.uid() and policies read. With
 * the custom access token hook on, the hook's claims (checked as GoTrue checks them) are
 * signed instead; `method` is the hook's `authentication_method`.
 */
export async function sessionJson(
  deps: AuthDeps,
  user: UserRow,
  session: SessionRow,
  refreshToken: string,
  method: string = session.amr_method,
): Promise<SessionJson> {
  const iat = Math.floor(deps.now().getTime() / 1000);
  const exp = iat + ACCESS_TOKEN_LIFETIME_SECONDS;
  const claims: AccessTokenClaims = {
    iss: issuerOf(deps),
    sub: user.id,
    aud: user.aud,
    exp,
    iat,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    role: user.role,
    aal: session.aal,
    amr: amrClaims(session),
    session_id: session.id,
    is_anonymous: user.is_anonymous,
    ...(session.oauth_client_id && { client_id: session.oauth_client_id }),
    ...(session.scopes && { scope: session.scopes }),
  };
  const accessToken = hookEnabled(deps, 'custom_access_token')
    ? signAccessToken(deps.ctx.keyring, customClaimsFrom(await runHook(deps, 'custom_access_token', { user_id: user.id, claims, authentication_method: method }, null)))
    : signAccessToken(deps.ctx.keyring, claims);
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    expires_at: exp,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

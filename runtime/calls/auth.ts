import type { Request } from 'express';
import type { CallsContext } from './context.js';
import { reportDenial } from './denials.js';
import { CallsApiError } from './errors.js';
import { findApiKeyByHash, findApiKeyById, isWellFormedApiKey, touchApiKey } from './keys.js';
import { ALL_SCOPES, verifyAccessToken, type Scope } from './tokens.js';

export interface Principal {
  readonly tenantId: string;
  /** The API key itself, or the key that minted the access token. */
  readonly keyId: string;
  readonly kind: 'api_key' | 'access_token';
  readonly scopes: readonly Scope[];
}

function unauthorized(code: string, message: string): CallsApiError {
  return new CallsApiError(401, code, message, { headers: { 'WWW-Authenticate': `Bearer realm="calls", error="invalid_token"` } });
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * `Authorization: Bearer <API key | access token>`. A key is recognised by its prefix and
 * checksum, a token by its three segments. Revocation is checked on every request, for tokens
 * too (through the key that minted them), so a revoked key stops working at once everywhere.
 */
export async function authenticate(ctx: CallsContext, req: Request): Promise<Principal> {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer +(\S+)$/i.exec(header);
  if (!match) throw unauthorized('missing_credentials', 'send Authorization: Bearer <API key or access token>');
  const credential = match[1]!;
  if (isWellFormedApiKey(credential)) {
    const key = await findApiKeyByHash(ctx.pool, credential);
    if (!key) throw unauthorized('invalid_api_key', 'the API key is not valid');
    if (key.revoked) {
      await reportDenial(ctx, key.tenantId, { type: 'api_key', id: key.id }, 'key_revoked', req);
      throw unauthorized('api_key_revoked', 'the API key has been revoked');
    }
    await touchApiKey(ctx.pool, key.id);
    return { tenantId: key.tenantId, keyId: key.id, kind: 'api_key', scopes: ALL_SCOPES };
  }
  if (JWT_SHAPE.test(credential)) {
    const verified = await verifyAccessToken(ctx.tokenKey, credential);
    if (!verified.ok) {
      if (verified.reason === 'token_expired' && verified.tenantId && verified.keyId) {
        await reportDenial(ctx, verified.tenantId, { type: 'oauth_client', id: verified.keyId }, 'token_expired', req);
        throw unauthorized('token_expired', 'the access token has expired');
      }
      throw unauthorized('invalid_token', 'the access token is not valid');
    }
    const { claims } = verified;
    const key = await findApiKeyById(ctx.pool, claims.keyId);
    if (!key || key.tenantId !== claims.tenantId) throw unauthorized('invalid_token', 'the access token is not valid');
    if (key.revoked) {
      await reportDenial(ctx, key.tenantId, { type: 'oauth_client', id: key.id }, 'key_revoked', req);
      throw unauthorized('api_key_revoked', 'the API key behind this access token has been revoked');
    }
    return { tenantId: claims.tenantId, keyId: claims.keyId, kind: 'access_token', scopes: claims.scopes };
  }
  throw unauthorized('invalid_credentials', 'the bearer credential is neither an API key nor an access token');
}

export async function requireScope(ctx: CallsContext, req: Request, principal: Principal, scope: Scope): Promise<void> {
  if (principal.scopes.includes(scope)) return;
  await reportDenial(ctx, principal.tenantId, { type: 'oauth_client', id: principal.keyId }, 'insufficient_scope', req);
  throw new CallsApiError(403, 'insufficient_scope', `this credential lacks the ${scope} scope`, {
    headers: { 'WWW-Authenticate': `Bearer realm="calls", error="insufficient_scope", scope="${scope}"` },
  });
}

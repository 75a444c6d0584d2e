import { timingSafeEqual } from 'node:crypto';
import { Router, type Request } from 'express';
import { isForm, isJson, parseJson, readBody, unsupportedMediaType } from '../body.js';
import type { CallsContext } from '../context.js';
import { reportDenial } from '../denials.js';
import { CallsApiError } from '../errors.js';
import { findApiKeyByHash, findApiKeyById, isWellFormedApiKey } from '../keys.js';
import { hitRateLimit } from '../rate-limit.js';
import { ALL_SCOPES, isScope, issueAccessToken, type Scope } from '../tokens.js';
import { sendJson } from '../../http/json-response.js';

type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

/** RFC 6749 section 5.2 errors in this API's one error shape: `code` and the standard `error` agree. */
function oauthError(status: number, error: OAuthErrorCode, description: string, headers?: Record<string, string>): CallsApiError {
  return new CallsApiError(status, error, description, { body: { error, error_description: description }, ...(headers ? { headers } : {}) });
}

async function formOf(req: Request): Promise<Record<string, string>> {
  if (isForm(req)) return Object.fromEntries(new URLSearchParams(await readBody(req)));
  if (isJson(req)) {
    const body = parseJson(await readBody(req));
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw oauthError(400, 'invalid_request', 'the body must be an object');
    return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  }
  throw unsupportedMediaType('application/x-www-form-urlencoded');
}

/** RFC 6749 section 2.3.1: Basic credentials are form-encoded before base64. */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw oauthError(401, 'invalid_client', 'malformed Basic credentials', { 'WWW-Authenticate': 'Basic realm="calls"' });
  }
}

interface ClientCredentials {
  readonly id: string;
  readonly secret: string;
  readonly viaBasic: boolean;
}

function credentialsOf(req: Request, form: Record<string, string>): ClientCredentials {
  const basic = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString();
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthError(401, 'invalid_client', 'malformed Basic credentials', { 'WWW-Authenticate': 'Basic realm="calls"' });
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)), viaBasic: true };
  }
  if (form.client_id && form.client_secret) return { id: form.client_id, secret: form.client_secret, viaBasic: false };
  throw oauthError(401, 'invalid_client', 'client authentication is required (HTTP Basic or client_id and client_secret)', { 'WWW-Authenticate': 'Basic realm="calls"' });
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * OAuth 2.0 client credentials (RFC 6749 section 4.4). The client is an API key: `client_id` is
 * the key's id, `client_secret` the key. The answer is a short-lived access token for the key's
 * tenant, no refresh token.
 */
export function oauthRouter(ctx: CallsContext): Router {
  const router = Router();
  router.post('/oauth/token', async (req, res) => {
    const form = await formOf(req);
    const client = credentialsOf(req, form);
    const key = isWellFormedApiKey(client.secret) ? await findApiKeyByHash(ctx.pool, client.secret) : null;
    const challenge = client.viaBasic ? { 'WWW-Authenticate': 'Basic realm="calls"' } : undefined;
    if (!key || !sameText(key.id, client.id)) {
      // A wrong secret for a real client is a bad credential its tenant should hear about; an
      // unknown client id belongs to no tenant, so nobody is told.
      const named = await findApiKeyById(ctx.pool, client.id);
      if (named) await reportDenial(ctx, named.tenantId, { type: 'oauth_client', id: named.id }, 'invalid_secret', req);
      throw oauthError(401, 'invalid_client', 'unknown client or wrong secret', challenge);
    }
    if (key.revoked) {
      await reportDenial(ctx, key.tenantId, { type: 'oauth_client', id: key.id }, 'key_revoked', req);
      throw oauthError(401, 'invalid_client', 'the client has been revoked', challenge);
    }
    if (form.grant_type !== 'client_credentials') {
      throw oauthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    }
    const requested = form.scope === undefined ? [...ALL_SCOPES] : form.scope.split(' ').filter(Boolean);
    const unknown = requested.filter((scope) => !isScope(scope));
    if (unknown.length || requested.length === 0) throw oauthError(400, 'invalid_scope', `scopes must be among: ${ALL_SCOPES.join(' ')}`);
    await hitRateLimit(ctx.pool, key.tenantId, ctx.settings.rateLimitPerMinute);
    const scopes = [...new Set(requested as Scope[])];
    const token = await issueAccessToken(ctx.tokenKey, { keyId: key.id, tenantId: key.tenantId, scopes }, ctx.settings.tokenTtlSeconds);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: ctx.settings.tokenTtlSeconds, scope: scopes.join(' ') });
  });
  return router;
}

import type { Router } from 'express';
import { describe, expect, it } from 'vitest';
import { authPaths } from '../../../generator/emit/openapi/auth.js';
import { AUTH_ENDPOINTS } from '../../../runtime/auth/routes/endpoints.js';
import { routeKey } from '../../../runtime/http/endpoint.js';
import { buildKeyring } from '../../../runtime/tokens/keyring.js';
import { createAuthRouter } from '../../../runtime/auth/router.js';
import { loadConfig } from '../../../runtime/config.js';
import { createLogger } from '../../../runtime/logger.js';
import type { ProjectContext } from '../../../runtime/platform/project-context.js';
import { resolveSettings } from '../../../runtime/platform/settings.js';

/**
 * The auth document against the router the host serves: every route is documented with its
 * methods, and nothing is documented that is not served, so the two cannot drift apart.
 */

/** Endpoints of features Gantry does not have (or has switched off), answered as Supabase Auth answers with each switched off (routes/unsupported.ts). */
const SWITCHED_OFF = new Set([
  'ALL /sso',
  'ALL /sso/saml/metadata',
  'ALL /sso/saml/acs',
]);

interface RouteLayer {
  readonly route?: { readonly path: string | string[]; readonly methods: Record<string, boolean> };
}

/** `METHOD /path` of every route of the router, as express holds them. */
function servedRoutes(router: Router): string[] {
  const routes: string[] = [];
  for (const layer of router.stack as RouteLayer[]) {
    if (!layer.route) continue;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    const methods = layer.route.methods._all ? ['ALL'] : Object.keys(layer.route.methods).map((m) => m.toUpperCase());
    for (const path of paths) for (const method of methods) routes.push(`${method} ${path}`);
  }
  return routes;
}

function documentedRoutes(): string[] {
  return Object.entries(authPaths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path.slice('/auth/v1'.length).replace(/\{(\w+)\}/g, ':$1')}`),
  );
}

function servedAuthRoutes(): string[] {
  const ctx = {
    ref: 'docs',
    jwtSecret: 'x'.repeat(40),
    keyring: buildKeyring('x'.repeat(40), [], 'HS256'),
    // Passkeys and the OAuth 2.1 server on: their routes are served and documented; off, they answer passkey_disabled / feature_disabled.
    settings: resolveSettings({ 'auth.passkey.enabled': true, 'auth.oauth_server.enabled': true }),
    config: loadConfig({}),
  } as unknown as ProjectContext;
  const router = createAuthRouter(ctx, { log: createLogger('silent'), mailer: { send: async () => undefined } as never });
  // A feature that falls through to its switched-off answer when not enabled (`/authorize`) is served by two routes.
  return [...new Set(servedRoutes(router))].filter((route) => !SWITCHED_OFF.has(route));
}

describe('the auth OpenAPI document', () => {
  it('documents every route the auth router serves, with its methods, and nothing else', () => {
    const served = servedAuthRoutes();
    expect(served.length).toBeGreaterThan(20);
    expect(documentedRoutes().sort()).toEqual(served.sort());
  });

  it('has a declaration for every route the auth router serves, and none for a route it does not serve', () => {
    const declared = AUTH_ENDPOINTS.map((endpoint) => routeKey(endpoint, '/auth/v1'));
    expect(servedAuthRoutes().filter((route) => !declared.includes(route))).toEqual([]);
    expect(declared.filter((route) => !servedAuthRoutes().includes(route))).toEqual([]);
  });

  it('states the fields the readers take that the hand-kept document left out (GoTrue\'s MagicLinkParams and VerifyParams)', () => {
    const bodyFields = (path: string) => {
      const body = (authPaths[path] as { post: { requestBody: { content: Record<string, { schema: { properties: object } }> } } }).post.requestBody;
      return Object.keys(body.content['application/json']!.schema.properties).sort();
    };
    expect(bodyFields('/auth/v1/magiclink')).toEqual(['code_challenge', 'code_challenge_method', 'data', 'email']);
    expect(bodyFields('/auth/v1/verify')).toEqual(['email', 'phone', 'redirect_to', 'token', 'token_hash', 'type']);
  });
});

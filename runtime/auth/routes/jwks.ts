import type { Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { jwksOf } from '../../tokens/keyring.js';

/** How long clients may cache the key set (GoTrue's `Cache-Control`); auth-js refetches sooner for a kid it lacks. */
const JWKS_MAX_AGE_SECONDS = 600;

/**
 * GoTrue's `GET /.well-known/jwks.json`: the public halves of the project's signing keys
 * that verify now (current, and previous ones in their grace period). Public, as on
 * Supabase: verifying a token needs no project key.
 */
export function registerJwks(router: Router, deps: AuthDeps): void {
  router.get('/.well-known/jwks.json', (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.status(200).json(jwksOf(deps.ctx.keyring, Math.floor(deps.now().getTime() / 1000)));
  });
}

import type { Request, Router } from 'express';
import type { AuthDeps } from '../auth-deps.js';
import { AuthError, authErrors } from '../http/errors.js';
import { bodyOf, enforceRateLimit, handle } from '../http/handler.js';
import { acceptClientChange, acceptRegistration, type RegistrationType } from '../oauth-server/client-metadata.js';
import { deleteClient, findClient, insertClient, listClients, oauthClientJson, regenerateSecret, updateClient, type OAuthClientRow } from '../oauth-server/clients.js';
import { checkPresentApiKey, requireAdmin } from '../http/request-auth.js';
import { isUuid } from '../storage/users.js';

/**
 * Registration of the third-party apps that may use the project as their OAuth 2.1
 * server: the admin API auth-js's `auth.admin.oauth` calls, and RFC 7591 dynamic
 * registration where the project allows it. Mounted only with the OAuth server on.
 */

const clientNotFound = (): AuthError => new AuthError(404, 'oauth_client_not_found', 'OAuth client not found');

async function clientOf(req: Request, deps: AuthDeps): Promise<OAuthClientRow> {
  const id = String(req.params.client_id ?? '');
  if (id === '') throw authErrors.validation('client_id is required');
  if (!isUuid(id)) throw authErrors.validation('invalid client_id format');
  const client = await findClient(deps.ctx.adminPool, id);
  if (client === null) throw clientNotFound();
  return client;
}

export function registerOAuthClients(router: Router, deps: AuthDeps): void {
  const db = deps.ctx.adminPool;

  const register = (registrationType: RegistrationType, guard: (req: Request) => unknown) =>
    handle(deps, async (req, res) => {
      await guard(req);
      const client = acceptRegistration(bodyOf(req), registrationType);
      const { row, secret } = await insertClient(db, client, deps.now());
      res.status(201).json(oauthClientJson(row, secret));
    });

  router.post('/admin/oauth/clients', register('manual', (req) => requireAdmin(req, deps)));
  router.get(
    '/admin/oauth/clients',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      res.status(200).json({ clients: (await listClients(db)).map((row) => oauthClientJson(row)) });
    }),
  );
  router.get(
    '/admin/oauth/clients/:client_id',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      res.status(200).json(oauthClientJson(await clientOf(req, deps)));
    }),
  );
  router.put(
    '/admin/oauth/clients/:client_id',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      const client = await clientOf(req, deps);
      const updated = await updateClient(db, client.id, acceptClientChange(bodyOf(req), client.client_type), deps.now());
      if (updated === null) throw clientNotFound();
      res.status(200).json(oauthClientJson(updated));
    }),
  );
  router.delete(
    '/admin/oauth/clients/:client_id',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      const client = await clientOf(req, deps);
      if (!(await deleteClient(db, client.id, deps.now()))) throw clientNotFound();
      res.status(204).end();
    }),
  );
  router.post(
    '/admin/oauth/clients/:client_id/regenerate_secret',
    handle(deps, async (req, res) => {
      requireAdmin(req, deps);
      const client = await clientOf(req, deps);
      if (client.client_type !== 'confidential') throw authErrors.validation('Cannot regenerate secret for public client');
      const regenerated = await regenerateSecret(db, client.id, deps.now());
      if (regenerated === null) throw clientNotFound();
      res.status(200).json(oauthClientJson(regenerated.row, regenerated.secret));
    }),
  );

  // Third-party apps (MCP clients among them) register without the project's key, as Supabase's gateway lets them.
  router.post(
    '/oauth/clients/register',
    register('dynamic', async (req) => {
      checkPresentApiKey(req, deps);
      await enforceRateLimit(req, deps, 'oauth_client_register');
      if (!deps.ctx.settings['auth.oauth_server.allow_dynamic_registration']) {
        throw new AuthError(403, 'oauth_dynamic_client_registration_disabled', 'Dynamic client registration is not enabled');
      }
    }),
  );
}

import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { requireScope } from '../auth.js';
import type { CallsContext } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { parsePublicId, publicId } from '../ids.js';
import { readJson } from '../body.js';
import { parseRotateRequest, parseWebhookRequest } from '../validation.js';
import { generateWebhookSecret } from '../../outbound/webhook-signing.js';
import { sendJson } from '../../http/json-response.js';
import { principalOf } from './principal.js';

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
  previous_secret_expires_at: Date | null;
}

interface DeliveryRow {
  id: string;
  message_id: string;
  type: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  attempt_log: { attempt: number; started_at: string; duration_ms: number; status_code: number | null; error: string | null; response_snippet: string | null }[];
}

function endpointResource(row: EndpointRow, secret?: string): Record<string, unknown> {
  return {
    id: publicId('we', row.id),
    object: 'webhook_endpoint',
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
    previous_secret_expires_at: row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at.toISOString() : null,
    ...(secret ? { secret } : {}),
  };
}

function deliveryResource(row: DeliveryRow): Record<string, unknown> {
  return {
    id: publicId('dlv', row.id),
    object: 'webhook_delivery',
    message_id: row.message_id,
    event_type: row.type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    attempt_log: row.attempt_log,
  };
}

const ENDPOINT_COLUMNS = 'id, url, events, enabled, disabled_reason, created_at, previous_secret_expires_at';

/**
 * `/v1/webhooks`: endpoints per tenant. The `whsec_` secret is returned on create and on
 * rotation only. Deleted endpoints stay as rows (their delivery log still references them) but
 * are gone for the API and get no new deliveries.
 */
export function webhooksRouter(ctx: CallsContext): Router {
  const router = Router();
  const policy = { allowPrivate: ctx.settings.allowPrivateUrls, allowCidrs: ctx.settings.allowCidrs };

  router.use('/webhooks', async (req, res, next) => {
    await requireScope(ctx, req, principalOf(res), 'webhooks:manage');
    next();
  });

  const endpointId = (text: string): string => {
    const id = parsePublicId('we', text);
    if (!id) throw notFound('webhook endpoint');
    return id;
  };

  router.post('/webhooks', async (req, res) => {
    const parsed = parseWebhookRequest(await readJson(req), policy);
    if (!parsed.ok) throw validationError(parsed.errors);
    const secret = generateWebhookSecret();
    const { rows } = await ctx.pool.query<EndpointRow>(
      `INSERT INTO calls_webhook_endpoints (id, tenant_id, url, events, secret) VALUES ($1, $2, $3, $4, $5) RETURNING ${ENDPOINT_COLUMNS}`,
      [randomUUID(), principalOf(res).tenantId, parsed.value.url, parsed.value.events, secret],
    );
    const resource = endpointResource(rows[0]!, secret);
    res.setHeader('Location', `/v1/webhooks/${resource.id as string}`);
    sendJson(res, 201, resource);
  });

  router.get('/webhooks', async (_req, res) => {
    const { rows } = await ctx.pool.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM calls_webhook_endpoints WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY seq`,
      [principalOf(res).tenantId],
    );
    sendJson(res, 200, { object: 'list', data: rows.map((row) => endpointResource(row)) });
  });

  router.get('/webhooks/:id', async (req, res) => {
    const { rows } = await ctx.pool.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM calls_webhook_endpoints WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`,
      [endpointId(req.params.id!), principalOf(res).tenantId],
    );
    if (!rows[0]) throw notFound('webhook endpoint');
    sendJson(res, 200, endpointResource(rows[0]));
  });

  router.delete('/webhooks/:id', async (req, res) => {
    const { rowCount } = await ctx.pool.query(
      'UPDATE calls_webhook_endpoints SET deleted_at = now(), enabled = false WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL',
      [endpointId(req.params.id!), principalOf(res).tenantId],
    );
    if (!rowCount) throw notFound('webhook endpoint');
    res.status(204).end();
  });

  /** A new secret; the old one keeps co-signing for `grace_seconds` (default 24 h) so consumers can switch. */
  router.post('/webhooks/:id/rotate-secret', async (req, res) => {
    const id = endpointId(req.params.id!);
    const parsed = parseRotateRequest(await readJson(req, { optional: true }));
    if (!parsed.ok) throw validationError(parsed.errors);
    const secret = generateWebhookSecret();
    const { rows } = await ctx.pool.query<EndpointRow>(
      `UPDATE calls_webhook_endpoints
          SET previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => $3), secret = $4
        WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
      [id, principalOf(res).tenantId, parsed.value.grace_seconds, secret],
    );
    if (!rows[0]) throw notFound('webhook endpoint');
    sendJson(res, 200, endpointResource(rows[0], secret));
  });

  /** Re-enables an endpoint disabled after persistent failure or a 410. */
  router.post('/webhooks/:id/enable', async (req, res) => {
    const { rows } = await ctx.pool.query<EndpointRow>(
      `UPDATE calls_webhook_endpoints SET enabled = true, disabled_reason = NULL
        WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL RETURNING ${ENDPOINT_COLUMNS}`,
      [endpointId(req.params.id!), principalOf(res).tenantId],
    );
    if (!rows[0]) throw notFound('webhook endpoint');
    sendJson(res, 200, endpointResource(rows[0]));
  });

  /** The delivery log: the latest 100 deliveries, newest first, each with its attempts. */
  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const id = endpointId(req.params.id!);
    const tenantId = principalOf(res).tenantId;
    const { rowCount } = await ctx.pool.query('SELECT 1 FROM calls_webhook_endpoints WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL', [id, tenantId]);
    if (!rowCount) throw notFound('webhook endpoint');
    const { rows } = await ctx.pool.query<DeliveryRow>(
      `SELECT d.id, d.message_id, m.type, d.status, d.attempts, d.next_attempt_at, d.last_status_code, d.last_error, d.created_at,
              coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
                                                          'status_code', a.status_code, 'error', a.error, 'response_snippet', a.response_snippet)
                                        ORDER BY a.attempt)
                          FROM calls_webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_log
         FROM calls_webhook_deliveries d JOIN calls_webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $1 ORDER BY d.seq DESC LIMIT 100`,
      [id],
    );
    sendJson(res, 200, { object: 'list', data: rows.map(deliveryResource) });
  });

  return router;
}

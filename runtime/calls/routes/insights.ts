import { Router } from 'express';
import { requireScope } from '../auth.js';
import { readJson } from '../body.js';
import type { CallsContext } from '../context.js';
import { validationError } from '../errors.js';
import { parseInsightSettings } from '../insights/settings.js';
import { loadInsightSettings, saveInsightSettings, type StoredInsightSettings } from '../insights/store.js';
import { sendJson } from '../../http/json-response.js';
import { principalOf } from './principal.js';

function settingsResource(stored: StoredInsightSettings): Record<string, unknown> {
  return { object: 'insight_settings', ...stored.settings, updated_at: stored.updatedAt ? stored.updatedAt.toISOString() : null };
}

/**
 * `/v1/insights/settings`: one settings resource per tenant (keyword lists, required script
 * phrases, PII redaction, match score). Read with `calls:read`; replaced whole with `calls:write`,
 * since it changes what the tenant's analyses produce. Calls completed before a change keep
 * their insights.
 */
export function insightsRouter(ctx: CallsContext): Router {
  const router = Router();

  router.get('/insights/settings', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:read');
    sendJson(res, 200, settingsResource(await loadInsightSettings(ctx.pool, principal.tenantId)));
  });

  router.put('/insights/settings', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:write');
    const parsed = parseInsightSettings(await readJson(req));
    if (!parsed.ok) throw validationError(parsed.errors);
    sendJson(res, 200, settingsResource(await saveInsightSettings(ctx.pool, principal.tenantId, parsed.value)));
  });

  return router;
}

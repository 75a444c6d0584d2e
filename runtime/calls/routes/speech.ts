import { Router } from 'express';
import { requireScope } from '../auth.js';
import { readJson } from '../body.js';
import type { CallsContext } from '../context.js';
import { validationError } from '../errors.js';
import { availableKinds, loadTenantSpeech, saveTenantSpeech, type TenantSpeech } from '../transcript/tenant-speech-store.js';
import { parseTenantSpeechInput } from '../transcript/tenant-speech-settings.js';
import { sendJson } from '../../http/json-response.js';
import { principalOf } from './principal.js';

function speechResource(ctx: CallsContext, stored: TenantSpeech): Record<string, unknown> {
  const { openai } = stored;
  return {
    object: 'speech_settings',
    engines: stored.engines,
    openai: openai && { base_url: openai.baseUrl, model: openai.model, languages: openai.languages, api_key_set: openai.sealedKey !== null },
    available_engines: availableKinds(ctx.settings.speech, openai !== null),
    updated_at: stored.updatedAt ? stored.updatedAt.toISOString() : null,
  };
}

/**
 * `/v1/speech/settings`: which of the deployment's speech engines a tenant's calls use, in which
 * order, and optionally the tenant's own OpenAI-compatible endpoint (its key sealed at rest and
 * never returned). Read with `calls:read`, replaced whole with `calls:write`.
 */
export function speechRouter(ctx: CallsContext): Router {
  const router = Router();
  const policy = { allowPrivate: ctx.settings.allowPrivateUrls, allowCidrs: ctx.settings.allowCidrs };

  router.get('/speech/settings', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:read');
    sendJson(res, 200, speechResource(ctx, await loadTenantSpeech(ctx.pool, principal.tenantId)));
  });

  router.put('/speech/settings', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:write');
    const parsed = parseTenantSpeechInput(await readJson(req), policy);
    if (!parsed.ok) throw validationError(parsed.errors);
    const available = availableKinds(ctx.settings.speech, parsed.value.openai !== null);
    const missing = (parsed.value.engines ?? []).flatMap((kind, i) => (available.includes(kind) ? [] : [{ field: `engines[${i}]`, code: 'engine_not_available', message: `this deployment offers ${available.join(', ') || 'no engine'}; openai also with your own endpoint` }]));
    if (missing.length) throw validationError(missing);
    sendJson(res, 200, speechResource(ctx, await saveTenantSpeech(ctx.pool, ctx.tokenKey, principal.tenantId, parsed.value)));
  });

  return router;
}

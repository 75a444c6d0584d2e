import type { Queryable } from '../../db/transaction.js';
import type { AddressPolicy } from '../../outbound/address-policy.js';
import { openValue, purposeKey, sealValue } from '../../sealed-value.js';
import { WHISPER_LANGUAGES } from './openai-engine.js';
import type { EngineKind, EngineSpec, SpeechSettings } from './speech-settings.js';
import type { TenantSpeechInput } from './tenant-speech-settings.js';

interface SpeechRow {
  readonly engines: EngineKind[] | null;
  readonly openai_base_url: string | null;
  readonly openai_model: string | null;
  readonly openai_languages: string[] | null;
  readonly openai_key_sealed: string | null;
  readonly updated_at: Date;
}

/** A tenant's speech settings as stored; the API key stays sealed. */
export interface TenantSpeech {
  readonly engines: readonly EngineKind[] | null;
  readonly openai: { readonly baseUrl: string; readonly model: string; readonly languages: readonly string[] | null; readonly sealedKey: string | null } | null;
  /** null: never set, the deployment's engines apply. */
  readonly updatedAt: Date | null;
}

const NONE: TenantSpeech = { engines: null, openai: null, updatedAt: null };
/** Tenants' engine keys are sealed under a key derived from the API's token key, which stays in the platform database. */
const sealingKey = (rootKey: Uint8Array): Buffer => purposeKey(rootKey, 'gantry calls speech engine key');
/** What the sealed key is bound to: this tenant's OpenAI-compatible key and nothing else. */
const keyContext = (tenantId: string): string => `speech.openai.api_key:${tenantId}`;

export async function loadTenantSpeech(db: Queryable, tenantId: string): Promise<TenantSpeech> {
  const { rows } = await db.query<SpeechRow>('SELECT * FROM calls_speech_settings WHERE tenant_id = $1', [tenantId]);
  const row = rows[0];
  if (!row) return NONE;
  return {
    engines: row.engines,
    openai: row.openai_base_url ? { baseUrl: row.openai_base_url, model: row.openai_model ?? '', languages: row.openai_languages, sealedKey: row.openai_key_sealed } : null,
    updatedAt: row.updated_at,
  };
}

/** Replaces the tenant's settings; an endpoint given without `api_key` keeps the key stored before. */
export async function saveTenantSpeech(db: Queryable, rootKey: Uint8Array, tenantId: string, input: TenantSpeechInput): Promise<TenantSpeech> {
  const previous = await loadTenantSpeech(db, tenantId);
  const openai = input.openai;
  const sealedKey = openai ? (openai.apiKey !== null ? sealValue(sealingKey(rootKey), keyContext(tenantId), openai.apiKey) : (previous.openai?.sealedKey ?? null)) : null;
  const { rows } = await db.query<{ updated_at: Date }>(
    `INSERT INTO calls_speech_settings (tenant_id, engines, openai_base_url, openai_model, openai_languages, openai_key_sealed)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (tenant_id) DO UPDATE SET engines = EXCLUDED.engines, openai_base_url = EXCLUDED.openai_base_url, openai_model = EXCLUDED.openai_model,
       openai_languages = EXCLUDED.openai_languages, openai_key_sealed = EXCLUDED.openai_key_sealed, updated_at = now()
     RETURNING updated_at`,
    [tenantId, input.engines, openai?.baseUrl ?? null, openai?.model ?? null, openai?.languages ?? null, sealedKey],
  );
  return {
    engines: input.engines,
    openai: openai ? { baseUrl: openai.baseUrl, model: openai.model, languages: openai.languages, sealedKey } : null,
    updatedAt: rows[0]!.updated_at,
  };
}

/** The engine kinds a tenant may list: the deployment's, and `openai` when the tenant brings its own endpoint. */
export function availableKinds(deployment: SpeechSettings, ownOpenAi: boolean): EngineKind[] {
  const kinds = deployment.engines.map((spec) => spec.kind);
  return ownOpenAi && !kinds.includes('openai') ? ['openai', ...kinds] : kinds;
}

/**
 * The engines a tenant's call goes to, in order: the tenant's list (or the deployment's order,
 * with the tenant's own endpoint first when the deployment has none), `openai` meaning the
 * tenant's own endpoint where it set one. Kinds the deployment no longer offers are skipped.
 */
export function tenantEngines(deployment: SpeechSettings, tenant: TenantSpeech, rootKey: Uint8Array, tenantId: string, policy: AddressPolicy, timeoutMs: number): EngineSpec[] {
  const own = tenant.openai;
  const kinds = tenant.engines ?? availableKinds(deployment, own !== null);
  return kinds.flatMap((kind): EngineSpec[] => {
    if (kind === 'openai' && own) {
      const apiKey = own.sealedKey ? openValue(sealingKey(rootKey), keyContext(tenantId), own.sealedKey) : '';
      return [{ kind: 'openai', baseUrl: own.baseUrl, model: own.model, apiKey, languages: own.languages ?? WHISPER_LANGUAGES, timeoutMs, policy }];
    }
    const spec = deployment.engines.find((candidate) => candidate.kind === kind);
    return spec ? [spec] : [];
  });
}

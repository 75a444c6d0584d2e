import type { Queryable } from '../../db/transaction.js';
import type { Transcript } from '../transcript/transcript.js';
import { effectiveInsightSettings, type CallInsightOptions } from './call-options.js';
import { buildInsights, type CallInsights } from './insights.js';
import { DEFAULT_INSIGHT_SETTINGS, type InsightSettings } from './settings.js';

export interface StoredInsightSettings {
  readonly settings: InsightSettings;
  /** null: the tenant never set them and has the defaults. */
  readonly updatedAt: Date | null;
}

export async function loadInsightSettings(db: Queryable, tenantId: string): Promise<StoredInsightSettings> {
  const { rows } = await db.query<{ settings: InsightSettings; updated_at: Date }>('SELECT settings, updated_at FROM calls_insight_settings WHERE tenant_id = $1', [tenantId]);
  return rows[0] ? { settings: { ...DEFAULT_INSIGHT_SETTINGS, ...rows[0].settings }, updatedAt: rows[0].updated_at } : { settings: DEFAULT_INSIGHT_SETTINGS, updatedAt: null };
}

export async function saveInsightSettings(db: Queryable, tenantId: string, settings: InsightSettings): Promise<StoredInsightSettings> {
  const { rows } = await db.query<{ updated_at: Date }>(
    `INSERT INTO calls_insight_settings (tenant_id, settings) VALUES ($1, $2)
     ON CONFLICT (tenant_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now() RETURNING updated_at`,
    [tenantId, JSON.stringify(settings)],
  );
  return { settings, updatedAt: rows[0]!.updated_at };
}

/**
 * A call's result with the tenant's insights, the call's own options applied over the tenant's
 * settings: when the result carries a completed transcript, the transcript as stored (redacted if
 * the settings ask) and `insights`; `insights: null` beside a transcript that is unavailable; a
 * result without a transcript is returned as it is.
 */
export async function withTenantInsights<T extends object>(
  db: Queryable,
  tenantId: string,
  result: T,
  options: CallInsightOptions | null = null,
): Promise<T | (T & { transcript: Transcript; insights: CallInsights | null })> {
  if (!('transcript' in result)) return result;
  const transcript = result.transcript as Transcript;
  if (transcript.status !== 'completed') return { ...result, transcript, insights: null };
  const { settings } = await loadInsightSettings(db, tenantId);
  return { ...result, ...buildInsights(transcript, effectiveInsightSettings(settings, options)) };
}

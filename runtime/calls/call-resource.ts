import type { CallAnalysis } from './analysis/result.js';
import { publicId } from './ids.js';
import type { CallInsightOptions } from './insights/call-options.js';

export type CallStatus = 'queued' | 'processing' | 'completed' | 'failed';

/** Why an analysis failed; `status` is the HTTP status the failure corresponds to (413 for too large, ...). */
export interface CallError {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

export interface CallRow {
  readonly id: string;
  readonly seq: string;
  readonly tenant_id: string;
  readonly status: CallStatus;
  readonly audio_url: string;
  readonly language: string;
  readonly operator_id: string;
  readonly insight_options: CallInsightOptions | null;
  readonly attempts: number;
  readonly error: CallError | null;
  readonly result: CallAnalysis | null;
  readonly created_at: Date;
  readonly started_at: Date | null;
  readonly completed_at: Date | null;
}

export interface CallResource {
  readonly id: string;
  readonly object: 'call_analysis';
  readonly status: CallStatus;
  readonly audio_url: string;
  readonly language: string;
  readonly operator_id: string;
  /** The insight options the call was submitted with; null: the tenant's settings apply. */
  readonly insight_options: CallInsightOptions | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly completed_at: string | null;
  readonly attempts: number;
  readonly error: CallError | null;
  readonly result: CallAnalysis | null;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function callResource(row: CallRow): CallResource {
  return {
    id: publicId('call', row.id),
    object: 'call_analysis',
    status: row.status,
    audio_url: row.audio_url,
    language: row.language,
    operator_id: row.operator_id,
    insight_options: row.insight_options,
    created_at: row.created_at.toISOString(),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    attempts: row.attempts,
    error: row.error,
    result: row.result,
  };
}

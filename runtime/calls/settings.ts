import { SpeechEngineError } from './transcript/speech-engine.js';
import { readSpeechSettings, type SpeechSettings } from './transcript/speech-settings.js';
import type { VadKind } from './analysis/options.js';
import { CodedError } from '../coded-error.js';
import { envFlag, envList, envNumber } from '../env.js';

/**
 * Tunables of the call-analysis API, read from the environment by `loadConfig` (the one config
 * loader). Every value has a production default; tests shorten the delays.
 */
export interface CallsSettings {
  /** `CALLS_ALLOW_PRIVATE_URLS=true`: recordings and webhook targets may be on private addresses. */
  readonly allowPrivateUrls: boolean;
  /** `CALLS_ALLOW_CIDRS`: comma-separated CIDRs allowed besides public unicast (narrower than the flag above). */
  readonly allowCidrs: readonly string[];
  /** `CALLS_CONCURRENCY`: analyses one process runs at once; 0 = this process only accepts requests. */
  readonly concurrency: number;
  /** `CALLS_QUEUE_SCHEMA`: the PostgreSQL schema pg-boss keeps its jobs in. Processes sharing work share it. */
  readonly queueSchema: string;
  /** `CALLS_POLL_SECONDS`: how often idle workers look for jobs (pg-boss polls; minimum 0.5). */
  readonly pollSeconds: number;
  /** `CALLS_JOB_EXPIRE_SECONDS`: a job active longer than this (its process died) is failed and re-run. */
  readonly jobExpireSeconds: number;
  /** `CALLS_JOB_RETRY_LIMIT`: re-runs after a transient failure, a crash or a shutdown mid-job. */
  readonly jobRetryLimit: number;
  /** `CALLS_JOB_RETRY_DELAY_SECONDS`: first re-run delay (doubles each time). */
  readonly jobRetryDelaySeconds: number;
  /** `CALLS_MAINTENANCE_SECONDS`: how often expired jobs are swept back into retry and expired Idempotency-Keys deleted. */
  readonly maintenanceSeconds: number;
  /** `CALLS_MAX_RECORDING_BYTES`: larger recordings fail with `file_too_large`. */
  readonly maxRecordingBytes: number;
  /** `CALLS_MAX_DURATION_SECONDS`: longer recordings fail with `audio_too_long`. */
  readonly maxDurationSeconds: number;
  /** `CALLS_FETCH_TIMEOUT_SECONDS`: budget for downloading one recording. */
  readonly fetchTimeoutSeconds: number;
  /**
   * `CALLS_IDEMPOTENCY_WINDOW_SECONDS`: how long an Idempotency-Key is remembered (default 24 h, as
   * Stripe); afterwards the same key is a fresh request and the maintenance sweep deletes its record.
   */
  readonly idempotencyWindowSeconds: number;
  /** `CALLS_RATE_LIMIT_PER_MINUTE`: authenticated requests per tenant per minute. */
  readonly rateLimitPerMinute: number;
  /** `CALLS_TOKEN_TTL_SECONDS`: lifetime of OAuth access tokens. */
  readonly tokenTtlSeconds: number;
  /** `CALLS_WEBHOOK_RETRY_SCHEDULE`: seconds before each re-delivery (±20 % jitter); its length caps the attempts. */
  readonly webhookRetrySchedule: readonly number[];
  /** `CALLS_WEBHOOK_TIMEOUT_SECONDS`: how long one delivery attempt may take. */
  readonly webhookTimeoutSeconds: number;
  /** `CALLS_SPEECH_ENGINES` and the engines' variables: which speech engines transcribe calls (see docs/call-analysis.md). */
  readonly speech: SpeechSettings;
  /** `CALLS_VAD`: `silero` (default) or `energy`, the voice activity detector of the talk metrics. */
  readonly vad: VadKind;
}

export class CallsSettingsError extends CodedError {
  readonly code = 'invalid_config';
}

/** The Svix schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all). */
const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

const fail = (message: string): CallsSettingsError => new CallsSettingsError(message);

export function readCallsSettings(env: NodeJS.ProcessEnv): CallsSettings {
  const schedule = envList(env, 'CALLS_WEBHOOK_RETRY_SCHEDULE').map(Number);
  if (schedule.some((s) => !Number.isFinite(s) || s < 0)) {
    throw new CallsSettingsError(`CALLS_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${env.CALLS_WEBHOOK_RETRY_SCHEDULE}"`);
  }
  const queueSchema = env.CALLS_QUEUE_SCHEMA || 'pgboss';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(queueSchema)) {
    throw new CallsSettingsError(`CALLS_QUEUE_SCHEMA must be a lower-case identifier, got "${queueSchema}"`);
  }
  const allowPrivateUrls = envFlag(env, 'CALLS_ALLOW_PRIVATE_URLS');
  const allowCidrs = envList(env, 'CALLS_ALLOW_CIDRS');
  let speech: SpeechSettings;
  try {
    speech = readSpeechSettings(env, { allowPrivate: allowPrivateUrls, allowCidrs });
  } catch (error) {
    if (error instanceof SpeechEngineError) throw new CallsSettingsError(error.message);
    throw error;
  }
  const vad = env.CALLS_VAD || 'silero';
  if (vad !== 'silero' && vad !== 'energy') throw new CallsSettingsError(`CALLS_VAD must be silero or energy, got "${vad}"`);
  return {
    allowPrivateUrls,
    allowCidrs,
    concurrency: envNumber(env, 'CALLS_CONCURRENCY', 2, 0, fail),
    queueSchema,
    pollSeconds: envNumber(env, 'CALLS_POLL_SECONDS', 2, 0.5, fail, false),
    jobExpireSeconds: envNumber(env, 'CALLS_JOB_EXPIRE_SECONDS', 900, 1, fail),
    jobRetryLimit: envNumber(env, 'CALLS_JOB_RETRY_LIMIT', 3, 0, fail),
    jobRetryDelaySeconds: envNumber(env, 'CALLS_JOB_RETRY_DELAY_SECONDS', 10, 0, fail),
    maintenanceSeconds: envNumber(env, 'CALLS_MAINTENANCE_SECONDS', 120, 1, fail),
    maxRecordingBytes: envNumber(env, 'CALLS_MAX_RECORDING_BYTES', 500 * 1024 * 1024, 1, fail),
    maxDurationSeconds: envNumber(env, 'CALLS_MAX_DURATION_SECONDS', 4 * 3600, 1, fail),
    fetchTimeoutSeconds: envNumber(env, 'CALLS_FETCH_TIMEOUT_SECONDS', 300, 1, fail),
    idempotencyWindowSeconds: envNumber(env, 'CALLS_IDEMPOTENCY_WINDOW_SECONDS', 24 * 3600, 1, fail),
    rateLimitPerMinute: envNumber(env, 'CALLS_RATE_LIMIT_PER_MINUTE', 600, 1, fail),
    tokenTtlSeconds: envNumber(env, 'CALLS_TOKEN_TTL_SECONDS', 900, 1, fail),
    webhookRetrySchedule: schedule.length ? schedule : DEFAULT_RETRY_SCHEDULE,
    webhookTimeoutSeconds: envNumber(env, 'CALLS_WEBHOOK_TIMEOUT_SECONDS', 15, 1, fail),
    speech,
    vad,
  };
}

import { describe, expect, it } from 'vitest';
import { AudioError } from '../../../runtime/calls/audio/errors.js';
import { FetchError } from '../../../runtime/outbound/errors.js';
import { classifyFailure } from '../../../runtime/calls/jobs/failure.js';
import { readCallsSettings } from '../../../runtime/calls/settings.js';
import { nextAttemptDelayMs, outcomeOf, retryAfterMs } from '../../../runtime/calls/webhooks/schedule.js';

describe('analysis failures', () => {
  it('network trouble and server errors are retried; the bytes and the policy are not', () => {
    expect(classifyFailure(new FetchError('download_timeout', 't')).transient).toBe(true);
    expect(classifyFailure(new FetchError('download_failed', 'x', 503)).transient).toBe(true);
    expect(classifyFailure(new FetchError('download_failed', 'x')).transient).toBe(true);
    expect(classifyFailure(new FetchError('download_failed', 'x', 404)).transient).toBe(false);
    expect(classifyFailure(new FetchError('url_blocked', 'x')).transient).toBe(false);
    expect(classifyFailure(new AudioError('corrupt_audio', 'x')).transient).toBe(false);
    expect(classifyFailure(new Error('boom'))).toEqual({ error: { code: 'internal_error', message: 'the analysis failed unexpectedly', status: 500 }, transient: true });
  });

  it('a too-large recording is a 413', () => {
    expect(classifyFailure(new FetchError('file_too_large', 'big')).error).toEqual({ code: 'file_too_large', message: 'big', status: 413 });
    expect(classifyFailure(new AudioError('audio_too_long', 'long')).error.status).toBe(413);
  });
});

describe('webhook retry schedule', () => {
  it('follows the schedule with ±20 % jitter, then stops', () => {
    const schedule = [5, 300];
    expect(nextAttemptDelayMs(schedule, 1, () => 0)).toBe(4000);
    expect(nextAttemptDelayMs(schedule, 1, () => 1)).toBe(6000);
    expect(nextAttemptDelayMs(schedule, 2, () => 0.5)).toBe(300_000);
    expect(nextAttemptDelayMs(schedule, 3)).toBeNull();
  });

  it('429 and 503 with Retry-After are not retried sooner than asked, up to a day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(429, '120', now)).toBe(120_000);
    expect(retryAfterMs(503, 'Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs(429, '999999', now)).toBe(86_400_000);
    expect(retryAfterMs(500, '120', now)).toBeNull();
    expect(retryAfterMs(429, 'soon', now)).toBeNull();
    expect(retryAfterMs(429, undefined, now)).toBeNull();
  });

  it('2xx succeeds, 410 means gone, anything else (redirects too) fails', () => {
    expect([200, 204, 299, 410, 301, 404, 500, null].map(outcomeOf)).toEqual(['succeeded', 'succeeded', 'succeeded', 'gone', 'failed', 'failed', 'failed', 'failed']);
  });
});

describe('settings', () => {
  it('defaults, overrides and refusals', () => {
    const defaults = readCallsSettings({});
    expect(defaults).toMatchObject({ allowPrivateUrls: false, concurrency: 2, queueSchema: 'pgboss', jobExpireSeconds: 900, idempotencyWindowSeconds: 86400, rateLimitPerMinute: 600, webhookRetrySchedule: [5, 300, 1800, 7200, 18000, 36000, 36000], vad: 'silero' });
    expect(readCallsSettings({ CALLS_VAD: 'energy' }).vad).toBe('energy');
    expect(() => readCallsSettings({ CALLS_VAD: 'webrtc' })).toThrow('CALLS_VAD must be silero or energy, got "webrtc"');
    expect(readCallsSettings({ CALLS_CONCURRENCY: '0', CALLS_WEBHOOK_RETRY_SCHEDULE: '0.5, 1', CALLS_ALLOW_CIDRS: '127.0.0.1/32' })).toMatchObject({
      concurrency: 0,
      webhookRetrySchedule: [0.5, 1],
      allowCidrs: ['127.0.0.1/32'],
    });
    expect(() => readCallsSettings({ CALLS_CONCURRENCY: '-1' })).toThrow('CALLS_CONCURRENCY must be an integer >= 0, got "-1"');
    expect(() => readCallsSettings({ CALLS_POLL_SECONDS: '0.1' })).toThrow('CALLS_POLL_SECONDS');
    expect(() => readCallsSettings({ CALLS_QUEUE_SCHEMA: 'Bad-Schema' })).toThrow('CALLS_QUEUE_SCHEMA');
    expect(() => readCallsSettings({ CALLS_WEBHOOK_RETRY_SCHEDULE: '1,x' })).toThrow('CALLS_WEBHOOK_RETRY_SCHEDULE');
    expect(readCallsSettings({ CALLS_IDEMPOTENCY_WINDOW_SECONDS: '3600' }).idempotencyWindowSeconds).toBe(3600);
    expect(() => readCallsSettings({ CALLS_IDEMPOTENCY_WINDOW_SECONDS: '0' })).toThrow('CALLS_IDEMPOTENCY_WINDOW_SECONDS must be an integer >= 1, got "0"');
  });
});

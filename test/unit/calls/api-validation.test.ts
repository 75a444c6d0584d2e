import { describe, expect, it } from 'vitest';
import {
  canonicalLanguage,
  decodeCursor,
  encodeCursor,
  isValidIdempotencyKey,
  parseCheckInRequest,
  parseListQuery,
  parseRotateRequest,
  parseWebhookRequest,
} from '../../../runtime/calls/validation.js';
import { parseAnalyzeRequest } from '../../../runtime/calls/analyze-request.js';
import { parsePublicId, publicId } from '../../../runtime/calls/ids.js';

const open = { allowPrivate: true };
const strict = { allowPrivate: false };

describe('analyze request', () => {
  it('accepts and normalises a good body', () => {
    expect(parseAnalyzeRequest({ audio_url: 'https://cdn.example.com/a b'.replace(' ', '%20'), language: 'EN-gb', operator_id: 'op 1' }, strict)).toEqual({
      ok: true,
      value: { audio_url: 'https://cdn.example.com/a%20b', language: 'en-GB', operator_id: 'op 1', insight_options: null },
    });
  });

  it('reports every bad field with its own code', () => {
    const result = parseAnalyzeRequest({ audio_url: 'https://exa mple.com', language: 7, operator_id: 'a\nb', extra: 1, more: 2 }, strict);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.map((e) => `${e.field}:${e.code}`)).toEqual([
      'extra:unknown_field',
      'more:unknown_field',
      'audio_url:invalid_url',
      'language:invalid_type',
      'operator_id:invalid_operator_id',
    ]);
  });

  it('checks IP-literal hosts against the policy; hostnames wait for connect time', () => {
    const body = (audio_url: string) => ({ audio_url, language: 'en', operator_id: 'o' });
    expect(parseAnalyzeRequest(body('http://192.168.1.5/a.wav'), strict)).toMatchObject({ ok: false, errors: [{ code: 'url_blocked' }] });
    expect(parseAnalyzeRequest(body('http://192.168.1.5/a.wav'), open).ok).toBe(true);
    expect(parseAnalyzeRequest(body('http://169.254.169.254/'), open)).toMatchObject({ ok: false, errors: [{ code: 'url_blocked' }] });
    expect(parseAnalyzeRequest(body('http://localhost/a.wav'), strict).ok).toBe(true);
    expect(parseAnalyzeRequest(body('file:///etc/passwd'), open)).toMatchObject({ ok: false, errors: [{ code: 'invalid_url' }] });
    expect(parseAnalyzeRequest(body('/relative.wav'), open)).toMatchObject({ ok: false, errors: [{ code: 'invalid_url', message: 'not an absolute URL' }] });
  });

  it('a non-object body is one error, not one per missing field', () => {
    for (const body of [null, [], 'x', 3]) {
      expect(parseAnalyzeRequest(body, open)).toEqual({ ok: false, errors: [{ field: '', code: 'invalid_body', message: 'the body must be a JSON object' }] });
    }
  });
});

describe('BCP-47', () => {
  it.each([
    ['en', 'en'],
    ['en-us', 'en-US'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['iw', 'he'],
    ['es-419', 'es-419'],
    ['yue', 'yue'],
  ])('%s -> %s', (tag, canonical) => expect(canonicalLanguage(tag)).toBe(canonical));

  it.each(['', 'en_us', 'x', '12', 'english', 'en-', 'a'.repeat(36)])('%j is refused', (tag) => expect(canonicalLanguage(tag)).toBeNull());
});

describe('other request bodies', () => {
  it('idempotency keys are 1-255 printable ASCII characters', () => {
    expect(isValidIdempotencyKey('a')).toBe(true);
    expect(isValidIdempotencyKey('x'.repeat(255))).toBe(true);
    expect(isValidIdempotencyKey('x'.repeat(256))).toBe(false);
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('has space')).toBe(false);
  });

  it('webhook endpoints: url, known event types, duplicates folded', () => {
    expect(parseWebhookRequest({ url: 'https://h.example/x', events: ['access.denied', 'access.denied'] }, strict)).toEqual({
      ok: true,
      value: { url: 'https://h.example/x', events: ['access.denied'] },
    });
    const bad = parseWebhookRequest({ url: 'https://10.0.0.1/x', events: 'access.denied' }, strict);
    expect(!bad.ok && bad.errors.map((e) => `${e.field}:${e.code}`)).toEqual(['url:url_blocked', 'events:invalid_type']);
  });

  it('rotation grace defaults to a day and is capped at a week', () => {
    expect(parseRotateRequest(undefined)).toEqual({ ok: true, value: { grace_seconds: 86_400 } });
    expect(parseRotateRequest({ grace_seconds: 0 })).toEqual({ ok: true, value: { grace_seconds: 0 } });
    expect(parseRotateRequest({ grace_seconds: 604_801 }).ok).toBe(false);
    expect(parseRotateRequest({ grace_seconds: 1.5 }).ok).toBe(false);
  });

  it('check-ins default to source api and now', () => {
    expect(parseCheckInRequest({ operator_id: 'op' })).toEqual({ ok: true, value: { operator_id: 'op', source: 'api', site_id: null, occurred_at: null } });
    expect(parseCheckInRequest({ operator_id: 'op', occurred_at: '2026-01-02T08:00:00Z' })).toMatchObject({ ok: true, value: { occurred_at: new Date('2026-01-02T08:00:00Z') } });
    expect(parseCheckInRequest({ operator_id: 'op', occurred_at: '2026-13-45T99:00:00Z' }).ok).toBe(false);
  });
});

describe('list query and ids', () => {
  it('defaults, bounds and opaque cursors', () => {
    expect(parseListQuery({})).toEqual({ ok: true, value: { limit: 20, cursor: null, status: null, operatorId: null } });
    const cursor = encodeCursor('42');
    expect(decodeCursor(cursor)).toBe('42');
    expect(parseListQuery({ limit: '100', cursor, status: 'failed', operator_id: 'o' })).toEqual({ ok: true, value: { limit: 100, cursor, status: 'failed', operatorId: 'o' } });
    expect(parseListQuery({ limit: '101' }).ok).toBe(false);
    expect(parseListQuery({ limit: '1e1' }).ok).toBe(false);
    expect(parseListQuery({ status: ['a', 'b'] }).ok).toBe(false);
    expect(decodeCursor('bm9wZQ')).toBeNull();
  });

  it('public ids round-trip and reject other types', () => {
    const uuid = '0f3c2a4e-1b2c-4d5e-8f90-a1b2c3d4e5f6';
    expect(publicId('call', uuid)).toBe('call_0f3c2a4e1b2c4d5e8f90a1b2c3d4e5f6');
    expect(parsePublicId('call', publicId('call', uuid))).toBe(uuid);
    expect(parsePublicId('we', publicId('call', uuid))).toBeNull();
    expect(parsePublicId('call', 'call_XYZ')).toBeNull();
  });
});

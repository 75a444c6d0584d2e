import { describe, expect, it } from 'vitest';
import { parseAnalyzeRequest } from '../../../../runtime/calls/analyze-request.js';
import { effectiveInsightSettings, type CallInsightOptions } from '../../../../runtime/calls/insights/call-options.js';
import { DEFAULT_INSIGHT_SETTINGS, type InsightSettings } from '../../../../runtime/calls/insights/settings.js';

const TENANT: InsightSettings = {
  keyword_lists: [
    { name: 'churn', phrases: ['cancel my subscription'] },
    { name: 'praise', phrases: ['thank you so much'] },
  ],
  script: { phrases: ['thank you for calling', 'this call may be recorded'], speaker: 'operator' },
  redact_pii: true,
  min_score: 0.8,
};

const call = { audio_url: 'https://cdn.example.com/a.wav', language: 'en', operator_id: 'op' };
const parse = (insight_options: unknown) => parseAnalyzeRequest({ ...call, insight_options }, { allowPrivate: false });

describe('a call’s insight options over the tenant’s settings', () => {
  it('extend: lists are added (one of the same name takes the tenant’s list’s place), script phrases added once, given scalars override', () => {
    const options: CallInsightOptions = {
      mode: 'extend',
      keyword_lists: [
        { name: 'churn', phrases: ['close my account'] },
        { name: 'offer', phrases: ['premium plan'] },
      ],
      script: { phrases: ['is there anything else', 'thank you for calling'] },
      redact_pii: false,
    };
    expect(effectiveInsightSettings(TENANT, options)).toEqual({
      keyword_lists: [
        { name: 'churn', phrases: ['close my account'] },
        { name: 'praise', phrases: ['thank you so much'] },
        { name: 'offer', phrases: ['premium plan'] },
      ],
      script: { phrases: ['thank you for calling', 'this call may be recorded', 'is there anything else'], speaker: 'operator' },
      redact_pii: false,
      min_score: 0.8,
    });
    expect(effectiveInsightSettings(TENANT, { mode: 'extend', script: { speaker: null }, min_score: 0.9 })).toEqual({
      ...TENANT,
      script: { ...TENANT.script, speaker: null },
      min_score: 0.9,
    });
  });

  it('replace: the tenant’s settings are not used and what the call leaves out takes the defaults; no options: the tenant’s', () => {
    expect(effectiveInsightSettings(TENANT, { mode: 'replace', script: { phrases: ['good morning'] } })).toEqual({
      ...DEFAULT_INSIGHT_SETTINGS,
      script: { phrases: ['good morning'], speaker: null },
    });
    expect(effectiveInsightSettings(TENANT, { mode: 'replace' })).toEqual(DEFAULT_INSIGHT_SETTINGS);
    expect(effectiveInsightSettings(TENANT, null)).toBe(TENANT);
  });

  it('parses with the settings’ rules: mode defaults to extend, what is left out stays out, null means none', () => {
    expect(parse({ keyword_lists: [{ name: 'offer', phrases: ['premium plan'] }], script: { phrases: ['good morning'] }, redact_pii: true })).toEqual({
      ok: true,
      value: { ...call, insight_options: { mode: 'extend', keyword_lists: [{ name: 'offer', phrases: ['premium plan'] }], script: { phrases: ['good morning'] }, redact_pii: true } },
    });
    expect(parse({ mode: 'replace', min_score: null })).toEqual({ ok: true, value: { ...call, insight_options: { mode: 'replace' } } });
    expect(parse(null)).toEqual({ ok: true, value: { ...call, insight_options: null } });
    expect(parseAnalyzeRequest(call, { allowPrivate: false })).toEqual({ ok: true, value: { ...call, insight_options: null } });
  });

  it('names every bad field under insight_options with the settings’ codes', () => {
    const bad = parse({
      mode: 'merge',
      keyword_lists: [{ name: 'a', phrases: ['ok', 'x'.repeat(201)] }, { name: 'a', phrases: [] }],
      script: { phrases: Array.from({ length: 51 }, (_, i) => `phrase ${i}`), speaker: 3 },
      redact_pii: 'yes',
      min_score: 0.1,
      colour: 'red',
    });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.map((e) => [e.field, e.code])).toEqual([
      ['insight_options.colour', 'unknown_field'],
      ['insight_options.keyword_lists[0].phrases[1]', 'invalid_phrase'],
      ['insight_options.keyword_lists[1].name', 'duplicate_name'],
      ['insight_options.script.phrases', 'too_many'],
      ['insight_options.script.speaker', 'invalid_speaker'],
      ['insight_options.redact_pii', 'invalid_type'],
      ['insight_options.min_score', 'invalid_min_score'],
      ['insight_options.mode', 'invalid_mode'],
    ]);
    for (const value of ['x', [], 3, true]) {
      expect(parse(value)).toEqual({ ok: false, errors: [{ field: 'insight_options', code: 'invalid_type', message: 'insight_options must be an object' }] });
    }
  });
});

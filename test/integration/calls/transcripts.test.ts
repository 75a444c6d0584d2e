import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTranscriptionServer, type Answer, type TranscriptionServer } from '../../helpers/calls/transcription-server.js';
import { callsEnv, eventually, startCallsHarness, startReceiver, type CallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let engine: TranscriptionServer;

beforeAll(async () => {
  rec = await startRecordingServer();
  receiver = await startReceiver();
  engine = await startTranscriptionServer();
  h = await startCallsHarness(
    callsEnv({
      CALLS_SPEECH_ENGINES: 'openai',
      CALLS_SPEECH_OPENAI_URL: engine.baseUrl,
      CALLS_SPEECH_OPENAI_MODEL: 'whisper-large-v3',
      CALLS_SPEECH_OPENAI_KEY: 'sk-deployment',
      CALLS_SPEECH_OPENAI_LANGUAGES: 'en',
    }),
  );
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
  await receiver?.close();
  await engine?.close();
});

describe('transcripts through the API', () => {
  it('the call resource carries the transcript; the completed event carries its summary and the insight summary', async () => {
    const { key } = await h.newTenant();
    const settings = await h.request('PUT', '/v1/insights/settings', { key, body: { keyword_lists: [{ name: 'greetings', phrases: ['hello'] }], script: { phrases: ['hello world', 'goodbye'] } } });
    expect(settings.status).toBe(200);
    const hook = await h.request('POST', '/v1/webhooks', { key, body: { url: `${receiver.url}/transcripts`, events: ['call.analysis.completed'] } });
    const submitted = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'en-US', operator_id: 'op_1' } });
    const done = await h.waitForCall(key, submitted.body.id);
    expect(done.body.status).toBe('completed');
    const { transcript, insights, ...metrics } = done.body.result;
    expect(transcript).toMatchObject({ status: 'completed', engine: 'openai-compatible', model: 'whisper-large-v3', language: 'en-US' });
    expect(transcript.utterances.map((u: { speaker: string; start: number; text: string }) => [u.speaker, u.start, u.text])).toEqual([
      ['operator', 0.1, 'hello world'],
      ['customer', 3.1, 'hello world'],
    ]);
    expect(insights.keywords.map((k: { list: string; start: number; speaker: string }) => [k.list, k.start, k.speaker])).toEqual([
      ['greetings', 0.1, 'operator'],
      ['greetings', 3.1, 'customer'],
    ]);
    expect(metrics.talk.operator_s).toBe(7);

    const [delivery] = await eventually(async () => {
      const got = receiver.received.filter((r) => r.path === '/transcripts');
      return got.length ? got : null;
    });
    const event = new Webhook(hook.body.secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('call.analysis.completed');
    expect(event.data).toEqual({
      ...done.body,
      result: metrics,
      transcript: { status: 'completed', engine: 'openai-compatible', model: 'whisper-large-v3', language: 'en-US', speakers: ['operator', 'customer'], utterances: 2, words: 4 },
      insights: { keywords: { greetings: 2 }, script: { required: 2, found: 1, ratio: 0.5 }, pii: { redacted: false, kinds: [] } },
    });
  });

  it('a language the engine does not serve: metrics, transcript unavailable with the reason, nothing sent to the engine', async () => {
    const { key } = await h.newTenant();
    const before = engine.uploads.length;
    const submitted = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'fr-FR', operator_id: 'op_1' } });
    const done = await h.waitForCall(key, submitted.body.id);
    expect(done.body.status).toBe('completed');
    expect(done.body.result.transcript).toEqual({ status: 'unavailable', reason: 'no configured speech engine serves fr-FR (openai-compatible: en)', language: 'fr-FR' });
    expect(done.body.result.insights).toBeNull();
    expect(done.body.result.talk.operator_s).toBe(7);
    expect(engine.uploads.length).toBe(before);
  });

  it('the OpenAPI document describes the transcript in the call and the call events with their summaries', async () => {
    const served = await h.request('GET', '/v1/openapi.json');
    expect(Object.keys(served.body.webhooks)).toEqual(['call.analysis.completed', 'call.analysis.failed']);
    expect(served.body.components.schemas.Call.properties.result.oneOf[1].properties.transcript).toEqual({ $ref: '#/components/schemas/Transcript' });
    expect(served.body.components.schemas.Transcript.oneOf.map((variant: { properties: { status: { const: string } } }) => variant.properties.status.const)).toEqual(['completed', 'unavailable']);
  });

  it('per tenant: its own OpenAI-compatible endpoint, the key sealed at rest and never shown; engines only from what the deployment offers', async () => {
    const { key, tenant } = await h.newTenant();
    const initial = await h.request('GET', '/v1/speech/settings', { key });
    expect(initial.body).toEqual({ object: 'speech_settings', engines: null, openai: null, available_engines: ['openai'], updated_at: null });

    const refused = await h.request('PUT', '/v1/speech/settings', { key, body: { engines: ['pocketsphinx'], colour: 1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`)).toEqual(['colour:unknown_field']);
    const unavailable = await h.request('PUT', '/v1/speech/settings', { key, body: { engines: ['pocketsphinx'] } });
    expect([unavailable.status, unavailable.body.errors]).toEqual([400, [{ field: 'engines[0]', code: 'engine_not_available', message: 'this deployment offers openai; openai also with your own endpoint' }]]);

    const own = await startTranscriptionServer();
    try {
      const put = await h.request('PUT', '/v1/speech/settings', { key, body: { engines: ['openai'], openai: { base_url: own.baseUrl, model: 'tenant-whisper', api_key: 'sk-tenant-secret', languages: ['en'] } } });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        object: 'speech_settings',
        engines: ['openai'],
        openai: { base_url: own.baseUrl, model: 'tenant-whisper', languages: ['en'], api_key_set: true },
        available_engines: ['openai'],
        updated_at: expect.stringMatching(/^\d{4}-/),
      });
      const { rows } = await h.platform.pool.query('SELECT openai_key_sealed FROM calls_speech_settings WHERE tenant_id = $1', [tenant]);
      expect(rows[0].openai_key_sealed).not.toContain('sk-tenant-secret');

      // A change without api_key keeps the stored key.
      await h.request('PUT', '/v1/speech/settings', { key, body: { openai: { base_url: own.baseUrl, model: 'tenant-whisper-2', languages: ['en'] } } });
      const deploymentUploads = engine.uploads.length;
      const submitted = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1' } });
      const done = await h.waitForCall(key, submitted.body.id);
      expect(done.body.result.transcript).toMatchObject({ status: 'completed', engine: 'openai-compatible', model: 'tenant-whisper-2' });
      expect(own.uploads.map((u) => [u.authorization, u.fields.model![0]])).toEqual([
        ['Bearer sk-tenant-secret', 'tenant-whisper-2'],
        ['Bearer sk-tenant-secret', 'tenant-whisper-2'],
      ]);
      expect(engine.uploads.length).toBe(deploymentUploads);
    } finally {
      await own.close();
    }

    const cleared = await h.request('PUT', '/v1/speech/settings', { key, body: { engines: [] } });
    expect(cleared.body).toMatchObject({ engines: [], openai: null, available_engines: ['openai'] });
    const silent = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1' } });
    expect((await h.waitForCall(key, silent.body.id)).body.result.transcript).toEqual({ status: 'unavailable', reason: 'no speech engine is configured (CALLS_SPEECH_ENGINES, /v1/speech/settings)', language: 'en' });
  });
});

describe('per-call insight options', () => {
  /** Every chunk: "hello world my number is 2025550143", six words within the first 1.6 s. */
  const WITH_NUMBER: Answer = () => ({
    status: 200,
    body: {
      text: 'hello world my number is 2025550143',
      words: ['hello', 'world', 'my', 'number', 'is', '2025550143'].map((word, i) => ({ word, start: 0.1 + i * 0.25, end: 0.3 + i * 0.25, probability: 0.9 })),
      segments: [{ id: 0, start: 0, end: 1.6, text: 'hello world my number is 2025550143', avg_logprob: Math.log(0.9) }],
    },
  });
  const TENANT_SETTINGS = { keyword_lists: [{ name: 'greetings', phrases: ['hello'] }], script: { phrases: ['hello world'], speaker: 'operator' }, redact_pii: false };

  it('extend and replace the tenant’s settings for one call; stored with the call, shown in its resource, and a call without them gets the tenant’s', async () => {
    const { key, tenant } = await h.newTenant();
    const own = await startTranscriptionServer();
    own.answer = WITH_NUMBER;
    try {
      expect((await h.request('PUT', '/v1/speech/settings', { key, body: { engines: ['openai'], openai: { base_url: own.baseUrl, model: 'm', api_key: 'k', languages: ['en'] } } })).status).toBe(200);
      expect((await h.request('PUT', '/v1/insights/settings', { key, body: TENANT_SETTINGS })).status).toBe(200);
      const submit = (insight_options?: unknown) =>
        h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1', ...(insight_options === undefined ? {} : { insight_options }) } });

      const extended = await submit({ keyword_lists: [{ name: 'contact', phrases: ['my number'] }], script: { phrases: ['goodbye'] }, redact_pii: true });
      const extendOptions = { mode: 'extend', keyword_lists: [{ name: 'contact', phrases: ['my number'] }], script: { phrases: ['goodbye'] }, redact_pii: true };
      expect([extended.status, extended.body.insight_options]).toEqual([202, extendOptions]);
      const replaced = await submit({ mode: 'replace', keyword_lists: [{ name: 'contact', phrases: ['my number'] }] });
      const plain = await submit();
      expect(plain.body.insight_options).toBeNull();

      const e = (await h.waitForCall(key, extended.body.id)).body;
      expect(e.insight_options).toEqual(extendOptions);
      expect(e.result.insights.keywords.map((k: { list: string; text: string; speaker: string }) => [k.list, k.text, k.speaker])).toEqual([
        ['greetings', 'hello', 'operator'],
        ['contact', 'my number', 'operator'],
        ['greetings', 'hello', 'customer'],
        ['contact', 'my number', 'customer'],
      ]);
      expect(e.result.insights.script.phrases.map((p: { phrase: string; found: boolean; speaker: string | null }) => [p.phrase, p.found])).toEqual([
        ['hello world', true],
        ['goodbye', false],
      ]);
      expect([e.result.insights.script.required, e.result.insights.script.found]).toEqual([2, 1]);
      expect(e.result.insights.pii).toEqual({ redacted: true, kinds: ['phone_number'] });
      expect(e.result.transcript.utterances.map((u: { text: string }) => u.text)).toEqual(['hello world my number is [PHONE_NUMBER]', 'hello world my number is [PHONE_NUMBER]']);

      const r = (await h.waitForCall(key, replaced.body.id)).body;
      expect(r.insight_options).toEqual({ mode: 'replace', keyword_lists: [{ name: 'contact', phrases: ['my number'] }] });
      expect(r.result.insights.keywords.map((k: { list: string; speaker: string }) => [k.list, k.speaker])).toEqual([
        ['contact', 'operator'],
        ['contact', 'customer'],
      ]);
      expect([r.result.insights.script, r.result.insights.pii]).toEqual([null, { redacted: false, kinds: [] }]);
      expect(r.result.transcript.utterances[0].text).toBe('hello world my number is 2025550143');

      const p = (await h.waitForCall(key, plain.body.id)).body;
      expect(p.result.insights.keywords.map((k: { list: string }) => k.list)).toEqual(['greetings', 'greetings']);
      expect([p.result.insights.script.required, p.result.insights.script.found, p.result.insights.pii.redacted]).toEqual([1, 1, false]);

      const { rows } = await h.platform.pool.query('SELECT insight_options FROM calls WHERE tenant_id = $1 ORDER BY seq', [tenant]);
      expect(rows.map((row) => row.insight_options)).toEqual([extendOptions, { mode: 'replace', keyword_lists: [{ name: 'contact', phrases: ['my number'] }] }, null]);
      const listed = await h.request('GET', '/v1/calls?limit=3', { key });
      expect(listed.body.data.map((c: { insight_options: unknown }) => c.insight_options)).toEqual([null, r.insight_options, extendOptions]);
    } finally {
      await own.close();
    }
  });

  it('400 naming each bad option under insight_options, nothing stored; the options are part of what an Idempotency-Key is bound to', async () => {
    const { key, tenant } = await h.newTenant();
    const bad = await h.request('POST', '/v1/calls/analyze', {
      key,
      body: { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1', insight_options: { mode: 'merge', keyword_lists: [{ name: 'x' }], script: { speaker: '' }, min_score: 2, redact: true } },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(bad.body).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(bad.body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ['insight_options.redact', 'unknown_field'],
      ['insight_options.keyword_lists[0].phrases', 'required'],
      ['insight_options.script.speaker', 'invalid_speaker'],
      ['insight_options.min_score', 'invalid_min_score'],
      ['insight_options.mode', 'invalid_mode'],
    ]);
    const notObject = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1', insight_options: ['refund'] } });
    expect([notObject.status, notObject.body.errors]).toEqual([400, [{ field: 'insight_options', code: 'invalid_type', message: 'insight_options must be an object' }]]);
    expect((await h.platform.pool.query('SELECT count(*)::int AS n FROM calls WHERE tenant_id = $1', [tenant])).rows).toEqual([{ n: 0 }]);

    const body = { audio_url: `${rec.url}/ref.wav`, language: 'en', operator_id: 'op_1', insight_options: { redact_pii: true } };
    const headers = { 'Idempotency-Key': 'call-options-1' };
    const first = await h.request('POST', '/v1/calls/analyze', { key, body, headers });
    const again = await h.request('POST', '/v1/calls/analyze', { key, body, headers });
    expect([first.status, again.status, again.body.id, again.headers.get('idempotent-replayed')]).toEqual([202, 202, first.body.id, 'true']);
    const other = await h.request('POST', '/v1/calls/analyze', { key, body: { ...body, insight_options: { redact_pii: false } }, headers });
    expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('the OpenAPI document describes the options in the request and in the call', async () => {
    const served = await h.request('GET', '/v1/openapi.json');
    const { schemas } = served.body.components;
    expect(schemas.AnalyzeRequest.properties.insight_options.oneOf).toEqual([{ type: 'null' }, { $ref: '#/components/schemas/CallInsightOptions' }]);
    expect(schemas.Call.properties.insight_options.oneOf).toEqual([{ type: 'null' }, { $ref: '#/components/schemas/CallInsightOptions' }]);
    expect(schemas.Call.required).toContain('insight_options');
    expect(Object.keys(schemas.CallInsightOptions.properties)).toEqual(['mode', 'keyword_lists', 'script', 'redact_pii', 'min_score']);
    expect(schemas.CallInsightOptions.properties.mode).toEqual({ enum: ['extend', 'replace'], default: 'extend' });
    expect(schemas.CallInsightOptions.properties.redact_pii.default).toBeUndefined();
  });
});

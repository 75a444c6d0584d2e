import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTranscriptionServer, type TranscriptionServer } from '../../unit/calls/helpers/transcription-server.js';
import { callsEnv, eventually, startCallsHarness, startReceiver, type CallsHarness } from './harness.js';
import { startRecordingServer } from './recordings.js';

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

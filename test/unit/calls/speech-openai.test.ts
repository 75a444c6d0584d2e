import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import type { EngineSpec } from '../../../runtime/calls/transcript/speech-settings.js';
import { startTranscriptionServer, type TranscriptionServer } from '../../helpers/calls/transcription-server.js';
import { chunked, referenceCall, synthesize, TONE_ANALYSIS } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

let server: TranscriptionServer;
beforeAll(async () => {
  server = await startTranscriptionServer();
});
afterAll(() => server.close());

const engine = (overrides: Partial<Extract<EngineSpec, { kind: 'openai' }>> = {}): EngineSpec[] => [
  { kind: 'openai', baseUrl: server.baseUrl, model: 'whisper-large-v3', apiKey: 'sk-test-123', languages: ['en', 'pt'], timeoutMs: 10_000, policy: { allowPrivate: true }, ...overrides },
];
const referenceWav = (): Uint8Array => encodeWav(synthesize(referenceCall()), 8000, 's16');

describe('the OpenAI-compatible engine against a local server', () => {
  it('uploads each channel chunk as 16 kHz WAV with verbose_json word timestamps, and places the words in the call', async () => {
    server.uploads.length = 0;
    const result = await analyzeRecording(chunked(referenceWav()), { ...TONE_ANALYSIS, speech: { language: 'pt-BR', engines: engine() } });
    expect(server.uploads).toHaveLength(2);
    for (const upload of server.uploads) {
      expect(upload.authorization).toBe('Bearer sk-test-123');
      expect(upload.fields).toEqual({
        model: ['whisper-large-v3'],
        response_format: ['verbose_json'],
        'timestamp_granularities[]': ['word', 'segment'],
        language: ['pt'],
      });
      expect(upload.fileType).toBe('audio/wav');
      expect(upload.file.subarray(0, 4).toString()).toBe('RIFF');
      expect(upload.file.readUInt16LE(22)).toBe(1);
      expect(upload.file.readUInt32LE(24)).toBe(16000);
    }
    // Operator talks from 0 s; the customer's chunk starts where the silence before it was dropped, at 3 s.
    expect(result.transcript).toEqual({
      status: 'completed',
      engine: 'openai-compatible',
      model: 'whisper-large-v3',
      language: 'pt-BR',
      separation: { method: 'channel', confidence: 1 },
      speakers: [
        { id: 'operator', label: 'Operator', channel: 0 },
        { id: 'customer', label: 'Customer', channel: 1 },
      ],
      utterances: [
        {
          speaker: 'operator', start: 0.1, end: 0.9, confidence: 0.65, text: 'hello world',
          words: [
            { text: 'hello', start: 0.1, end: 0.4, confidence: 0.5, speaker: 'operator' },
            { text: 'world', start: 0.5, end: 0.9, confidence: 0.8, speaker: 'operator' },
          ],
        },
        {
          speaker: 'customer', start: 3.1, end: 3.9, confidence: 0.65, text: 'hello world',
          words: [
            { text: 'hello', start: 3.1, end: 3.4, confidence: 0.5, speaker: 'customer' },
            { text: 'world', start: 3.5, end: 3.9, confidence: 0.8, speaker: 'customer' },
          ],
        },
      ],
    });
  });

  it('a language outside the declared ones is never sent', async () => {
    server.uploads.length = 0;
    const result = await analyzeRecording(chunked(referenceWav()), { ...TONE_ANALYSIS, speech: { language: 'de', engines: engine() } });
    expect(server.uploads).toHaveLength(0);
    expect(result.transcript).toEqual({ status: 'unavailable', reason: 'no configured speech engine serves de (openai-compatible: en, pt)', language: 'de' });
  });

  it('an error answer makes the transcript unavailable with the status, never the key', async () => {
    server.answer = () => ({ status: 401, body: { error: { message: 'Incorrect API key provided: sk-test-123' } } });
    const result = await analyzeRecording(chunked(referenceWav()), { ...TONE_ANALYSIS, speech: { language: 'en', engines: engine() } });
    expect(result.transcript).toEqual({ status: 'unavailable', reason: 'the transcription endpoint answered 401', engine: 'openai-compatible', language: 'en' });
    expect(result.talk.operator_s).toBe(7);
  });

  it('an answer without word timestamps is refused with the reason', async () => {
    server.answer = () => ({ status: 200, body: { text: 'hello world' } });
    const result = await analyzeRecording(chunked(referenceWav()), { ...TONE_ANALYSIS, speech: { language: 'en', engines: engine() } });
    expect(result.transcript).toMatchObject({ status: 'unavailable', reason: 'the transcription endpoint answered without word timestamps (verbose_json with timestamp_granularities[]=word)' });
  });

  it('the base URL goes through the SSRF guard: loopback is refused unless the deployment allows private addresses', async () => {
    server.uploads.length = 0;
    const result = await analyzeRecording(chunked(referenceWav()), { ...TONE_ANALYSIS, speech: { language: 'en', engines: engine({ policy: { allowPrivate: false } }) } });
    expect(server.uploads).toHaveLength(0);
    expect(result.transcript).toMatchObject({ status: 'unavailable', engine: 'openai-compatible' });
    expect((result.transcript as { reason: string }).reason).toMatch(/^url_blocked: /);
  });
});

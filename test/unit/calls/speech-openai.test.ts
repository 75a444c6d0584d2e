import type { IncomingMessage, Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import type { EngineSpec } from '../../../runtime/calls/transcript/speech-settings.js';
import { closeServer, listen } from '../../integration/calls/harness.js';
import { chunked, referenceCall, synthesize } from './helpers/synth.js';
import { encodeWav } from './helpers/wav-writer.js';

interface Upload {
  readonly authorization: string | undefined;
  readonly fields: Record<string, string[]>;
  readonly file: Buffer;
  readonly fileType: string;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Splits a multipart/form-data body into its fields and its one file. */
function parseMultipart(body: Buffer, contentType: string): Omit<Upload, 'authorization'> {
  const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
  const fields: Record<string, string[]> = {};
  let file = Buffer.alloc(0);
  let fileType = '';
  let at = body.indexOf(`--${boundary}`);
  while (at >= 0) {
    const next = body.indexOf(`\r\n--${boundary}`, at + 1);
    if (next < 0) break;
    const part = body.subarray(body.indexOf('\r\n', at) + 2, next);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString();
    const content = part.subarray(split + 4);
    const name = /name="([^"]+)"/.exec(head)![1]!;
    if (/filename=/.test(head)) {
      file = Buffer.from(content);
      fileType = /Content-Type: (\S+)/i.exec(head)?.[1] ?? '';
    } else {
      (fields[name] ??= []).push(content.toString());
    }
    at = next + 2;
  }
  return { fields, file, fileType };
}

/** A local server speaking OpenAI's /v1/audio/transcriptions: two words at fixed times in every chunk. */
let server: Server;
let baseUrl: string;
const uploads: Upload[] = [];
let answer: (upload: Upload) => { status: number; body: unknown } = () => ({
  status: 200,
  body: {
    text: 'hello world',
    language: 'english',
    duration: 15,
    words: [
      { word: 'hello', start: 0.1, end: 0.4 },
      { word: ' world', start: 0.5, end: 0.9, probability: 0.8 },
    ],
    segments: [{ id: 0, start: 0, end: 1, text: 'hello world', avg_logprob: Math.log(0.5) }],
  },
});

beforeAll(async () => {
  ({ server, url: baseUrl } = await listen((req, res) => {
    void readAll(req).then((body) => {
      if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
        res.statusCode = 404;
        res.end();
        return;
      }
      const upload = { authorization: req.headers.authorization, ...parseMultipart(body, req.headers['content-type'] ?? '') };
      uploads.push(upload);
      const { status, body: json } = answer(upload);
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(json));
    });
  }));
});
afterAll(() => closeServer(server));

const engine = (overrides: Partial<Extract<EngineSpec, { kind: 'openai' }>> = {}): EngineSpec[] => [
  { kind: 'openai', baseUrl: `${baseUrl}/v1`, model: 'whisper-large-v3', apiKey: 'sk-test-123', languages: ['en', 'pt'], timeoutMs: 10_000, policy: { allowPrivate: true }, ...overrides },
];
const referenceWav = (): Uint8Array => encodeWav(synthesize(referenceCall()), 8000, 's16');

describe('the OpenAI-compatible engine against a local server', () => {
  it('uploads each channel chunk as 16 kHz WAV with verbose_json word timestamps, and places the words in the call', async () => {
    uploads.length = 0;
    const result = await analyzeRecording(chunked(referenceWav()), { speech: { language: 'pt-BR', engines: engine() } });
    expect(uploads).toHaveLength(2);
    for (const upload of uploads) {
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
    uploads.length = 0;
    const result = await analyzeRecording(chunked(referenceWav()), { speech: { language: 'de', engines: engine() } });
    expect(uploads).toHaveLength(0);
    expect(result.transcript).toEqual({ status: 'unavailable', reason: 'no configured speech engine serves de (openai-compatible: en, pt)', language: 'de' });
  });

  it('an error answer makes the transcript unavailable with the status, never the key', async () => {
    answer = () => ({ status: 401, body: { error: { message: 'Incorrect API key provided: sk-test-123' } } });
    const result = await analyzeRecording(chunked(referenceWav()), { speech: { language: 'en', engines: engine() } });
    expect(result.transcript).toEqual({ status: 'unavailable', reason: 'the transcription endpoint answered 401', engine: 'openai-compatible', language: 'en' });
    expect(result.talk.operator_s).toBe(7);
  });

  it('an answer without word timestamps is refused with the reason', async () => {
    answer = () => ({ status: 200, body: { text: 'hello world' } });
    const result = await analyzeRecording(chunked(referenceWav()), { speech: { language: 'en', engines: engine() } });
    expect(result.transcript).toMatchObject({ status: 'unavailable', reason: 'the transcription endpoint answered without word timestamps (verbose_json with timestamp_granularities[]=word)' });
  });

  it('the base URL goes through the SSRF guard: loopback is refused unless the deployment allows private addresses', async () => {
    uploads.length = 0;
    const result = await analyzeRecording(chunked(referenceWav()), { speech: { language: 'en', engines: engine({ policy: { allowPrivate: false } }) } });
    expect(uploads).toHaveLength(0);
    expect(result.transcript).toMatchObject({ status: 'unavailable', engine: 'openai-compatible' });
    expect((result.transcript as { reason: string }).reason).toMatch(/^url_blocked: /);
  });
});

import { randomBytes } from 'node:crypto';
import { guardedRequest, readBody, type GuardOptions } from '../../outbound/guarded-request.js';
import { checkOutboundUrl } from '../../outbound/outbound-url.js';
import { SpeechEngineError, type EngineWord, type SpeechChunk, type SpeechEngine } from './speech-engine.js';
import { encodePcm16Wav } from './wav-encoding.js';

/** The languages OpenAI documents for its Whisper models (ISO 639-1); an operator can narrow or widen them. */
export const WHISPER_LANGUAGES = [
  'af', 'ar', 'hy', 'az', 'be', 'bs', 'bg', 'ca', 'zh', 'hr', 'cs', 'da', 'nl', 'en', 'et', 'fi', 'fr', 'gl', 'de', 'el',
  'he', 'hi', 'hu', 'is', 'id', 'it', 'ja', 'kn', 'kk', 'ko', 'lv', 'lt', 'mk', 'ms', 'mr', 'mi', 'ne', 'no', 'fa', 'pl',
  'pt', 'ro', 'ru', 'sr', 'sk', 'sl', 'es', 'sw', 'sv', 'tl', 'ta', 'th', 'tr', 'uk', 'ur', 'vi', 'cy',
];

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface OpenAiEngineSettings {
  /** e.g. `https://api.openai.com/v1`; `/audio/transcriptions` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string;
  readonly languages: readonly string[];
  readonly timeoutMs: number;
}

interface VerboseJson {
  readonly words?: readonly { word?: unknown; start?: unknown; end?: unknown; probability?: unknown }[];
  readonly segments?: readonly { start?: unknown; end?: unknown; avg_logprob?: unknown }[];
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Words of a `verbose_json` answer with word timestamps. OpenAI gives no per-word score: a word
 * takes its `probability` where the server adds one (faster-whisper servers do), else the
 * probability of its segment (exp of `avg_logprob`), else 1.
 */
export function parseVerboseJson(body: unknown): EngineWord[] {
  const answer = body as VerboseJson;
  if (!answer || typeof answer !== 'object' || !Array.isArray(answer.words)) {
    throw new SpeechEngineError('engine_failed', 'the transcription endpoint answered without word timestamps (verbose_json with timestamp_granularities[]=word)');
  }
  const segments = (answer.segments ?? []).filter((s) => isNumber(s.start) && isNumber(s.end) && isNumber(s.avg_logprob));
  return answer.words.flatMap((word) => {
    if (typeof word.word !== 'string' || !isNumber(word.start) || !isNumber(word.end)) return [];
    const text = word.word.trim();
    if (!text) return [];
    const { start, end } = word;
    const segment = segments.find((s) => (s.start as number) <= start && start < (s.end as number));
    const confidence = isNumber(word.probability) ? word.probability : segment ? Math.exp(segment.avg_logprob as number) : 1;
    return [{ text, start, end, confidence: Math.max(0, Math.min(1, confidence)) }];
  });
}

function multipart(fields: readonly [string, string][], file: Uint8Array): { body: Uint8Array; contentType: string } {
  const boundary = `gantry-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = fields.map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="chunk.wav"\r\nContent-Type: audio/wav\r\n\r\n`));
  parts.push(Buffer.from(file.buffer, file.byteOffset, file.byteLength), Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * An OpenAI-compatible `/v1/audio/transcriptions` endpoint (OpenAI, Groq, self-hosted Whisper
 * servers). Each chunk is uploaded as a 16 kHz WAV through the SSRF guard, so a tenant's base URL
 * cannot reach private addresses the deployment does not allow.
 */
export class OpenAiEngine implements SpeechEngine {
  readonly name = 'openai-compatible';
  readonly model: string;
  readonly languages: readonly string[];
  readonly #settings: OpenAiEngineSettings;
  readonly #guard: GuardOptions;

  constructor(settings: OpenAiEngineSettings, guard: GuardOptions) {
    this.#settings = settings;
    this.#guard = { ...guard, headersTimeoutMs: settings.timeoutMs, bodyTimeoutMs: settings.timeoutMs };
    this.model = settings.model;
    this.languages = settings.languages;
  }

  async transcribe(chunk: SpeechChunk, language: string): Promise<EngineWord[]> {
    const url = checkOutboundUrl(`${this.#settings.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`, this.#guard);
    const { body, contentType } = multipart(
      [
        ['model', this.#settings.model],
        ['response_format', 'verbose_json'],
        ['timestamp_granularities[]', 'word'],
        ['timestamp_granularities[]', 'segment'],
        ['language', language.split('-')[0]!.toLowerCase()],
      ],
      encodePcm16Wav(chunk.samples, chunk.sampleRate),
    );
    let response;
    try {
      response = await guardedRequest(
        url,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${this.#settings.apiKey}`, 'content-type': contentType, 'content-length': String(body.length), 'user-agent': 'gantry-calls/1' },
          body,
          signal: AbortSignal.timeout(this.#settings.timeoutMs),
        },
        this.#guard,
      );
    } catch (error) {
      throw new SpeechEngineError('engine_failed', `the transcription endpoint could not be reached (${(error as { code?: string }).code ?? (error as Error).name})`);
    }
    const parts: Buffer[] = [];
    let size = 0;
    for await (const part of readBody(response.body, this.#guard)) {
      size += part.length;
      if (size > MAX_RESPONSE_BYTES) throw new SpeechEngineError('engine_failed', 'the transcription endpoint answered with more than 8 MiB');
      parts.push(part);
    }
    if (response.statusCode !== 200) throw new SpeechEngineError('engine_failed', `the transcription endpoint answered ${response.statusCode}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      throw new SpeechEngineError('engine_failed', 'the transcription endpoint answered with invalid JSON');
    }
    return parseVerboseJson(parsed);
  }

  async close(): Promise<void> {}
}

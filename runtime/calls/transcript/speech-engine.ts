import { CodedError } from '../../coded-error.js';

/** The rate every engine is fed: what PocketSphinx's en-us model, Whisper and most ONNX models expect. */
export const SPEECH_SAMPLE_RATE = 16_000;

/** A word as an engine heard it, times in seconds from the start of the chunk it was given. */
export interface EngineWord {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** 0..1. */
  readonly confidence: number;
}

/** One stretch of one channel, cut at a silence, resampled to SPEECH_SAMPLE_RATE. */
export interface SpeechChunk {
  readonly samples: Float32Array;
  readonly sampleRate: number;
  readonly channel: number;
  /** Where the chunk starts in the recording, in seconds. */
  readonly offset: number;
}

/**
 * A speech-to-text engine. `languages` are BCP-47 tags it serves; a tag covers its subtags (`en`
 * serves `en-US`). `transcribe` is called once per chunk, one chunk at a time.
 */
export interface SpeechEngine {
  readonly name: string;
  readonly model: string;
  readonly languages: readonly string[];
  /** What the engine's accuracy was measured to be, where we measured it. */
  readonly quality?: string;
  transcribe(chunk: SpeechChunk, language: string): Promise<EngineWord[]>;
  close(): Promise<void>;
}

export type SpeechEngineErrorCode = 'engine_unavailable' | 'engine_failed' | 'invalid_engine_config';

/** An engine that cannot run (missing tool or model) or failed on a chunk; the message is safe to show the tenant. */
export class SpeechEngineError extends CodedError {
  override readonly name = 'SpeechEngineError';
  constructor(
    readonly code: SpeechEngineErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `languages` covers the call's canonical BCP-47 `language` (case-insensitive, by whole subtags). */
export function servesLanguage(languages: readonly string[], language: string): boolean {
  const wanted = language.toLowerCase();
  return languages.some((tag) => {
    const served = tag.toLowerCase();
    return served === '*' || wanted === served || wanted.startsWith(`${served}-`);
  });
}

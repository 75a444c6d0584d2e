import type { AddressPolicy } from '../../outbound/address-policy.js';
import { WHISPER_LANGUAGES } from './openai-engine.js';
import { SpeechEngineError } from './speech-engine.js';

export const ENGINE_KINDS = ['openai', 'sherpa', 'pocketsphinx'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** One configured engine, as plain data: it crosses into the analysis worker thread. */
export type EngineSpec =
  | { readonly kind: 'openai'; readonly baseUrl: string; readonly model: string; readonly apiKey: string; readonly languages: readonly string[]; readonly timeoutMs: number; readonly policy: AddressPolicy }
  | { readonly kind: 'sherpa'; readonly modelDir: string; readonly languages: readonly string[] }
  | { readonly kind: 'pocketsphinx' };

/** The deployment's engines in order of preference: a call goes to the first that serves its language. */
export interface SpeechSettings {
  readonly engines: readonly EngineSpec[];
  /** `CALLS_SPEECH_TIMEOUT_SECONDS`, for tenants' own endpoints too. */
  readonly timeoutMs: number;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Reads `CALLS_SPEECH_ENGINES` (e.g. `openai,pocketsphinx`) and each listed engine's variables.
 * Unset: no engine, and every transcript says so. Throws `invalid_engine_config` naming the variable.
 */
export function readSpeechSettings(env: NodeJS.ProcessEnv, policy: AddressPolicy): SpeechSettings {
  const kinds = list(env.CALLS_SPEECH_ENGINES);
  const bad = kinds.find((kind) => !(ENGINE_KINDS as readonly string[]).includes(kind));
  if (bad) throw new SpeechEngineError('invalid_engine_config', `CALLS_SPEECH_ENGINES: unknown engine "${bad}" (known: ${ENGINE_KINDS.join(', ')})`);
  const timeoutSeconds = Number(env.CALLS_SPEECH_TIMEOUT_SECONDS || 120);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 1) {
    throw new SpeechEngineError('invalid_engine_config', `CALLS_SPEECH_TIMEOUT_SECONDS must be a number >= 1, got "${env.CALLS_SPEECH_TIMEOUT_SECONDS}"`);
  }
  const engines = [...new Set(kinds as EngineKind[])].map((kind): EngineSpec => {
    if (kind === 'pocketsphinx') return { kind };
    if (kind === 'sherpa') {
      const modelDir = env.CALLS_SPEECH_SHERPA_MODEL_DIR;
      const languages = list(env.CALLS_SPEECH_SHERPA_LANGUAGES);
      if (!modelDir) throw new SpeechEngineError('invalid_engine_config', 'CALLS_SPEECH_SHERPA_MODEL_DIR must name the model folder when sherpa is listed');
      if (!languages.length) throw new SpeechEngineError('invalid_engine_config', 'CALLS_SPEECH_SHERPA_LANGUAGES must list the languages the model serves (e.g. "en")');
      return { kind, modelDir, languages };
    }
    const baseUrl = env.CALLS_SPEECH_OPENAI_URL;
    if (!baseUrl) throw new SpeechEngineError('invalid_engine_config', 'CALLS_SPEECH_OPENAI_URL must be set when openai is listed (e.g. https://api.openai.com/v1)');
    const languages = list(env.CALLS_SPEECH_OPENAI_LANGUAGES);
    return {
      kind,
      baseUrl,
      model: env.CALLS_SPEECH_OPENAI_MODEL || 'whisper-1',
      apiKey: env.CALLS_SPEECH_OPENAI_KEY ?? '',
      languages: languages.length ? languages : WHISPER_LANGUAGES,
      timeoutMs: timeoutSeconds * 1000,
      policy,
    };
  });
  return { engines, timeoutMs: timeoutSeconds * 1000 };
}

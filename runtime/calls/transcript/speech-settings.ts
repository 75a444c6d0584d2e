import type { AddressPolicy } from '../../outbound/address-policy.js';
import { WHISPER_LANGUAGES } from './openai-engine.js';
import { pocketsphinxInstalled } from './pocketsphinx-engine.js';
import { SpeechEngineError } from './speech-engine.js';
import { envList, envNumber } from '../../env.js';

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
  /** Who chose them: `CALLS_SPEECH_ENGINES`, or (empty) the local engines found usable at start. */
  readonly chosenBy: 'setting' | 'installed';
  /** `CALLS_SPEECH_TIMEOUT_SECONDS`, for tenants' own endpoints too. */
  readonly timeoutMs: number;
}

/**
 * The engines that run on this machine and need nothing more: sherpa when its model folder and
 * languages are set, PocketSphinx when its command (on `env.PATH`) and English model are installed.
 * `openai` is never among them: it sends the audio elsewhere, so only the setting can choose it.
 */
function installedKinds(env: NodeJS.ProcessEnv): EngineKind[] {
  const sherpa = Boolean(env.CALLS_SPEECH_SHERPA_MODEL_DIR) && envList(env, 'CALLS_SPEECH_SHERPA_LANGUAGES').length > 0;
  return [...(sherpa ? (['sherpa'] as const) : []), ...(pocketsphinxInstalled(env.PATH) ? (['pocketsphinx'] as const) : [])];
}

/**
 * Reads `CALLS_SPEECH_ENGINES` (e.g. `openai,pocketsphinx`) and each listed engine's variables.
 * Empty: the installed local engines (installedKinds); `none`: no engine, and every transcript says
 * so. Throws `invalid_engine_config` naming the variable.
 */
export function readSpeechSettings(env: NodeJS.ProcessEnv, policy: AddressPolicy): SpeechSettings {
  const listed = envList(env, 'CALLS_SPEECH_ENGINES');
  if (listed.includes('none') && listed.length > 1) {
    throw new SpeechEngineError('invalid_engine_config', `CALLS_SPEECH_ENGINES: "none" turns transcripts off and goes alone, got "${env.CALLS_SPEECH_ENGINES}"`);
  }
  const chosenBy = listed.length === 0 ? 'installed' : 'setting';
  const kinds = listed.length === 0 ? installedKinds(env) : listed[0] === 'none' ? [] : listed;
  const bad = kinds.find((kind) => !(ENGINE_KINDS as readonly string[]).includes(kind));
  if (bad) throw new SpeechEngineError('invalid_engine_config', `CALLS_SPEECH_ENGINES: unknown engine "${bad}" (known: ${ENGINE_KINDS.join(', ')}, or none)`);
  const timeoutSeconds = envNumber(env, 'CALLS_SPEECH_TIMEOUT_SECONDS', 120, 1, (message) => new SpeechEngineError('invalid_engine_config', message), false);
  const engines = [...new Set(kinds as EngineKind[])].map((kind): EngineSpec => {
    if (kind === 'pocketsphinx') return { kind };
    if (kind === 'sherpa') {
      const modelDir = env.CALLS_SPEECH_SHERPA_MODEL_DIR;
      const languages = envList(env, 'CALLS_SPEECH_SHERPA_LANGUAGES');
      if (!modelDir) throw new SpeechEngineError('invalid_engine_config', 'CALLS_SPEECH_SHERPA_MODEL_DIR must name the model folder when sherpa is listed');
      if (!languages.length) throw new SpeechEngineError('invalid_engine_config', 'CALLS_SPEECH_SHERPA_LANGUAGES must list the languages the model serves (e.g. "en")');
      return { kind, modelDir, languages };
    }
    const baseUrl = env.CALLS_SPEECH_OPENAI_URL;
    if (!baseUrl) throw new SpeechEngineError('invalid_engine_config', 'CALLS_SPEECH_OPENAI_URL must be set when openai is listed (e.g. https://api.openai.com/v1)');
    const languages = envList(env, 'CALLS_SPEECH_OPENAI_LANGUAGES');
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
  return { engines, chosenBy, timeoutMs: timeoutSeconds * 1000 };
}

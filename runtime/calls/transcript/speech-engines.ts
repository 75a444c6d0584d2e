import { OpenAiEngine } from './openai-engine.js';
import { PocketsphinxEngine } from './pocketsphinx-engine.js';
import { SherpaEngine } from './sherpa-engine.js';
import { servesLanguage, type SpeechEngine } from './speech-engine.js';
import type { EngineSpec } from './speech-settings.js';

/** Engines live as long as their thread: a sherpa-onnx model is loaded once, not once per call. */
const engines = new Map<string, SpeechEngine>();

export function engineFor(spec: EngineSpec): SpeechEngine {
  const key = JSON.stringify(spec);
  let engine = engines.get(key);
  if (!engine) {
    engine =
      spec.kind === 'openai'
        ? new OpenAiEngine(spec, spec.policy)
        : spec.kind === 'sherpa'
          ? new SherpaEngine(spec)
          : new PocketsphinxEngine();
    engines.set(key, engine);
  }
  return engine;
}

/** The first engine serving `language`, or why there is none (the transcript's `reason`). */
export function chooseEngine(specs: readonly EngineSpec[], language: string): { engine: SpeechEngine } | { reason: string } {
  if (specs.length === 0) return { reason: 'no speech engine is configured (CALLS_SPEECH_ENGINES, /v1/speech/settings)' };
  const candidates = specs.map(engineFor);
  const engine = candidates.find((candidate) => servesLanguage(candidate.languages, language));
  if (engine) return { engine };
  const offered = candidates.map((candidate) => `${candidate.name}: ${candidate.languages.join(', ')}`).join('; ');
  return { reason: `no configured speech engine serves ${language} (${offered})` };
}

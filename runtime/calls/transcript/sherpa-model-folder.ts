import { SpeechEngineError } from './speech-engine.js';

export type SherpaModelKind = 'transducer' | 'whisper' | 'paraformer';

/** The files of an operator's model folder, mapped to sherpa-onnx's offline model config. */
export interface SherpaModel {
  readonly kind: SherpaModelKind;
  readonly tokens: string;
  readonly files: Readonly<Record<string, string>>;
}

const EXPECTED =
  'tokens.txt plus encoder*.onnx, decoder*.onnx and joiner*.onnx (transducer), *encoder*.onnx and *decoder*.onnx (Whisper) or model*.onnx (Paraformer)';

/** The file matching `pattern`, the int8 build when both are there (a quarter of the memory, as accurate on these models). */
function pick(names: readonly string[], pattern: RegExp): string | undefined {
  const matching = names.filter((name) => pattern.test(name)).sort();
  return matching.find((name) => name.includes('int8')) ?? matching[0];
}

/** Recognises the model in a folder listing (file names only); pure, so the rules are tested without a model. */
export function recogniseModelFolder(names: readonly string[], join: (name: string) => string): SherpaModel {
  const tokens = names.find((name) => name === 'tokens.txt' || /-tokens\.txt$/.test(name));
  if (!tokens) throw new SpeechEngineError('invalid_engine_config', `the sherpa-onnx model folder has no tokens.txt; expected ${EXPECTED}`);
  const encoder = pick(names, /encoder.*\.onnx$/);
  const decoder = pick(names, /decoder.*\.onnx$/);
  const joiner = pick(names, /joiner.*\.onnx$/);
  const model = pick(names, /^model.*\.onnx$/);
  if (encoder && decoder && joiner) {
    return { kind: 'transducer', tokens: join(tokens), files: { encoder: join(encoder), decoder: join(decoder), joiner: join(joiner) } };
  }
  if (encoder && decoder) return { kind: 'whisper', tokens: join(tokens), files: { encoder: join(encoder), decoder: join(decoder) } };
  if (model) return { kind: 'paraformer', tokens: join(tokens), files: { model: join(model) } };
  throw new SpeechEngineError('invalid_engine_config', `the sherpa-onnx model folder has no model files; expected ${EXPECTED}`);
}

/** sherpa-onnx-node's OfflineRecognizer config for the model, decoding `language` where the model takes one (Whisper). */
export function recognizerConfig(model: SherpaModel, language: string, sampleRate: number): Record<string, unknown> {
  // English-only Whisper builds (`tiny.en-encoder.onnx`) take no language.
  const multilingual = model.kind === 'whisper' && !/\.en[-.]/.test(model.files.encoder ?? '');
  const kindConfig = multilingual ? { ...model.files, language: language.split('-')[0]!.toLowerCase(), task: 'transcribe' } : model.files;
  return {
    featConfig: { sampleRate, featureDim: 80 },
    modelConfig: { [model.kind]: kindConfig, tokens: model.tokens, numThreads: 1, provider: 'cpu' },
    decodingMethod: 'greedy_search',
  };
}

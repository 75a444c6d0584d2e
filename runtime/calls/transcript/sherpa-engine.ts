import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { recogniseModelFolder, recognizerConfig, type SherpaModel } from './sherpa-model-folder.js';
import { wordsFromSherpa, type SherpaResult } from './sherpa-tokens.js';
import { SpeechEngineError, type EngineWord, type SpeechChunk, type SpeechEngine } from './speech-engine.js';

interface OfflineStream {
  acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void;
}
interface OfflineRecognizer {
  createStream(): OfflineStream;
  decodeAsync(stream: OfflineStream): Promise<void>;
  getResult(stream: OfflineStream): SherpaResult;
}
interface SherpaModule {
  OfflineRecognizer: new (config: Record<string, unknown>) => OfflineRecognizer;
}

export interface SherpaEngineSettings {
  readonly modelDir: string;
  readonly languages: readonly string[];
}

const require = createRequire(import.meta.url);

/**
 * onnxruntime aborts the whole process on a model file it cannot parse (an uncaught C++
 * exception), so a model is first loaded in a child process; only a model that loaded there is
 * loaded here.
 */
function probe(config: Record<string, unknown>): Promise<void> {
  const script = `const { OfflineRecognizer } = require(${JSON.stringify(require.resolve('sherpa-onnx-node'))}); new OfflineRecognizer(JSON.parse(process.argv[1]));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, JSON.stringify(config)], { timeout: 120_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const reason = /what\(\):\s*(.+)/.exec(stderr)?.[1] ?? (stderr.trim().split('\n').pop() || error.message);
      reject(new SpeechEngineError('engine_unavailable', `the sherpa-onnx model could not be loaded: ${reason.trim()}`));
    });
  });
}

/** sherpa-onnx-node running an operator-supplied offline model (Whisper, Paraformer or transducer) on the CPU. */
export class SherpaEngine implements SpeechEngine {
  readonly name = 'sherpa-onnx';
  readonly model: string;
  readonly languages: readonly string[];
  readonly #modelDir: string;
  readonly #recognizers = new Map<string, OfflineRecognizer>();
  #folder: SherpaModel | null = null;

  constructor(settings: SherpaEngineSettings) {
    this.#modelDir = settings.modelDir;
    this.model = settings.modelDir.split('/').filter(Boolean).pop() ?? settings.modelDir;
    this.languages = settings.languages;
  }

  async #recognizer(language: string, sampleRate: number): Promise<OfflineRecognizer> {
    const cached = this.#recognizers.get(language);
    if (cached) return cached;
    if (!this.#folder) {
      const names = await readdir(this.#modelDir).catch((error: NodeJS.ErrnoException) => {
        throw new SpeechEngineError('engine_unavailable', `the sherpa-onnx model folder ${this.#modelDir} cannot be read (${error.code ?? error.message})`);
      });
      this.#folder = recogniseModelFolder(names, (name) => join(this.#modelDir, name));
    }
    let sherpa: SherpaModule;
    try {
      sherpa = require('sherpa-onnx-node') as SherpaModule;
    } catch (error) {
      throw new SpeechEngineError('engine_unavailable', `sherpa-onnx-node cannot be loaded on this platform (${(error as Error).message.split('\n')[0]})`);
    }
    const config = recognizerConfig(this.#folder, language, sampleRate);
    await probe(config);
    const recognizer = new sherpa.OfflineRecognizer(config);
    this.#recognizers.set(language, recognizer);
    return recognizer;
  }

  async transcribe(chunk: SpeechChunk, language: string): Promise<EngineWord[]> {
    const recognizer = await this.#recognizer(language, chunk.sampleRate);
    const stream = recognizer.createStream();
    stream.acceptWaveform({ samples: chunk.samples, sampleRate: chunk.sampleRate });
    await recognizer.decodeAsync(stream);
    return wordsFromSherpa(recognizer.getResult(stream), chunk.samples.length / chunk.sampleRate);
  }

  async close(): Promise<void> {
    this.#recognizers.clear();
  }
}

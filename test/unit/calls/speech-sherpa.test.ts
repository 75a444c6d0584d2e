import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import { recogniseModelFolder, recognizerConfig } from '../../../runtime/calls/transcript/sherpa-model-folder.js';
import { wordsFromSherpa } from '../../../runtime/calls/transcript/sherpa-tokens.js';
import { chunked, referenceCall, synthesize } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

/**
 * No speech model ships in an npm package, so these tests cover everything up to the model: how
 * a folder is recognised, the config handed to sherpa-onnx, turning its tokens into words, and
 * that every way a model can fail to load ends in a clear `unavailable`, with the process alive.
 */
const at = (name: string): string => `/models/m/${name}`;

describe('sherpa-onnx model folders', () => {
  it('recognises transducer, Whisper and Paraformer folders, preferring int8 files', () => {
    expect(recogniseModelFolder(['tokens.txt', 'encoder-epoch-99.onnx', 'encoder-epoch-99.int8.onnx', 'decoder-epoch-99.onnx', 'joiner-epoch-99.onnx'], at)).toEqual({
      kind: 'transducer',
      tokens: at('tokens.txt'),
      files: { encoder: at('encoder-epoch-99.int8.onnx'), decoder: at('decoder-epoch-99.onnx'), joiner: at('joiner-epoch-99.onnx') },
    });
    expect(recogniseModelFolder(['tiny.en-tokens.txt', 'tiny.en-encoder.int8.onnx', 'tiny.en-decoder.int8.onnx'], at)).toEqual({
      kind: 'whisper',
      tokens: at('tiny.en-tokens.txt'),
      files: { encoder: at('tiny.en-encoder.int8.onnx'), decoder: at('tiny.en-decoder.int8.onnx') },
    });
    expect(recogniseModelFolder(['tokens.txt', 'model.int8.onnx'], at)).toEqual({ kind: 'paraformer', tokens: at('tokens.txt'), files: { model: at('model.int8.onnx') } });
  });

  it('names what is missing', () => {
    expect(() => recogniseModelFolder(['encoder.onnx'], at)).toThrow(/has no tokens\.txt; expected tokens\.txt plus/);
    expect(() => recogniseModelFolder(['tokens.txt', 'README.md'], at)).toThrow(/has no model files/);
  });

  it('gives multilingual Whisper the call language and English-only builds none', () => {
    const multi = recogniseModelFolder(['small-tokens.txt', 'small-encoder.onnx', 'small-decoder.onnx'], at);
    expect(recognizerConfig(multi, 'pt-BR', 16000)).toEqual({
      featConfig: { sampleRate: 16000, featureDim: 80 },
      modelConfig: { whisper: { encoder: at('small-encoder.onnx'), decoder: at('small-decoder.onnx'), language: 'pt', task: 'transcribe' }, tokens: at('small-tokens.txt'), numThreads: 1, provider: 'cpu' },
      decodingMethod: 'greedy_search',
    });
    const english = recogniseModelFolder(['tiny.en-tokens.txt', 'tiny.en-encoder.onnx', 'tiny.en-decoder.onnx'], at);
    expect((recognizerConfig(english, 'en', 16000).modelConfig as { whisper: Record<string, string> }).whisper).toEqual({ encoder: at('tiny.en-encoder.onnx'), decoder: at('tiny.en-decoder.onnx') });
  });

  it('joins BPE tokens into words with times and confidences', () => {
    const words = wordsFromSherpa({ tokens: ['▁HE', 'LLO', '▁WOR', 'LD'], timestamps: [0.2, 0.4, 0.8, 1.0], ys_log_probs: [Math.log(0.9), Math.log(0.9), Math.log(0.5), Math.log(0.5)] }, 2);
    expect(words.map((w) => ({ ...w, confidence: Math.round(w.confidence * 100) / 100 }))).toEqual([
      { text: 'HELLO', start: 0.2, end: 0.8, confidence: 0.9 },
      { text: 'WORLD', start: 0.8, end: 2, confidence: 0.5 },
    ]);
  });

  it('without token times (Whisper), spreads the text over the chunk by word length', () => {
    expect(wordsFromSherpa({ text: ' ab abcd ab' }, 4)).toEqual([
      { text: 'ab', start: 0, end: 1, confidence: 1 },
      { text: 'abcd', start: 1, end: 3, confidence: 1 },
      { text: 'ab', start: 3, end: 4, confidence: 1 },
    ]);
  });
});

describe('sherpa-onnx loading failures end in a clear unavailable transcript', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const folder = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'sherpa-model-'));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return dir;
  };
  const transcribe = async (modelDir: string) =>
    (await analyzeRecording(chunked(encodeWav(synthesize(referenceCall()), 8000, 's16')), { speech: { language: 'en-US', engines: [{ kind: 'sherpa', modelDir, languages: ['en'] }] } })).transcript;

  it('a folder that does not exist', async () => {
    expect(await transcribe('/nonexistent/sherpa-model')).toEqual({
      status: 'unavailable',
      reason: 'the sherpa-onnx model folder /nonexistent/sherpa-model cannot be read (ENOENT)',
      engine: 'sherpa-onnx',
      language: 'en-US',
    });
  });

  it('a folder without a model', async () => {
    expect(await transcribe(folder({ 'notes.txt': 'x' }))).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/^the sherpa-onnx model folder has no tokens\.txt/) });
  });

  it('model files onnxruntime cannot parse (it would abort the process): refused in a probe, this process goes on', async () => {
    const dir = folder({ 'tokens.txt': 'a 0\n', 'tiny-encoder.onnx': 'not a model', 'tiny-decoder.onnx': 'not a model' });
    const transcript = await transcribe(dir);
    expect(transcript).toMatchObject({ status: 'unavailable', engine: 'sherpa-onnx' });
    expect((transcript as { reason: string }).reason).toMatch(/^the sherpa-onnx model could not be loaded: Load model from .*tiny-encoder\.onnx failed/);
  }, 60_000);
});

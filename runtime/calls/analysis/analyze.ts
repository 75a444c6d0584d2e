import { decodeAudio, type DecodeOptions } from '../audio/decode.js';
import type { AudioDescription } from '../audio/pcm-block.js';
import { chooseEngine } from '../transcript/speech-engines.js';
import type { EngineSpec } from '../transcript/speech-settings.js';
import { Transcriber } from '../transcript/transcriber.js';
import type { Transcript } from '../transcript/transcript.js';
import { FrameAccumulator } from './frame-accumulator.js';
import { resolveAnalyzerOptions, type AnalyzerOptions } from './options.js';
import { buildCallAnalysis, type CallAnalysis } from './result.js';
import { SileroChannelVad } from './silero-vad.js';

/** Transcribe the call in `language` with the first of `engines` that serves it. */
export interface SpeechRequest {
  readonly language: string;
  readonly engines: readonly EngineSpec[];
}

export interface AnalyzeOptions extends DecodeOptions {
  readonly analyzer?: Partial<AnalyzerOptions>;
  /** Absent: signal metrics only, no `transcript` field. */
  readonly speech?: SpeechRequest;
}

/**
 * Decodes and analyses a recording in one streaming pass: memory is bounded by the input chunk
 * size plus a few bytes per 20 ms frame (and, with the Silero VAD, its open segment per channel),
 * and, when transcribing, one speech chunk per channel (decoding waits while the engine works on a
 * chunk). Throws `AudioError` for undecodable input.
 */
export async function analyzeRecording(source: AsyncIterable<Uint8Array>, options: AnalyzeOptions = {}): Promise<CallAnalysis> {
  const analyzer = resolveAnalyzerOptions(options.analyzer);
  const accumulator = new FrameAccumulator(analyzer.frameMs, analyzer.clipThreshold);
  const choice = options.speech ? chooseEngine(options.speech.engines, options.speech.language) : null;
  const transcriber = choice && 'engine' in choice ? new Transcriber(choice.engine, options.speech!.language) : null;
  let description: AudioDescription | null = null;
  let silero: SileroChannelVad[] | null = null;
  for await (const block of decodeAudio(source, options)) {
    description ??= block.description;
    accumulator.push(block);
    await transcriber?.push(block);
    if (analyzer.vad === 'silero') {
      silero ??= block.channelData.map(() => new SileroChannelVad(block.sampleRate));
      block.channelData.forEach((samples, c) => silero![c]!.push(samples));
    }
  }
  // decodeAudio throws rather than finishing without a block, so a description exists here.
  const analysis = buildCallAnalysis(accumulator.finish(), description!, analyzer, silero?.map((vad) => vad.finish()));
  if (!choice) return analysis;
  const transcript: Transcript =
    'engine' in choice ? await transcriber!.finish(analysis) : { status: 'unavailable', reason: choice.reason, language: options.speech!.language };
  return { ...analysis, transcript };
}

import { decodeAudio, type DecodeOptions } from '../audio/decode.js';
import type { AudioDescription } from '../audio/pcm-block.js';
import { FrameAccumulator } from './frame-accumulator.js';
import { resolveAnalyzerOptions, type AnalyzerOptions } from './options.js';
import { buildCallAnalysis, type CallAnalysis } from './result.js';

export interface AnalyzeOptions extends DecodeOptions {
  readonly analyzer?: Partial<AnalyzerOptions>;
}

/**
 * Decodes and analyses a recording in one streaming pass: memory is bounded by the input chunk
 * size plus a few bytes per 20 ms frame. Throws `AudioError` for undecodable input.
 */
export async function analyzeRecording(source: AsyncIterable<Uint8Array>, options: AnalyzeOptions = {}): Promise<CallAnalysis> {
  const analyzer = resolveAnalyzerOptions(options.analyzer);
  const accumulator = new FrameAccumulator(analyzer.frameMs, analyzer.clipThreshold);
  let description: AudioDescription | null = null;
  for await (const block of decodeAudio(source, options)) {
    description ??= block.description;
    accumulator.push(block);
  }
  // decodeAudio throws rather than finishing without a block, so a description exists here.
  return buildCallAnalysis(accumulator.finish(), description!, analyzer);
}

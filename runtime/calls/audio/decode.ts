import { CodecStreamDecoder, flacDeclaredSamples } from './codec-decoder.js';
import { AudioError } from './errors.js';
import { FlacTailCheck } from './flac-tail.js';
import { Mp3FrameWalker } from './mp3-frames.js';
import { OggPageWalker } from './ogg-pages.js';
import type { AudioDescription, PcmBlock } from './pcm-block.js';
import { SNIFF_BYTES, sniffAudio, type SniffedAudio } from './sniff.js';
import { WavStreamDecoder } from './wav-decoder.js';

export interface DecodeOptions {
  /** Stop with `audio_too_long` once this much audio has been decoded. */
  readonly maxDurationSeconds?: number;
}

/** A PCM block together with what is known about the recording it came from. */
export interface DecodedBlock extends PcmBlock {
  readonly description: AudioDescription;
}

/** The common shape of the WAV parser and the WASM codec wrappers. */
interface BlockSource {
  readonly codec: () => string | null;
  push(chunk: Uint8Array): PcmBlock | null | Promise<PcmBlock | null>;
  finish(): PcmBlock | null | Promise<PcmBlock | null>;
  close(): void;
}

async function* bytesOf(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    if (chunk.length) yield chunk;
  }
}

async function openSource(sniffed: SniffedAudio, head: Uint8Array): Promise<BlockSource> {
  if (sniffed.codec === null) {
    const wav = new WavStreamDecoder();
    return {
      codec: () => wav.format?.codec ?? null,
      push: (chunk) => wav.push(chunk),
      finish: () => {
        wav.end();
        return null;
      },
      close: () => undefined,
    };
  }
  const codec = sniffed.codec;
  const decoder = await CodecStreamDecoder.open(codec, codec === 'flac' && sniffed.container === 'ogg' ? 'ogg-flac' : codec);
  const structure = structureWalker(sniffed.container, head);
  return {
    codec: () => codec,
    push: (chunk) => {
      structure?.push(chunk);
      return decoder.push(chunk);
    },
    finish: async () => {
      const last = await decoder.flush();
      structure?.end();
      return last;
    },
    close: () => decoder.close(),
  };
}

/**
 * A cut recording fails with `corrupt_audio`; it is never analysed as far as it goes. The metrics
 * describe a whole call (silence, talk ratio, turns), and a partial file gives figures that look
 * plausible and are wrong; the usual cause (an upload or export that stopped early) is fixed by
 * sending the file again, which a failure prompts and a quietly shorter result does not. Twilio's
 * transcription API documents the same choice (error 17558 "Corrupted media", whose causes include
 * "the upload was incomplete": the transcription is marked failed). WAV (data chunk shorter than
 * declared) and FLAC (fewer samples than STREAMINFO declares) already behaved so; the WASM MP3, Ogg and FLAC decoders drop a partial last frame or page silently, so the
 * container structure is walked alongside the decoder to find the cut (for FLAC only when
 * STREAMINFO declares no sample count to compare with).
 */
function structureWalker(container: SniffedAudio['container'], head: Uint8Array): Mp3FrameWalker | OggPageWalker | FlacTailCheck | null {
  if (container === 'mp3') return new Mp3FrameWalker();
  if (container === 'ogg') return new OggPageWalker();
  return FlacTailCheck.forStream(head);
}

/** Tracks shape consistency and the duration cap across blocks. */
class BlockChecker {
  samples = 0;
  #sampleRate = 0;
  #channels = 0;
  readonly #maxSamples: (rate: number) => number;

  constructor(maxDurationSeconds: number | undefined) {
    this.#maxSamples = (rate) => (maxDurationSeconds === undefined ? Infinity : maxDurationSeconds * rate);
  }

  check(block: PcmBlock): void {
    if (!(block.sampleRate > 0)) throw new AudioError('corrupt_audio', 'decoder reported no sample rate');
    if (this.#sampleRate === 0) {
      this.#sampleRate = block.sampleRate;
      this.#channels = block.channelData.length;
    } else if (block.sampleRate !== this.#sampleRate || block.channelData.length !== this.#channels) {
      throw new AudioError('corrupt_audio', 'sample rate or channel count changes within the recording');
    }
    this.samples += block.channelData[0]!.length;
    if (this.samples > this.#maxSamples(this.#sampleRate)) {
      throw new AudioError('audio_too_long', 'the recording is longer than the allowed duration');
    }
  }
}

/**
 * Decodes a byte stream of WAV, MP3, FLAC, Ogg Vorbis or Ogg Opus into PCM blocks, one block per
 * input chunk or so. Memory stays bounded by the chunk size: nothing holds the whole recording.
 * Errors are always `AudioError` with a stable code.
 */
export async function* decodeAudio(
  source: AsyncIterable<Uint8Array>,
  options: DecodeOptions = {},
): AsyncGenerator<DecodedBlock> {
  const input = bytesOf(source)[Symbol.asyncIterator]();
  const headParts: Uint8Array[] = [];
  let headLength = 0;
  while (headLength < SNIFF_BYTES) {
    const next = await input.next();
    if (next.done) break;
    headParts.push(next.value);
    headLength += next.value.length;
  }
  const head = Buffer.concat(headParts);
  const sniffed = sniffAudio(head);
  const declaredFlacSamples = sniffed.codec === 'flac' ? flacDeclaredSamples(head, sniffed.container === 'ogg' ? 'ogg' : 'flac') : null;
  const decoder = await openSource(sniffed, head);
  const checker = new BlockChecker(options.maxDurationSeconds);
  const described = (block: PcmBlock | null): DecodedBlock | null => {
    if (!block) return null;
    checker.check(block);
    const codec = decoder.codec() ?? 'unknown';
    return { ...block, description: { container: sniffed.container, codec } };
  };
  try {
    let out = described(await decoder.push(head));
    if (out) yield out;
    for (let next = await input.next(); !next.done; next = await input.next()) {
      out = described(await decoder.push(next.value));
      if (out) yield out;
    }
    out = described(await decoder.finish());
    if (out) yield out;
  } finally {
    decoder.close();
    await input.return?.(undefined);
  }
  if (checker.samples === 0) {
    throw sniffed.container === 'wav'
      ? new AudioError('empty_audio', 'the WAV data chunk holds no samples')
      : new AudioError('corrupt_audio', `no ${sniffed.codec} audio could be decoded`);
  }
  if (declaredFlacSamples !== null && checker.samples < declaredFlacSamples) {
    throw new AudioError('corrupt_audio', `FLAC stream is truncated: ${declaredFlacSamples - checker.samples} samples missing`);
  }
}

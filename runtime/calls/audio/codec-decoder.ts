import { AudioError } from './errors.js';
import type { PcmBlock } from './pcm-block.js';

export type CompressedCodec = 'mp3' | 'flac' | 'vorbis' | 'opus';

/** The synchronous chunk API shared by the `@audio/decode-*` packages' `decoder()` instances. */
interface ChunkDecoder {
  decode(chunk: Uint8Array): PcmBlock;
  flush?(): PcmBlock;
  free(): void;
}

type DecoderFactory = () => Promise<ChunkDecoder>;

// Loaded lazily: each package compiles its own WASM module, and most calls need only one of them.
const factories: Record<CompressedCodec, () => Promise<DecoderFactory>> = {
  mp3: async () => (await import('@audio/decode-mp3')).decoder as unknown as DecoderFactory,
  flac: async () => (await import('@audio/decode-flac')).decoder as unknown as DecoderFactory,
  vorbis: async () => (await import('@audio/decode-vorbis')).decoder as unknown as DecoderFactory,
  opus: async () => (await import('@audio/decode-opus')).decoder as unknown as DecoderFactory,
};

function asCorrupt(codec: CompressedCodec, error: unknown): AudioError {
  const detail = error instanceof Error ? error.message : String(error);
  return new AudioError('corrupt_audio', `${codec} stream could not be decoded: ${detail}`);
}

/**
 * Wraps one WASM decoder instance: bytes in, PCM out, chunk by chunk. Decoder failures become
 * `corrupt_audio`. `close()` must be called (it frees WASM memory) whether or not decoding finished.
 */
export class CodecStreamDecoder {
  readonly #codec: CompressedCodec;
  readonly #decoder: ChunkDecoder;
  #closed = false;

  private constructor(codec: CompressedCodec, decoder: ChunkDecoder) {
    this.#codec = codec;
    this.#decoder = decoder;
  }

  static async open(codec: CompressedCodec): Promise<CodecStreamDecoder> {
    const factory = await factories[codec]();
    return new CodecStreamDecoder(codec, await factory());
  }

  push(chunk: Uint8Array): PcmBlock | null {
    try {
      return nonEmpty(this.#decoder.decode(chunk));
    } catch (error) {
      throw asCorrupt(this.#codec, error);
    }
  }

  flush(): PcmBlock | null {
    try {
      return this.#decoder.flush ? nonEmpty(this.#decoder.flush()) : null;
    } catch (error) {
      throw asCorrupt(this.#codec, error);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#decoder.free();
  }
}

function nonEmpty(block: PcmBlock): PcmBlock | null {
  const first = block.channelData[0];
  return first && first.length > 0 ? block : null;
}

/** Total samples per channel declared in a native FLAC STREAMINFO block; null when unknown. */
export function flacDeclaredSamples(head: Uint8Array): number | null {
  const isFlac = head.length >= 26 && head[0] === 0x66 && head[1] === 0x4c && head[2] === 0x61 && head[3] === 0x43;
  if (!isFlac || (head[4]! & 0x7f) !== 0) return null;
  const total = (head[21]! & 0x0f) * 2 ** 32 + ((head[22]! << 24) >>> 0) + (head[23]! << 16) + (head[24]! << 8) + head[25]!;
  return total > 0 ? total : null;
}

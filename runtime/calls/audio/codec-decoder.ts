import { AudioError } from './errors.js';
import type { PcmBlock } from './pcm-block.js';

export type CompressedCodec = 'mp3' | 'flac' | 'vorbis' | 'opus';

/** What the decoders hand back per chunk; the native FLAC decoder also reports per-frame errors. */
interface DecodedChunk extends PcmBlock {
  readonly errors?: readonly { readonly message: string }[];
}

/** The chunk API shared by the `@audio/decode-*` decoders (synchronous) and `FLACDecoder` (async). */
interface ChunkDecoder {
  decode(chunk: Uint8Array): DecodedChunk | Promise<DecodedChunk>;
  flush?(): DecodedChunk | Promise<DecodedChunk>;
  free(): void;
}

/** Which decoder a stream needs: native FLAC and FLAC-in-Ogg go through different packages. */
export type DecoderKind = CompressedCodec | 'ogg-flac';

// Loaded lazily: each package compiles its own WASM module, and most calls need only one of them.
const factories: Record<DecoderKind, () => Promise<ChunkDecoder>> = {
  mp3: async () => ((await import('@audio/decode-mp3')).decoder as unknown as () => Promise<ChunkDecoder>)(),
  // @audio/decode-flac's own raw-FLAC splitter drops frames when a frame header straddles two input
  // chunks (seen with 100-4096 byte reads), so native FLAC uses the upstream decoder directly.
  flac: async () => {
    const { FLACDecoder } = await import('@wasm-audio-decoders/flac');
    const decoder = new FLACDecoder();
    await decoder.ready;
    return decoder;
  },
  'ogg-flac': async () => ((await import('@audio/decode-flac')).decoder as unknown as () => Promise<ChunkDecoder>)(),
  vorbis: async () => ((await import('@audio/decode-vorbis')).decoder as unknown as () => Promise<ChunkDecoder>)(),
  opus: async () => ((await import('@audio/decode-opus')).decoder as unknown as () => Promise<ChunkDecoder>)(),
};

function asCorrupt(codec: CompressedCodec, error: unknown): AudioError {
  if (error instanceof AudioError) return error;
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

  static async open(codec: CompressedCodec, kind: DecoderKind = codec): Promise<CodecStreamDecoder> {
    return new CodecStreamDecoder(codec, await factories[kind]());
  }

  async push(chunk: Uint8Array): Promise<PcmBlock | null> {
    try {
      return this.#checked(await this.#decoder.decode(chunk));
    } catch (error) {
      throw asCorrupt(this.#codec, error);
    }
  }

  async flush(): Promise<PcmBlock | null> {
    try {
      return this.#decoder.flush ? this.#checked(await this.#decoder.flush()) : null;
    } catch (error) {
      throw asCorrupt(this.#codec, error);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#decoder.free();
  }

  #checked(decoded: DecodedChunk): PcmBlock | null {
    const firstError = decoded.errors?.[0];
    if (firstError) throw new AudioError('corrupt_audio', `${this.#codec} stream has a damaged frame: ${firstError.message}`);
    return nonEmpty(decoded);
  }
}

function nonEmpty(block: PcmBlock): PcmBlock | null {
  const first = block.channelData[0];
  return first && first.length > 0 ? { sampleRate: block.sampleRate, channelData: block.channelData } : null;
}

/**
 * Total samples per channel declared in the FLAC STREAMINFO block at the start of `head` (native
 * FLAC), or inside the first Ogg page (`OggS` + 27-byte page header + 1 lacing byte, then
 * `\x7fFLAC`, version, header count, and the native stream). Null when unknown.
 */
export function flacDeclaredSamples(head: Uint8Array, container: 'flac' | 'ogg'): number | null {
  const oggMapping = container === 'ogg' && head[28] === 0x7f && head[29] === 0x46 && head[30] === 0x4c && head[31] === 0x41 && head[32] === 0x43;
  if (container === 'ogg' && !oggMapping) return null;
  const stream = container === 'ogg' ? head.subarray(37) : head;
  const isFlac = stream.length >= 26 && stream[0] === 0x66 && stream[1] === 0x4c && stream[2] === 0x61 && stream[3] === 0x43;
  if (!isFlac || (stream[4]! & 0x7f) !== 0) return null;
  const total = (stream[21]! & 0x0f) * 2 ** 32 + ((stream[22]! << 24) >>> 0) + (stream[23]! << 16) + (stream[24]! << 8) + stream[25]!;
  return total > 0 ? total : null;
}

import { AudioError } from './errors.js';

function crcTable(poly: number, width: 8 | 16): Uint16Array {
  const top = 1 << (width - 1);
  const mask = (1 << width) - 1;
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << (width - 8);
    for (let bit = 0; bit < 8; bit++) crc = crc & top ? ((crc << 1) ^ poly) & mask : (crc << 1) & mask;
    table[i] = crc;
  }
  return table;
}

// The two checksums of a FLAC frame: CRC-8 (x^8+x^2+x+1) over the header, CRC-16 (x^16+x^15+x^2+1) over the frame.
const CRC8 = crcTable(0x07, 8);
const CRC16 = crcTable(0x8005, 16);

function crc8(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = CRC8[crc ^ byte]!;
  return crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16[(crc >> 8) ^ byte]!;
  return crc;
}

/** Length of a FLAC frame header starting at `at` whose fields and CRC-8 check out, or 0. */
function frameHeaderLength(bytes: Uint8Array, at: number): number {
  if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xfe) !== 0xf8 || at + 5 > bytes.length) return 0;
  const blockCode = bytes[at + 2]! >> 4;
  const rateCode = bytes[at + 2]! & 0x0f;
  const channelCode = bytes[at + 3]! >> 4;
  if (blockCode === 0 || rateCode === 15 || channelCode > 10 || (bytes[at + 3]! & 1) !== 0) return 0;
  const lead = bytes[at + 4]!;
  // The frame or sample number, UTF-8 style: the leading ones of its first byte give its length.
  const numberBytes = lead < 0x80 ? 1 : lead >= 0xc0 && lead < 0xfe ? Math.clz32(~(lead << 24)) : 0;
  if (numberBytes === 0) return 0;
  const length = 4 + numberBytes + (blockCode === 6 ? 1 : blockCode === 7 ? 2 : 0) + (rateCode === 12 ? 1 : rateCode === 13 || rateCode === 14 ? 2 : 0);
  if (at + length + 1 > bytes.length) return 0;
  return crc8(bytes.subarray(at, at + length)) === bytes[at + length] ? length + 1 : 0;
}

/**
 * The cut check for native FLAC whose STREAMINFO does not declare its sample count (encoders
 * writing to a pipe leave it 0); with a count, `decodeAudio` compares samples instead. The decoder
 * drops a partial last frame silently, so this keeps the last bytes of the stream (at most one
 * frame, bounded by STREAMINFO's maximum frame size) and, at the end, requires them to finish with
 * a whole frame: a valid frame header whose CRC-16 covers everything up to the end. A cut exactly
 * between two frames leaves nothing to notice and passes.
 */
export class FlacTailCheck {
  readonly #window: number;
  readonly #chunks: Uint8Array[] = [];
  #held = 0;

  private constructor(window: number) {
    this.#window = window;
  }

  /** For a native FLAC stream whose STREAMINFO (in `head`) declares no sample count; null otherwise. */
  static forStream(head: Uint8Array): FlacTailCheck | null {
    const isFlac = head.length >= 26 && head[0] === 0x66 && head[1] === 0x4c && head[2] === 0x61 && head[3] === 0x43 && (head[4]! & 0x7f) === 0;
    if (!isFlac) return null;
    const declaredSamples = (head[21]! & 0x0f) + head[22]! + head[23]! + head[24]! + head[25]!;
    if (declaredSamples !== 0) return null;
    const maxBlock = (head[10]! << 8) | head[11]!;
    const maxFrame = (head[15]! << 16) | (head[16]! << 8) | head[17]!;
    const channels = ((head[20]! >> 1) & 7) + 1;
    const bitsPerSample = (((head[20]! & 1) << 4) | (head[21]! >> 4)) + 1;
    // Without a declared maximum frame size, a verbatim (uncompressed) frame is the largest possible.
    const frameBound = maxFrame > 0 ? maxFrame : maxBlock * channels * Math.ceil(bitsPerSample / 8) + 64;
    return new FlacTailCheck(frameBound);
  }

  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#held += chunk.length;
    while (this.#chunks.length > 1 && this.#held - this.#chunks[0]!.length >= this.#window) this.#held -= this.#chunks.shift()!.length;
  }

  /** Call once the input is exhausted: throws `corrupt_audio` when the last frame is incomplete. */
  end(): void {
    const frames = Buffer.concat(this.#chunks);
    for (let at = frames.length - 2; at >= 0; at--) {
      if (frameHeaderLength(frames, at) > 0 && crc16(frames.subarray(at)) === 0) return;
    }
    throw new AudioError('corrupt_audio', 'FLAC stream is truncated: it does not end with a whole frame');
  }
}

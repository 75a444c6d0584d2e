import { AudioError } from './errors.js';

/** The fields of a 4-byte MPEG audio frame header that locate the next frame. */
export interface Mp3FrameHeader {
  readonly version: 'mpeg1' | 'mpeg2' | 'mpeg25';
  readonly layer: 1 | 2 | 3;
  readonly sampleRate: number;
  readonly mono: boolean;
  /** A 16-bit CRC follows the header. */
  readonly crc: boolean;
  /** Bytes of the whole frame, header included. */
  readonly length: number;
}

// kbit/s by bitrate index 1..14 (0 = free format and 15 = invalid are not listed).
const MPEG1_KBPS: Record<1 | 2 | 3, readonly number[]> = {
  1: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  2: [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  3: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
};
const MPEG2_KBPS: Record<1 | 2 | 3, readonly number[]> = {
  1: [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  2: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  3: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG1_RATES = [44100, 48000, 32000];

/**
 * Parses the frame header at `at`, or null when the bytes are not one. Free-format frames
 * (bitrate index 0) have no computable length and are reported as null too.
 */
export function parseMp3FrameHeader(bytes: Uint8Array, at: number): Mp3FrameHeader | null {
  if (at + 4 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0) return null;
  const b1 = bytes[at + 1]!;
  const b2 = bytes[at + 2]!;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const version = versionBits === 3 ? 'mpeg1' : versionBits === 2 ? 'mpeg2' : 'mpeg25';
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const sampleRate = MPEG1_RATES[rateIndex]! / (version === 'mpeg1' ? 1 : version === 'mpeg2' ? 2 : 4);
  const bitrate = (version === 'mpeg1' ? MPEG1_KBPS : MPEG2_KBPS)[layer][bitrateIndex - 1]! * 1000;
  const padding = (b2 >> 1) & 1;
  const length =
    layer === 1
      ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
      : Math.floor(((layer === 3 && version !== 'mpeg1' ? 72 : 144) * bitrate) / sampleRate) + padding;
  return { version, layer, sampleRate, mono: bytes[at + 3]! >> 6 === 3, crc: (b1 & 1) === 0, length };
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

function uint32be(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}

/**
 * The frame count a Xing/Info (LAME, ffmpeg) or VBRI (Fraunhofer) tag in the first frame declares,
 * or null when the frame is ordinary audio. `frame` holds the whole first frame.
 */
export function mp3DeclaredFrames(frame: Uint8Array, header: Mp3FrameHeader): number | null {
  if (header.layer !== 3) return null;
  const sideInfo = header.version === 'mpeg1' ? (header.mono ? 17 : 32) : header.mono ? 9 : 17;
  const xing = 4 + (header.crc ? 2 : 0) + sideInfo;
  if (ascii(frame, xing, 'Xing') || ascii(frame, xing, 'Info')) {
    return frame.length >= xing + 12 && frame[xing + 7]! & 1 ? uint32be(frame, xing + 8) : -1;
  }
  if (ascii(frame, 36, 'VBRI') && frame.length >= 36 + 18) return uint32be(frame, 36 + 14);
  return null;
}

function corrupt(message: string): AudioError {
  return new AudioError('corrupt_audio', message);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Bytes needed before deciding what starts at a position (an ID3v2 header is the longest common case). */
const PROBE_BYTES = 10;
const APE_FOOTER_BYTES = 32;
const ID3V1_BYTES = 128;

/**
 * Walks an MP3 byte stream frame by frame alongside the decoder, to tell a complete stream from a
 * cut one: mpg123 drops a partial last frame without a word, so a cut file would otherwise
 * "decode" to a shorter recording. A stream is truncated when its last frame is cut short, or when
 * it holds fewer frames than the Xing/Info/VBRI tag of its first frame declares (LAME and ffmpeg
 * write one; that catches a cut on a frame boundary). ID3v2, ID3v1 and APE tags are stepped over;
 * junk between frames is skipped the way decoders resync, and a cut is only reported for a frame
 * that directly followed the previous one, so a false sync inside junk cannot fail a good file.
 * Holds at most the first frame (a few KiB) between pushes.
 */
export class Mp3FrameWalker {
  #pending: Uint8Array = new Uint8Array(0);
  #skip = 0;
  /** The frame being skipped, while its body is still arriving; null while skipping a tag. */
  #cutCandidate: { readonly length: number; readonly aligned: boolean } | null = null;
  /** The next byte is where the previous frame or tag ended (or the stream's start). */
  #aligned = true;
  #reference: Mp3FrameHeader | null = null;
  #audioFrames = 0;
  #declaredFrames: number | null = null;

  push(chunk: Uint8Array): void {
    const buf = this.#pending.length ? concat(this.#pending, chunk) : chunk;
    let off = 0;
    while (off < buf.length) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, buf.length - off);
        off += n;
        this.#skip -= n;
        if (this.#skip === 0) this.#cutCandidate = null;
        continue;
      }
      const step = this.#step(buf, off);
      if (step === null) break;
      off += step;
    }
    this.#pending = off < buf.length ? buf.slice(off) : new Uint8Array(0);
  }

  /** Call once the input is exhausted: throws `corrupt_audio` when the stream was cut. */
  end(): void {
    const cut = this.#cutCandidate;
    if (cut?.aligned) throw corrupt(`MP3 stream is truncated: its last frame has ${cut.length - this.#skip} of ${cut.length} bytes`);
    const header = this.#skip === 0 && this.#aligned && this.#pending.length > 0 ? parseMp3FrameHeader(this.#pending, 0) : null;
    if (header && this.#consistent(header)) {
      throw corrupt(`MP3 stream is truncated: its last frame has ${this.#pending.length} of ${header.length} bytes`);
    }
    if (this.#declaredFrames !== null && this.#declaredFrames > 0 && this.#audioFrames < this.#declaredFrames) {
      throw corrupt(`MP3 stream is truncated: ${this.#audioFrames} of the ${this.#declaredFrames} frames its header declares`);
    }
  }

  /** Consumes what starts at `off`: returns the bytes consumed (a skip may follow), or null to wait for more input. */
  #step(buf: Uint8Array, off: number): number | null {
    const avail = buf.length - off;
    if (avail < PROBE_BYTES) return null;
    if (ascii(buf, off, 'ID3')) {
      const size = ((buf[off + 6]! & 0x7f) << 21) | ((buf[off + 7]! & 0x7f) << 14) | ((buf[off + 8]! & 0x7f) << 7) | (buf[off + 9]! & 0x7f);
      return this.#skipTag(10 + size + (buf[off + 5]! & 0x10 ? 10 : 0));
    }
    if (ascii(buf, off, 'TAG')) return this.#skipTag(ID3V1_BYTES);
    if (ascii(buf, off, 'APETAGEX')) {
      if (avail < APE_FOOTER_BYTES) return null;
      const view = new DataView(buf.buffer, buf.byteOffset + off, APE_FOOTER_BYTES);
      const isHeader = (view.getUint32(20, true) & (1 << 29)) !== 0;
      return this.#skipTag(APE_FOOTER_BYTES + (isHeader ? view.getUint32(12, true) : 0));
    }
    const header = parseMp3FrameHeader(buf, off);
    if (!header || !this.#consistent(header)) {
      this.#aligned = false;
      return 1;
    }
    if (this.#reference === null) {
      if (avail < header.length) return null;
      this.#reference = header;
      this.#declaredFrames = mp3DeclaredFrames(buf.subarray(off, off + header.length), header);
      if (this.#declaredFrames === null) this.#audioFrames++;
      this.#aligned = true;
      return header.length;
    }
    this.#audioFrames++;
    this.#cutCandidate = { length: header.length, aligned: this.#aligned };
    this.#aligned = true;
    this.#skip = header.length;
    return 0;
  }

  #skipTag(bytes: number): number {
    this.#aligned = true;
    this.#cutCandidate = null;
    this.#skip = bytes;
    return 0;
  }

  #consistent(header: Mp3FrameHeader): boolean {
    const ref = this.#reference;
    return ref === null || (ref.version === header.version && ref.layer === header.layer && ref.sampleRate === header.sampleRate);
  }
}

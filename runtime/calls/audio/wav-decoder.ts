import { AudioError } from './errors.js';
import type { PcmBlock } from './pcm-block.js';
import { parseWavFormat, type WavFormat } from './wav-format.js';
import { deinterleaveWav } from './wav-samples.js';

type State = 'riff' | 'chunk-header' | 'fmt' | 'skip' | 'data' | 'done';

const MAX_FMT_BYTES = 4096;
/** A data size some streaming writers use when the length was unknown at write time. */
const UNKNOWN_SIZE = 0xffffffff;

function fourCC(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Incremental RIFF/WAVE reader: bytes in, PCM blocks out. It holds at most one partial sample
 * frame (or a partial chunk header) between pushes, so memory does not grow with the file.
 * Chunks other than `fmt ` and `data` are skipped without buffering.
 */
export class WavStreamDecoder {
  #state: State = 'riff';
  #pending: Uint8Array = new Uint8Array(0);
  #format: WavFormat | null = null;
  #chunkRemaining = 0;
  #fmtPad = 0;
  #dataRemaining = 0;

  get format(): WavFormat | null {
    return this.#format;
  }

  push(chunk: Uint8Array): PcmBlock | null {
    const buf = this.#pending.length ? concat(this.#pending, chunk) : chunk;
    let off = 0;
    let block: PcmBlock | null = null;
    loop: for (;;) {
      const avail = buf.length - off;
      switch (this.#state) {
        case 'riff': {
          if (avail < 12) break loop;
          // RIFX (big-endian) and RF64 never get here: the sniffer does not take them for WAV.
          if (fourCC(buf, off) !== 'RIFF' || fourCC(buf, off + 8) !== 'WAVE') throw new AudioError('corrupt_audio', 'not a RIFF/WAVE file');
          off += 12;
          this.#state = 'chunk-header';
          break;
        }
        case 'chunk-header': {
          if (avail < 8) break loop;
          const id = fourCC(buf, off);
          const size = new DataView(buf.buffer, buf.byteOffset + off + 4, 4).getUint32(0, true);
          off += 8;
          if (id === 'fmt ') {
            if (size > MAX_FMT_BYTES) throw new AudioError('corrupt_audio', `WAV fmt chunk of ${size} bytes`);
            this.#chunkRemaining = size;
            this.#fmtPad = size & 1;
            this.#state = 'fmt';
          } else if (id === 'data') {
            if (!this.#format) throw new AudioError('corrupt_audio', 'WAV data chunk before its fmt chunk');
            this.#dataRemaining = size === UNKNOWN_SIZE ? Infinity : size;
            this.#state = 'data';
          } else {
            this.#chunkRemaining = size + (size & 1);
            this.#state = 'skip';
          }
          break;
        }
        case 'fmt': {
          if (avail < this.#chunkRemaining) break loop;
          this.#format = parseWavFormat(buf.subarray(off, off + this.#chunkRemaining));
          off += this.#chunkRemaining;
          this.#chunkRemaining = this.#fmtPad;
          this.#state = 'skip';
          break;
        }
        case 'skip': {
          const n = Math.min(avail, this.#chunkRemaining);
          off += n;
          this.#chunkRemaining -= n;
          if (this.#chunkRemaining > 0) break loop;
          this.#state = 'chunk-header';
          break;
        }
        case 'data': {
          const format = this.#format!;
          const usable = Math.min(avail, this.#dataRemaining);
          const frames = Math.floor(usable / format.blockAlign);
          const bytes = frames * format.blockAlign;
          if (frames > 0) {
            block = {
              sampleRate: format.sampleRate,
              channelData: deinterleaveWav(format, buf.subarray(off, off + bytes), frames),
            };
          }
          off += bytes;
          this.#dataRemaining -= bytes;
          if (this.#dataRemaining === 0) this.#state = 'done';
          break loop;
        }
        case 'done':
          off = buf.length;
          break loop;
      }
    }
    this.#pending = off < buf.length ? buf.slice(off) : new Uint8Array(0);
    return block;
  }

  /** Call once the input is exhausted: throws when the file stopped early. */
  end(): void {
    if (this.#state === 'done') return;
    if (this.#state !== 'data') throw new AudioError('corrupt_audio', 'WAV ends before its data chunk');
    if (this.#dataRemaining !== Infinity) {
      const missing = this.#dataRemaining - this.#pending.length;
      throw new AudioError('corrupt_audio', `WAV data chunk is truncated: ${missing} bytes missing`);
    }
    if (this.#pending.length) throw new AudioError('corrupt_audio', 'WAV data ends inside a sample frame');
  }
}

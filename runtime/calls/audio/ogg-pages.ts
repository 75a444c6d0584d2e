import { AudioError } from './errors.js';

const HEADER_BYTES = 27;
const BOS = 0x02;
const EOS = 0x04;

function corrupt(message: string): AudioError {
  return new AudioError('corrupt_audio', message);
}

/**
 * Walks the page structure of an Ogg stream (RFC 3533) alongside the decoder, to tell a complete
 * stream from a cut one: the codec libraries silently drop a partial last page and stop at the
 * last whole one, so a cut file would otherwise "decode" to a shorter recording. Every logical
 * stream that began (BOS) must reach its end-of-stream page (EOS), and the input must not stop
 * inside a page. Holds at most one page header (282 bytes); page bodies are skipped by count.
 */
export class OggPageWalker {
  readonly #header = new Uint8Array(HEADER_BYTES + 255);
  #headerFill = 0;
  /** Body bytes of the current page not yet seen. */
  #bodyRemaining = 0;
  /** Logical streams (by serial number) that began and have not reached their EOS page. */
  readonly #open = new Set<number>();
  #pages = 0;
  #offset = 0;
  /** Set once every stream has ended and non-page bytes follow: those are ignored. */
  #trailing = false;

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length && !this.#trailing) {
      if (this.#bodyRemaining > 0) {
        const n = Math.min(this.#bodyRemaining, chunk.length - at);
        at += n;
        this.#bodyRemaining -= n;
        this.#offset += n;
        continue;
      }
      const want = this.#headerFill < HEADER_BYTES ? HEADER_BYTES : HEADER_BYTES + this.#header[26]!;
      const n = Math.min(want - this.#headerFill, chunk.length - at);
      this.#header.set(chunk.subarray(at, at + n), this.#headerFill);
      this.#headerFill += n;
      at += n;
      if (this.#headerFill >= 4 && this.#headerFill - n < 4 && !this.#atCapturePattern()) {
        if (this.#pages > 0 && this.#open.size === 0) {
          this.#trailing = true;
          break;
        }
        throw corrupt(`Ogg stream is damaged: no page starts at byte ${this.#offset}`);
      }
      if (this.#headerFill >= HEADER_BYTES && this.#headerFill === HEADER_BYTES + this.#header[26]!) this.#pageHeaderDone();
    }
  }

  /** Call once the input is exhausted: throws `corrupt_audio` when the stream was cut. */
  end(): void {
    if (this.#trailing) return;
    if (this.#bodyRemaining > 0 || (this.#headerFill > 0 && this.#open.size > 0)) {
      throw corrupt(`Ogg stream is truncated: it ends inside a page, at byte ${this.#offset + this.#headerFill}`);
    }
    if (this.#open.size > 0) throw corrupt(`Ogg stream is truncated: it ends after ${this.#pages} pages without its end-of-stream page`);
  }

  #atCapturePattern(): boolean {
    const h = this.#header;
    return h[0] === 0x4f && h[1] === 0x67 && h[2] === 0x67 && h[3] === 0x53;
  }

  #pageHeaderDone(): void {
    const h = this.#header;
    if (h[4] !== 0) throw corrupt(`Ogg page at byte ${this.#offset} has unknown version ${h[4]}`);
    const type = h[5]!;
    const serial = new DataView(h.buffer, h.byteOffset + 14, 4).getUint32(0, true);
    if (type & BOS) this.#open.add(serial);
    else if (!this.#open.has(serial)) throw corrupt(`Ogg page at byte ${this.#offset} belongs to a stream that never began or already ended`);
    if (type & EOS) this.#open.delete(serial);
    let body = 0;
    for (let i = 0; i < h[26]!; i++) body += h[HEADER_BYTES + i]!;
    this.#offset += this.#headerFill;
    this.#headerFill = 0;
    this.#bodyRemaining = body;
    this.#pages++;
  }
}

import wavefile from 'wavefile';

const { WaveFile } = wavefile;

/** WAV encodings the tests write; wavefile does the sample conversion so the decoder is checked against an independent implementation. */
export type WavEncoding = 'u8' | 's16' | 's24' | 's32' | 'f32' | 'f64' | 'mulaw' | 'alaw';

const clamp = (x: number): number => Math.max(-1, Math.min(1, x));

function toInts(channel: Float32Array, bits: number): Int32Array {
  const scale = 2 ** (bits - 1);
  return Int32Array.from(channel, (x) => Math.max(-scale, Math.min(scale - 1, Math.round(clamp(x) * scale))));
}

export function encodeWav(channels: readonly Float32Array[], sampleRate: number, encoding: WavEncoding): Uint8Array {
  const wav = new WaveFile();
  switch (encoding) {
    case 'u8':
      wav.fromScratch(channels.length, sampleRate, '8', channels.map((c) => Uint8Array.from(c, (x) => Math.max(0, Math.min(255, Math.round(clamp(x) * 128 + 128))))));
      break;
    case 's16':
    case 's24':
    case 's32': {
      const bits = Number(encoding.slice(1));
      wav.fromScratch(channels.length, sampleRate, String(bits), channels.map((c) => toInts(c, bits)));
      break;
    }
    case 'f32':
    case 'f64':
      wav.fromScratch(channels.length, sampleRate, encoding === 'f32' ? '32f' : '64', channels.map((c) => Float64Array.from(c)));
      break;
    case 'mulaw':
    case 'alaw':
      wav.fromScratch(channels.length, sampleRate, '16', channels.map((c) => toInts(c, 16)));
      if (encoding === 'mulaw') wav.toMuLaw();
      else wav.toALaw();
      break;
  }
  return wav.toBuffer();
}

/** Locates the fmt and data chunks of a WAV written by wavefile. */
function canonicalParts(wav: Uint8Array): { fmt: DataView; data: Uint8Array } {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  let fmt: DataView | null = null;
  for (let at = 12; at + 8 <= wav.length; ) {
    const id = String.fromCharCode(...wav.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ') fmt = new DataView(wav.buffer, wav.byteOffset + at + 8, 16);
    if (id === 'data' && fmt) return { fmt, data: wav.subarray(at + 8, at + 8 + size) };
    at += 8 + size + (size & 1);
  }
  throw new Error('no fmt/data chunk');
}

function riff(chunks: readonly { id: string; body: Uint8Array }[]): Uint8Array {
  const size = 4 + chunks.reduce((sum, c) => sum + 8 + c.body.length + (c.body.length & 1), 0);
  const out = Buffer.alloc(8 + size);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(size, 4);
  out.write('WAVE', 8, 'latin1');
  let at = 12;
  for (const chunk of chunks) {
    out.write(chunk.id, at, 'latin1');
    out.writeUInt32LE(chunk.body.length, at + 4);
    out.set(chunk.body, at + 8);
    at += 8 + chunk.body.length + (chunk.body.length & 1);
  }
  return out;
}

/** Re-wraps a wavefile output as WAVE_FORMAT_EXTENSIBLE, with a LIST chunk (odd length, padded) before `data`. */
export function asExtensible(wav: Uint8Array): Uint8Array {
  const { fmt, data } = canonicalParts(wav);
  const body = Buffer.alloc(40);
  body.writeUInt16LE(0xfffe, 0);
  for (let i = 2; i < 16; i++) body[i] = fmt.getUint8(i);
  body.writeUInt16LE(22, 16);
  body.writeUInt16LE(fmt.getUint16(14, true), 18);
  body.writeUInt32LE(fmt.getUint16(2, true) === 2 ? 0x3 : 0x4, 20);
  // KSDATAFORMAT_SUBTYPE_*: the format tag, then the fixed GUID tail 00000000-0010-8000-00aa00389b71.
  body.writeUInt16LE(fmt.getUint16(0, true), 24);
  Buffer.from('000000001000800000aa00389b71', 'hex').copy(body, 26);
  return riff([
    { id: 'fmt ', body },
    { id: 'LIST', body: Buffer.from('INFOISFT\x05\x00\x00\x00test\x00', 'latin1') },
    { id: 'data', body: data },
  ]);
}

/** A WAV whose header declares `format tag` (e.g. 0x0002 ADPCM) over the given data. */
export function withFormatTag(wav: Uint8Array, tag: number): Uint8Array {
  const out = Buffer.from(wav);
  out.writeUInt16LE(tag, 20);
  return out;
}

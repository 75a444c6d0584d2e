import { A_LAW_TABLE, MU_LAW_TABLE } from './g711.js';
import type { WavFormat } from './wav-format.js';

/** Turns `frames` whole sample frames of interleaved WAV data into one Float32Array per channel. */
export function deinterleaveWav(format: WavFormat, bytes: Uint8Array, frames: number): Float32Array[] {
  const { channels, bytesPerSample, blockAlign } = format;
  const out: Float32Array[] = [];
  for (let c = 0; c < channels; c++) out.push(new Float32Array(frames));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = sampleReader(format, view, bytes);
  for (let c = 0; c < channels; c++) {
    const channel = out[c]!;
    let pos = c * bytesPerSample;
    for (let i = 0; i < frames; i++, pos += blockAlign) channel[i] = read(pos);
  }
  return out;
}

function sampleReader(format: WavFormat, view: DataView, bytes: Uint8Array): (pos: number) => number {
  switch (format.codec) {
    case 'pcm_u8':
      return (pos) => (bytes[pos]! - 128) / 128;
    case 'pcm_s16le':
      return (pos) => view.getInt16(pos, true) / 32768;
    case 'pcm_s24le':
      return (pos) => ((bytes[pos]! | (bytes[pos + 1]! << 8) | (bytes[pos + 2]! << 16)) << 8 >> 8) / 8388608;
    case 'pcm_s32le':
      return (pos) => view.getInt32(pos, true) / 2147483648;
    case 'pcm_f32le':
      return (pos) => view.getFloat32(pos, true);
    case 'pcm_f64le':
      return (pos) => view.getFloat64(pos, true);
    case 'pcm_mulaw':
      return (pos) => MU_LAW_TABLE[bytes[pos]!]!;
    case 'pcm_alaw':
      return (pos) => A_LAW_TABLE[bytes[pos]!]!;
    default:
      throw new Error(`no sample reader for ${format.codec}`);
  }
}

import { AudioError } from './errors.js';

/** The parts of a WAV `fmt ` chunk that decide how data bytes become samples. */
export interface WavFormat {
  readonly encoding: 'pcm' | 'float' | 'mulaw' | 'alaw';
  readonly channels: number;
  readonly sampleRate: number;
  /** Bytes of one sample of one channel (the container width, which may exceed the valid bits). */
  readonly bytesPerSample: number;
  /** Bytes of one sample frame across all channels (`nBlockAlign`). */
  readonly blockAlign: number;
  readonly codec: string;
}

const WAVE_FORMAT_PCM = 0x0001;
const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
const WAVE_FORMAT_ALAW = 0x0006;
const WAVE_FORMAT_MULAW = 0x0007;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const MAX_CHANNELS = 32;

function corrupt(message: string): AudioError {
  return new AudioError('corrupt_audio', message);
}

function encodingOf(tag: number): WavFormat['encoding'] | null {
  switch (tag) {
    case WAVE_FORMAT_PCM:
      return 'pcm';
    case WAVE_FORMAT_IEEE_FLOAT:
      return 'float';
    case WAVE_FORMAT_MULAW:
      return 'mulaw';
    case WAVE_FORMAT_ALAW:
      return 'alaw';
    default:
      return null;
  }
}

function codecName(encoding: WavFormat['encoding'], bits: number): string | null {
  if (encoding === 'mulaw' || encoding === 'alaw') return bits === 8 ? `pcm_${encoding}` : null;
  if (encoding === 'float') return bits === 32 || bits === 64 ? `pcm_f${bits}le` : null;
  if (bits === 8) return 'pcm_u8';
  return bits === 16 || bits === 24 || bits === 32 ? `pcm_s${bits}le` : null;
}

/** Parses the body of a `fmt ` chunk (WAVEFORMATEX or WAVEFORMATEXTENSIBLE). */
export function parseWavFormat(body: Uint8Array): WavFormat {
  if (body.length < 16) throw corrupt('WAV fmt chunk is shorter than 16 bytes');
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let tag = view.getUint16(0, true);
  const channels = view.getUint16(2, true);
  const sampleRate = view.getUint32(4, true);
  const blockAlign = view.getUint16(12, true);
  const bitsPerSample = view.getUint16(14, true);
  if (tag === WAVE_FORMAT_EXTENSIBLE) {
    // cbSize(2) validBits(2) channelMask(4) then the sub-format GUID whose first two bytes are the real tag.
    if (body.length < 40) throw corrupt('WAVE_FORMAT_EXTENSIBLE fmt chunk is shorter than 40 bytes');
    tag = view.getUint16(24, true);
  }
  const encoding = encodingOf(tag);
  if (encoding === null) {
    throw new AudioError('unsupported_audio_format', `WAV format tag 0x${tag.toString(16)} is not supported`);
  }
  if (channels < 1 || channels > MAX_CHANNELS) throw corrupt(`WAV declares ${channels} channels`);
  if (sampleRate < 1000 || sampleRate > 768_000) throw corrupt(`WAV declares a sample rate of ${sampleRate} Hz`);
  const bytesPerSample = Math.ceil(bitsPerSample / 8);
  if (bytesPerSample < 1 || blockAlign !== bytesPerSample * channels) {
    throw corrupt(`WAV block align ${blockAlign} does not match ${channels} channels of ${bitsPerSample} bits`);
  }
  const codec = codecName(encoding, bytesPerSample * 8);
  if (codec === null) {
    throw new AudioError('unsupported_audio_format', `WAV ${encoding} with ${bitsPerSample} bits per sample is not supported`);
  }
  return { encoding, channels, sampleRate, bytesPerSample, blockAlign, codec };
}
